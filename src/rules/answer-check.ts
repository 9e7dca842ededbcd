import type { OpenAPIObject } from 'openapi3-ts/oas31'
import type { Violation } from '../errors.ts'
import { isObject, type JsonObject } from '../document/json.ts'
import { escapePointer, hasSchema, resolveRef, responseOf, type OperationEntry } from '../document/reader.ts'
import { validatorsFor } from '../document/validators.ts'
import { dropEchoes } from '../document/violations.ts'
import { isGatewayStatus } from '../wire/gateway-statuses.ts'
import { noContentViolations } from './valid-http.ts'

/**
 * Whether the served document can give the answer of an answer rule (`POST /__mock/stubs`):
 * the status is one the operation documents (or a gateway status, which any operation may get
 * from the infrastructure), the media type one it declares for that status, the body fits that
 * media type's schema; a merge patch keeps the operation's documented success answer (its
 * examples, patched) within its schema and adds no member the schema does not name. Clients must
 * not learn from the mock an answer the installation can never give. Validators come from the
 * project's Ajv setup (src/document/validators.ts), compiled once per (operation, status, media
 * type) and shared.
 */

/** What a rule (fault or answer rule) is checked against: the served release's document and operations, and whether the mock is strict. */
export interface RuleCheckContext {
  document: OpenAPIObject
  operations: ReadonlyMap<string, OperationEntry>
  /** `--strict`: a rule off the document is refused when added, even with `offDocument: true`. */
  strict: boolean
}

/** What a rule's whole answer sends, decided when the rule is added. */
export interface PreparedAnswer {
  status: number
  /** Header names in lower case; `content-type` set when there is a body. */
  headers: Record<string, string>
  /** The bytes sent, or null for no body. */
  payload: string | null
}

/** Media types whose bodies are JSON (`application/json`, `application/problem+json`, ...). */
const isJsonType = (mediaType: string): boolean => /^application\/([\w.-]+\+)?json$/i.test(mediaType)

const mediaTypeOf = (contentType: string): string => (contentType.split(';')[0] ?? '').trim().toLowerCase()

/** The media types the document declares for one answer of an operation; null when the status is not documented, [] for no body. */
function declaredTypes(document: OpenAPIObject, entry: OperationEntry, status: number): { pointer: string; types: string[] } | null {
  const found = responseOf(document, entry, status)
  if (found === undefined) return null
  const content = found.response.content
  return { pointer: found.pointer, types: isObject(content) ? Object.keys(content) : [] }
}

/**
 * The media type a whole answer is sent with when the rule names none: `application/json` when
 * the document declares it for the status, else the first JSON type it declares (the problems'
 * `application/problem+json`), else the first it declares; for a status the document lacks,
 * JSON for a JSON body and text for a text.
 */
function defaultMediaType(types: readonly string[] | undefined, body: unknown): string {
  if (types !== undefined && types.length > 0) {
    if (types.includes('application/json')) return 'application/json'
    return types.find(isJsonType) ?? (types[0] as string)
  }
  return typeof body === 'string' ? 'text/plain' : 'application/json'
}

/** The header of `headers` named `name` in any case. */
function headerNamed(headers: Record<string, string>, name: string): [string, string] | undefined {
  return Object.entries(headers).find(([key]) => key.toLowerCase() === name)
}

/**
 * Checks a whole answer against the operation (or, with no operation, against nothing: only an
 * off-document rule may answer every operation) and prepares what it sends. Violations point
 * into the rule's body at `at` (`/body/answer`).
 */
