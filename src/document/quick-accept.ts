import type { OpenAPIObject } from 'openapi3-ts/oas31'

/**
 * A yes-only check of a JSON body against a schema of the document, run before Ajv: true only when
 * the body surely conforms, false when it may not (then Ajv decides, and its errors are reported
 * as ever). Ajv runs with `allErrors`, so each value of a row tries every alternative of FieldValue
 * and builds an error object for each one that fails, and a path text for each member: most of a
 * 300-row save's check. This one stops at the first alternative that fits and builds nothing.
 *
 * It knows the keywords the request bodies use; a subschema with any other validation keyword
 * (`format`, `propertyNames`, `not`, ...) counts as not surely met, so the answer stays Ajv's.
 * What it does check, it checks as Ajv's generated code does (types with `isFinite`, lengths in
 * code points, patterns with the `u` flag, `required` as `!== undefined`).
 */
export type QuickAccept = (value: unknown) => boolean

/** Keywords that only annotate (Ajv checks nothing for them, or was told they are annotations). */
const ANNOTATIONS = new Set([
  'title', 'description', 'examples', 'example', 'default', 'deprecated', 'readOnly', 'writeOnly', '$comment',
  'contentEncoding', 'contentMediaType', 'contentSchema', 'discriminator', 'xml', 'externalDocs',
])

const NEVER: QuickAccept = () => false
const ALWAYS: QuickAccept = () => true

type Schema = Record<string, unknown>

/** The quick check of the schema at a JSON pointer of the document (`/paths/...`), or undefined when there is none. */
export function quickAcceptAt(document: OpenAPIObject, pointer: string): QuickAccept | undefined {
  const schema = resolve(document, pointer)
  if (schema === undefined) return undefined
  return compile(document, schema, new Map())
}

function resolve(document: OpenAPIObject, pointer: string): unknown {
  let node: unknown = document
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~')
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, key)) return undefined
    node = (node as Record<string, unknown>)[key]
  }
  return node
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)

function typeCheck(type: unknown): QuickAccept | undefined {
  switch (type) {
    case 'string': return (v) => typeof v === 'string'
    case 'number': return (v) => typeof v === 'number' && Number.isFinite(v)
    case 'integer': return (v) => typeof v === 'number' && Number.isFinite(v) && v % 1 === 0
    case 'boolean': return (v) => typeof v === 'boolean'
    case 'null': return (v) => v === null
    case 'array': return (v) => Array.isArray(v)
    case 'object': return isObject
    default: return undefined
  }
}

/** Characters as Ajv counts them for minLength / maxLength: code points. */
function codePoints(text: string): number {
  let count = 0
  for (let i = 0; i < text.length; i++) {
    count++
    const code = text.charCodeAt(i)
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) i++
  }
  return count
}

function compile(document: OpenAPIObject, schema: unknown, seen: Map<object, QuickAccept>): QuickAccept {
  if (schema === true) return ALWAYS
  if (!isObject(schema)) return NEVER
  const known = seen.get(schema)
  if (known !== undefined) return known
  // Recursive schemas: the check is filled in once compiled; a reference back to it waits for it.
  let done: QuickAccept = NEVER
  const self: QuickAccept = (value) => done(value)
  seen.set(schema, self)
  done = build(document, schema, seen)
  seen.set(schema, done)
  return done
}

