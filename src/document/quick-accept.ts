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
 *
 * Like Ajv, it is compiled once into code: a function per subschema, each a list of tests that
 * return false, so checking a 300-row save is straight-line code rather than a call per keyword.
 */
export type QuickAccept = (value: unknown) => boolean

/** Keywords that only annotate (Ajv checks nothing for them, or was told they are annotations). */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'examples',
  'example',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  'discriminator',
  'xml',
  'externalDocs',
])

type Schema = Record<string, unknown>

/** The quick check of the schema at a JSON pointer of the document (`/paths/...`), or undefined when there is none. */
export function quickAcceptAt(document: OpenAPIObject, pointer: string): QuickAccept | undefined {
  const schema = resolve(document, pointer)
  if (schema === undefined) return undefined
  const compiler = new Compiler(document)
  const entry = compiler.functionFor(schema)
  // Only constants reach the code: names and enum values as JSON literals, patterns and member sets as values of C.
  const code = `'use strict'\n${compiler.functions.join('\n')}\nreturn ${entry}`
  return new Function('C', 'codePoints', code)(compiler.constants, codePoints) as QuickAccept
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

const IS_OBJECT = `(v !== null && typeof v === 'object' && !Array.isArray(v))`

/** The test of one JSON type on `v`, as an expression, or undefined for a type that is none. */
function typeTest(type: unknown): string | undefined {
  switch (type) {
    case 'string':
      return `typeof v === 'string'`
    case 'number':
      return `(typeof v === 'number' && Number.isFinite(v))`
    case 'integer':
      return `(typeof v === 'number' && Number.isFinite(v) && v % 1 === 0)`
    case 'boolean':
      return `typeof v === 'boolean'`
    case 'null':
      return `v === null`
    case 'array':
      return `Array.isArray(v)`
    case 'object':
      return IS_OBJECT
    default:
      return undefined
  }
}

const COMPARISONS: Record<string, string> = { minimum: '<', maximum: '>', exclusiveMinimum: '<=', exclusiveMaximum: '>=' }

/** Writes a function per subschema (`quickCheck0`, `quickCheck1`, ...), each subschema once, so a schema that refers to itself calls itself. */
class Compiler {
  readonly functions: string[] = []
  readonly constants: unknown[] = []
  readonly #names = new Map<object, string>()
  #count = 0

  constructor(readonly document: OpenAPIObject) {}

  functionFor(schema: unknown): string {
    if (schema === true) return this.#write('return true')
    if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return this.#write('return false')
    const known = this.#names.get(schema)
    if (known !== undefined) return known
    const name = `quickCheck${this.#count++}`
    this.#names.set(schema, name)
    const tests = this.#tests(schema as Schema)
    // A keyword it cannot check (or a value it cannot read) makes the whole subschema not surely met.
    this.functions.push(`function ${name}(v) {\n${tests === undefined ? 'return false' : `${tests.join('\n')}\nreturn true`}\n}`)
    return name
  }

  #write(body: string): string {
    const name = `quickCheck${this.#count++}`
    this.functions.push(`function ${name}(v) { ${body} }`)
    return name
  }

  #constant(value: unknown): string {
    this.constants.push(value)
    return `C[${this.constants.length - 1}]`
  }

  /** The statements that return false where `v` may not conform, or undefined when the schema has a keyword not known here. */
  #tests(schema: Schema): string[] | undefined {
    const tests: string[] = []
    const properties = schema.properties !== null && typeof schema.properties === 'object' && !Array.isArray(schema.properties) ? schema.properties : {}
    for (const [keyword, value] of Object.entries(schema)) {
      if (ANNOTATIONS.has(keyword) || keyword.startsWith('x-')) continue
      switch (keyword) {
        case '$ref': {
          if (typeof value !== 'string' || !value.startsWith('#/')) return undefined
          const target = resolve(this.document, value.slice(1))
          if (target === undefined) return undefined
          tests.push(`if (!${this.functionFor(target)}(v)) return false`)
          break
        }
        case 'type': {
          const each = (Array.isArray(value) ? value : [value]).map(typeTest)
          if (each.some((test) => test === undefined)) return undefined
          tests.push(`if (!(${each.join(' || ')})) return false`)
          break
        }
        case 'enum':
        case 'const': {
          const allowed = keyword === 'enum' ? value : [value]
          if (!Array.isArray(allowed) || allowed.length === 0 || allowed.some((a) => a !== null && typeof a === 'object')) return undefined
          // Strict equality, as Ajv's: NaN matches nothing, 0 and -0 each other.
          tests.push(`if (!(${allowed.map((a) => `v === ${JSON.stringify(a)}`).join(' || ')})) return false`)
          break
        }
        case 'properties': {
          if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined
          const members = Object.entries(value).map(
            ([name, sub]) => `m = v[${JSON.stringify(name)}]; if (m !== undefined && !${this.functionFor(sub)}(m)) return false`,
          )
          if (members.length > 0) tests.push(`if (${IS_OBJECT}) { let m\n${members.join('\n')}\n}`)
          break
        }
        case 'required': {
          if (!Array.isArray(value)) return undefined
          const names = value as unknown[]
          if (names.length > 0)
            tests.push(`if (${IS_OBJECT} && (${names.map((name) => `v[${JSON.stringify(String(name))}] === undefined`).join(' || ')})) return false`)
          break
        }
        case 'additionalProperties': {
          const declared = this.#constant(properties)
          const test = value === false ? 'return false' : `if (!${this.functionFor(value)}(v[key])) return false`
          tests.push(`if (${IS_OBJECT}) for (const key in v) { if (Object.hasOwn(${declared}, key)) continue; ${test} }`)
          break
        }
        case 'items':
          tests.push(`if (Array.isArray(v)) for (const item of v) if (!${this.functionFor(value)}(item)) return false`)
          break
        case 'minItems':
        case 'maxItems':
          if (typeof value !== 'number') return undefined
          tests.push(`if (Array.isArray(v) && v.length ${keyword === 'minItems' ? '<' : '>'} ${value}) return false`)
          break
        case 'minLength':
        case 'maxLength':
          if (typeof value !== 'number') return undefined
          tests.push(`if (typeof v === 'string' && codePoints(v) ${keyword === 'minLength' ? '<' : '>'} ${value}) return false`)
          break
        case 'minimum':
        case 'maximum':
        case 'exclusiveMinimum':
        case 'exclusiveMaximum':
          if (typeof value !== 'number' || !Number.isFinite(value)) return undefined
          tests.push(`if (typeof v === 'number' && v ${COMPARISONS[keyword]} ${value}) return false`)
          break
        case 'pattern': {
          if (typeof value !== 'string') return undefined
          let pattern: RegExp
          try {
            pattern = new RegExp(value, 'u')
          } catch {
            return undefined
          }
          tests.push(`if (typeof v === 'string' && !${this.#constant(pattern)}.test(v)) return false`)
          break
        }
        // Not oneOf: an alternative this check cannot confirm may still match, making two.
        case 'anyOf':
        case 'allOf': {
          if (!Array.isArray(value)) return undefined
          const calls = value.map((sub) => `${this.functionFor(sub)}(v)`)
          if (keyword === 'anyOf') tests.push(`if (!(${calls.join(' || ') || 'false'})) return false`)
          else if (calls.length > 0) tests.push(`if (!(${calls.join(' && ')})) return false`)
          break
        }
        default:
          // A validation keyword this check does not know: never surely met.
          return undefined
      }
    }
    return tests
  }
}