export function checkWholeAnswer(
  document: OpenAPIObject,
  entry: OperationEntry | undefined,
  answer: { status?: number; headers?: Record<string, string>; body?: unknown },
  at: string,
): { prepared: PreparedAnswer; violations: Violation[]; gateway: boolean } {
  const violations: Violation[] = []
  const status = answer.status ?? 200
  const gateway = isGatewayStatus(status)
  const given = headerNamed(answer.headers ?? {}, 'content-type')
  const declared = entry === undefined ? null : declaredTypes(document, entry, status)
  // A gateway status the operation does not list is the infrastructure's: the document declares no body for it to be held to.
  if (entry !== undefined && declared === null && !gateway) {
    const documented = Object.keys(entry.operation.responses ?? {}).join(', ')
    violations.push({
      pointer: `${at}/status`,
      keyword: 'offDocument',
      message: `${status} is not a status ${entry.operationId} answers with (the document lists ${documented}; a gateway status, 500, 502, 503 or 504, goes anywhere)`,
    })
  }
  const mediaType = given === undefined ? defaultMediaType(declared?.types, answer.body) : mediaTypeOf(given[1])
  const hasBody = answer.body !== undefined
  if (declared !== null) {
    if (declared.types.length === 0 && hasBody) {
      violations.push({ pointer: `${at}/body`, keyword: 'offDocument', message: `must be absent: ${entry?.operationId} answers ${status} without a body` })
    } else if (declared.types.length > 0 && !hasBody) {
      violations.push({
        pointer: `${at}/body`,
        keyword: 'offDocument',
        message: `is required: ${entry?.operationId} answers ${status} with a body (${declared.types.join(', ')})`,
      })
    } else if (declared.types.length > 0 && given !== undefined && !declared.types.includes(mediaType)) {
      violations.push({
        pointer: `${at}/headers/${escapePointer(given[0])}`,
        keyword: 'offDocument',
        message: `${mediaType} is not a media type ${entry?.operationId} answers ${status} with (${declared.types.join(', ')})`,
      })
    } else if (hasBody && isJsonType(mediaType)) {
      const schemaPointer = `${declared.pointer}/content/${escapePointer(mediaType)}/schema`
      if (hasSchema(document, schemaPointer))
        violations.push(
          ...dropEchoes(validatorsFor(document).violationsAt(schemaPointer, answer.body, `${at.slice(1)}/body`), { value: answer.body, prefix: `${at}/body` }),
        )
    }
  }
  if (hasBody && !isJsonType(mediaType) && typeof answer.body !== 'string') {
    violations.push({ pointer: `${at}/body`, keyword: 'textBody', message: `must be a text: ${mediaType} is not JSON, so the body is sent as written` })
  }
  violations.push(...noContentViolations(status, hasBody, at))
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(answer.headers ?? {})) headers[name.toLowerCase()] = value
  let payload: string | null = null
  if (hasBody) {
    payload = isJsonType(mediaType) ? JSON.stringify(answer.body) : String(answer.body)
    headers['content-type'] = given?.[1] ?? `${mediaType}; charset=utf-8`
  }
  return { prepared: { status, headers, payload }, violations, gateway }
}

/** Violations of a whole answer that no `offDocument` lets through: what is not valid HTTP, not a matter of the document. */
export const NOT_HTTP: ReadonlySet<string> = new Set(['textBody', 'noContent'])

/**
 * Checks a merge patch against the operation's success answer: the patch applied to each
 * documented example of it (those that fit the release's schema) must still fit the schema.
 * An operation whose success answer is not JSON cannot be patched. Violations point into the
 * patch (`/body/answer/patch/CreatedItems`).
 */
export function checkPatch(document: OpenAPIObject, entry: OperationEntry, patch: unknown, at: string): Violation[] {
  const success = Object.keys(entry.operation.responses ?? {}).find((status) => /^2\d\d$/.test(status))
  const declared = success === undefined ? null : declaredTypes(document, entry, Number(success))
  const mediaType = declared?.types.find(isJsonType)
  if (declared === null || mediaType === undefined) {
    return [{ pointer: `${at}/patch`, keyword: 'offDocument', message: `cannot apply: ${entry.operationId} does not answer JSON` }]
  }
  const mediaPointer = `${declared.pointer}/content/${escapePointer(mediaType)}`
  const schemaPointer = `${mediaPointer}/schema`
  if (!hasSchema(document, schemaPointer)) return []
  const validators = validatorsFor(document)
  const media = mediaAt(document, mediaPointer)
  const examples = [
    ...(media?.example === undefined ? [] : [media.example]),
    ...Object.values(isObject(media?.examples) ? media.examples : {}).flatMap((example) =>
      isObject(example) && example.value !== undefined ? [example.value] : [],
    ),
  ].filter((value) => validators.violationsAt(schemaPointer, value).length === 0)
  const seen = new Set<string>()
  const violations: Violation[] = unnamedMembers(document, schemaPointer, patch, `${at}/patch`).map((pointer) => ({
    pointer,
    keyword: 'unknownMember',
    message: `is not a member ${entry.operationId} ${success} names: a patch that adds it gives an answer the document does not describe (a misspelt member changes nothing)`,
  }))
  for (const example of examples) {
    for (const violation of dropEchoes(validators.violationsAt(schemaPointer, mergePatch(structuredClone(example), patch), `${at.slice(1)}/patch`))) {
      const key = `${violation.pointer} ${violation.message}`
      if (seen.has(key)) continue
      seen.add(key)
      violations.push({ ...violation, message: `${violation.message} once patched (${entry.operationId} ${success})` })
    }
  }
  return violations
}