function build(document: OpenAPIObject, schema: Schema, seen: Map<object, QuickAccept>): QuickAccept {
  const checks: QuickAccept[] = []
  const sub = (s: unknown) => compile(document, s, seen)
  const properties = isObject(schema.properties) ? schema.properties : {}
  for (const [keyword, value] of Object.entries(schema)) {
    if (ANNOTATIONS.has(keyword) || keyword.startsWith('x-')) continue
    switch (keyword) {
      case '$ref': {
        if (typeof value !== 'string' || !value.startsWith('#/')) return NEVER
        const target = resolve(document, value.slice(1))
        if (target === undefined) return NEVER
        checks.push(sub(target))
        break
      }
      case 'type': {
        const types = Array.isArray(value) ? value : [value]
        const each = types.map(typeCheck)
        if (each.some((c) => c === undefined)) return NEVER
        const list = each as QuickAccept[]
        checks.push(list.length === 1 ? (list[0] as QuickAccept) : (v) => list.some((c) => c(v)))
        break
      }
      case 'enum':
      case 'const': {
        const allowed = keyword === 'enum' ? value : [value]
        if (!Array.isArray(allowed) || allowed.some((a) => a !== null && typeof a === 'object')) return NEVER
        checks.push((v) => allowed.includes(v) && (typeof v !== 'number' || !Number.isNaN(v)))
        break
      }
      case 'properties': {
        if (!isObject(value)) return NEVER
        const members = Object.entries(value).map(([name, s]) => [name, sub(s)] as const)
        checks.push((v) => {
          if (!isObject(v)) return true
          for (const [name, check] of members) {
            const member = v[name]
            if (member !== undefined && !check(member)) return false
          }
          return true
        })
        break
      }
      case 'required': {
        if (!Array.isArray(value)) return NEVER
        const names = value as string[]
        checks.push((v) => !isObject(v) || names.every((name) => v[name] !== undefined))
        break
      }
      case 'additionalProperties': {
        const check = value === false ? NEVER : sub(value)
        checks.push((v) => {
          if (!isObject(v)) return true
          for (const key in v) {
            if (Object.hasOwn(properties, key)) continue
            if (!check(v[key])) return false
          }
          return true
        })
        break
      }
      case 'items': {
        const check = sub(value)
        checks.push((v) => {
          if (!Array.isArray(v)) return true
          for (const item of v) if (!check(item)) return false
          return true
        })
        break
      }
      case 'minItems':
      case 'maxItems': {
        if (typeof value !== 'number') return NEVER
        checks.push(keyword === 'minItems' ? (v) => !Array.isArray(v) || v.length >= value : (v) => !Array.isArray(v) || v.length <= value)
        break
      }
      case 'minLength':
      case 'maxLength': {
        if (typeof value !== 'number') return NEVER
        checks.push(keyword === 'minLength' ? (v) => typeof v !== 'string' || codePoints(v) >= value : (v) => typeof v !== 'string' || codePoints(v) <= value)
        break
      }
      case 'minimum':
      case 'maximum':
      case 'exclusiveMinimum':
      case 'exclusiveMaximum': {
        if (typeof value !== 'number') return NEVER
        const test = {
          minimum: (n: number) => n >= value,
          maximum: (n: number) => n <= value,
          exclusiveMinimum: (n: number) => n > value,
          exclusiveMaximum: (n: number) => n < value,
        }[keyword]
        checks.push((v) => typeof v !== 'number' || test(v))
        break
      }
      case 'pattern': {
        if (typeof value !== 'string') return NEVER
        let pattern: RegExp
        try {
          pattern = new RegExp(value, 'u')
        } catch {
          return NEVER
        }
        checks.push((v) => typeof v !== 'string' || pattern.test(v))
        break
      }
      // Not oneOf: an alternative this check cannot confirm may still match, making two.
      case 'anyOf':
      case 'allOf': {
        if (!Array.isArray(value)) return NEVER
        const list = value.map(sub)
        if (keyword === 'anyOf') {
          checks.push((v) => {
            for (const check of list) if (check(v)) return true
            return false
          })
        } else {
          checks.push((v) => {
            for (const check of list) if (!check(v)) return false
            return true
          })
        }
        break
      }
      default:
        // A validation keyword this check does not know: never surely met.
        return NEVER
    }
  }
  if (checks.length === 0) return ALWAYS
  if (checks.length === 1) return checks[0] as QuickAccept
  return (v) => {
    for (const check of checks) if (!check(v)) return false
    return true
  }
}
