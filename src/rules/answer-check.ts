import type { OpenAPIObject } from 'openapi3-ts/oas31'
import type { Violation } from '../errors.ts'
import { isObject } from '../document/json.ts'
import { escapePointer, responseOf, type OperationEntry } from '../document/reader.ts'
import { validatorsFor } from '../document/validators.ts'

/**
 * Whether the served document can give the answer of an answer rule (`POST /__mock/stubs`):
 * the status is one the operation documents, the media type one it declares for that status,
 * the body fits that media type's schema; a merge patch keeps the operation's documented
 * success answer (its examples, patched) within its schema. Clients must not learn from the
 * mock an answer the installation can never give. Validators come from the project's Ajv setup
 * (src/document/validators.ts), compiled once per (operation, status, media type) and shared.
 */

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
): { prepared: PreparedAnswer; violations: Violation[] } {
  const violations: Violation[] = []
  const status = answer.status ?? 200
  const given = headerNamed(answer.headers ?? {}, 'content-type')
  const declared = entry === undefined ? null : declaredTypes(document, entry, status)
  if (entry !== undefined && declared === null) {
    const documented = Object.keys(entry.operation.responses ?? {}).join(', ')
    violations.push({ pointer: `${at}/status`, keyword: 'offDocument', message: `${status} is not a status ${entry.operationId} answers with (the document lists ${documented})` })
  }
  const mediaType = given === undefined ? defaultMediaType(declared?.types, answer.body) : mediaTypeOf(given[1])
  const hasBody = answer.body !== undefined
  if (declared !== null) {
    if (declared.types.length === 0 && hasBody) {
      violations.push({ pointer: `${at}/body`, keyword: 'offDocument', message: `must be absent: ${entry?.operationId} answers ${status} without a body` })
    } else if (declared.types.length > 0 && !hasBody) {
      violations.push({ pointer: `${at}/body`, keyword: 'offDocument', message: `is required: ${entry?.operationId} answers ${status} with a body (${declared.types.join(', ')})` })
    } else if (declared.types.length > 0 && given !== undefined && !declared.types.includes(mediaType)) {
      violations.push({ pointer: `${at}/headers/${escapePointer(given[0])}`, keyword: 'offDocument', message: `${mediaType} is not a media type ${entry?.operationId} answers ${status} with (${declared.types.join(', ')})` })
    } else if (hasBody && isJsonType(mediaType)) {
      const schemaPointer = `${declared.pointer}/content/${escapePointer(mediaType)}/schema`
      if (hasSchema(document, schemaPointer)) violations.push(...preciseViolations(validatorsFor(document).violationsAt(schemaPointer, answer.body, `${at.slice(1)}/body`)))
    }
  }
  if (hasBody && !isJsonType(mediaType) && typeof answer.body !== 'string') {
    violations.push({ pointer: `${at}/body`, keyword: 'textBody', message: `must be a text: ${mediaType} is not JSON, so the body is sent as written` })
  }
  const headers: Record<string, string> = {}
  for (const [name, value] of Object.entries(answer.headers ?? {})) headers[name.toLowerCase()] = value
  let payload: string | null = null
  if (hasBody) {
    payload = isJsonType(mediaType) ? JSON.stringify(answer.body) : String(answer.body)
    headers['content-type'] = given?.[1] ?? `${mediaType}; charset=utf-8`
  }
  return { prepared: { status, headers, payload }, violations }
}

/**
 * The violations that say what is wrong: a `oneOf`/`anyOf` failure at a pointer that also has a
 * more precise violation inside it only repeats it.
 */
export function preciseViolations(violations: Violation[]): Violation[] {
  return violations.filter(
    (v) => !((v.keyword === 'oneOf' || v.keyword === 'anyOf') && violations.some((other) => other !== v && other.pointer.startsWith(`${v.pointer}/`))),
  )
}

/** Whether the document holds a schema at this JSON pointer (a media type may declare none). */
function hasSchema(document: OpenAPIObject, pointer: string): boolean {
  let node: unknown = document
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~')
    if (!isObject(node)) return false
    node = node[key]
  }
  return node !== undefined
}

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
    ...Object.values(isObject(media?.examples) ? media.examples : {}).flatMap((example) => (isObject(example) && example.value !== undefined ? [example.value] : [])),
  ].filter((value) => validators.violationsAt(schemaPointer, value).length === 0)
  const seen = new Set<string>()
  const violations: Violation[] = []
  for (const example of examples) {
    for (const violation of preciseViolations(validators.violationsAt(schemaPointer, mergePatch(structuredClone(example), patch), `${at.slice(1)}/patch`))) {
      const key = `${violation.pointer} ${violation.message}`
      if (seen.has(key)) continue
      seen.add(key)
      violations.push({ ...violation, message: `${violation.message} once patched (${entry.operationId} ${success})` })
    }
  }
  return violations
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
 * the RFC's ten lines, and test/control/answer-check.test.ts runs the RFC's Appendix A on it.
 */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch
  const out: Record<string, unknown> = isObject(target) ? target : {}
  for (const [name, value] of Object.entries(patch)) {
    if (value === null) delete out[name]
    else Object.defineProperty(out, name, { value: mergePatch(Object.hasOwn(out, name) ? out[name] : undefined, value), enumerable: true, writable: true, configurable: true })
  }
  return out
}