/**
 * The pointers of the members a patch adds that the schema at `schemaPointer` does not name. A
 * schema names the members of its `properties`, the names its `patternProperties` take, and any
 * name where its `additionalProperties` is a schema (a map such as `PrimaryKeyData`).
 * Alternatives (`oneOf`, `anyOf`, `allOf`) each count. An array's elements are held to its `items`
 * (a row's own fields are a map, `additionalProperties`, so any field name passes); a member set to
 * null removes, and adds nothing; a schema that names no member at all says nothing of them. The
 * patch is no deeper than MAX_ANSWER_DEPTH (checked before), so neither is this walk.
 */
function unnamedMembers(document: OpenAPIObject, schemaPointer: string, patch: unknown, at: string): string[] {
  const out: string[] = []
  const visit = (schemas: JsonObject[], value: unknown, pointer: string): void => {
    if (Array.isArray(value)) {
      const items = schemas.flatMap((schema) => (schema.items === undefined ? [] : alternativesOf(document, schema.items)))
      value.forEach((item, index) => visit(items, item, `${pointer}/${index}`))
      return
    }
    if (!isObject(value)) return
    const objects = schemas.filter(
      (schema) => schema.properties !== undefined || schema.patternProperties !== undefined || schema.additionalProperties !== undefined,
    )
    if (objects.length === 0) return
    for (const [name, member] of Object.entries(value)) {
      if (member === null) continue
      const inner = objects.flatMap((schema) => memberSchemas(schema, name))
      if (inner.length === 0) {
        // No schema holds it to anything: it is named only where one takes any member.
        if (!objects.some((schema) => schema.additionalProperties === true)) out.push(`${pointer}/${escapePointer(name)}`)
        continue
      }
      visit(
        inner.flatMap((node) => alternativesOf(document, node)),
        member,
        `${pointer}/${escapePointer(name)}`,
      )
    }
  }
  visit(alternativesOf(document, { $ref: `#${schemaPointer}` }), patch, at)
  return out
}

/** The schemas an object schema holds a member of this name to (none when it does not name it). */
function memberSchemas(schema: JsonObject, name: string): JsonObject[] {
  const properties = schema.properties
  if (isObject(properties) && Object.hasOwn(properties, name) && isObject(properties[name])) return [properties[name]]
  const patterns = schema.patternProperties
  if (isObject(patterns)) {
    const matching = Object.entries(patterns).filter(([pattern, inner]) => isObject(inner) && new RegExp(pattern, 'u').test(name))
    if (matching.length > 0) return matching.map(([, inner]) => inner as JsonObject)
  }
  return isObject(schema.additionalProperties) ? [schema.additionalProperties] : []
}

/** A schema and its alternatives and parts (`$ref` followed; `allOf`, `oneOf`, `anyOf` opened), a bounded number of levels deep. */
function alternativesOf(document: OpenAPIObject, node: unknown, depth = 0): JsonObject[] {
  const resolved = resolveRef(document, node).node
  if (!isObject(resolved) || depth > 16) return []
  const out: JsonObject[] = [resolved]
  for (const keyword of ['allOf', 'oneOf', 'anyOf'] as const) {
    const branches = resolved[keyword]
    if (Array.isArray(branches)) for (const branch of branches) out.push(...alternativesOf(document, branch, depth + 1))
  }
  return out
}

function mediaAt(document: OpenAPIObject, pointer: string): Record<string, unknown> | undefined {
  let node: unknown = document
  for (const raw of pointer.split('/').slice(1)) {
    if (!isObject(node)) return undefined
    node = node[raw.replaceAll('~1', '/').replaceAll('~0', '~')]
  }
  return isObject(node) ? node : undefined
}

/**
 * RFC 7386 JSON merge patch (§2, the MergePatch function): an object patch merges into an
 * object target member by member, a member whose patch is null is removed, any other patch
 * replaces the target. Members are set as own data properties, so a `__proto__` member is data.
 * The target may be changed in place; use the result. Written here, not taken from the
 * json-merge-patch package (no `engines`, last released in 2021, a dependency of its own): it is
 * the RFC's ten lines, and test/rules/answer-check.test.ts runs the RFC's Appendix A on it.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch
  const out: Record<string, unknown> = isObject(target) ? target : {}
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete out[name]
    else
      Object.defineProperty(out, name, {
        value: mergePatch(Object.hasOwn(out, name) ? out[name] : undefined, value),
        enumerable: true,
        writable: true,
        configurable: true,
      })
  }
  return out
}
