import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { resolveProfile, type Profile } from '../../spec/profiles.ts'
import { apiDocument, listOperations, operationParameters, requestBodyOf, resolveRef, responseOf, servedDocument, atPointer, type OperationEntry } from '../document/reader.ts'
import { isObject } from '../document/json.ts'
import type { FindingSide } from './types.ts'

/**
 * The two releases' documents, reduced to what the client uses: which of its operations a release
 * serves, what takes the place of one it does not (from the release profiles), and the request a
 * release takes (method, path, media type, body members), read from the release's strict document,
 * the one without the mock's leniencies: what to send, not what is merely tolerated.
 */

/** A release's operations by id, in its strict view. */
export interface ReleaseDocument {
  release: string
  profile: Profile
  document: OpenAPIObject
  operations: Map<string, OperationEntry>
}

/** The document of one release (a normalized version), in the strict mode's view. */
export function releaseView(release: string): ReleaseDocument {
  const document = servedDocument(release, 'strict')
  return { release, profile: resolveProfile(release), document, operations: new Map(listOperations(document).map((entry) => [entry.operationId, entry])) }
}

/** Every operation of every release by id, listed once: a usage asks for one per interaction. */
let everyOperation: Map<string, OperationEntry> | undefined

/** Every operation of every release: where a client's operation is, whichever release it was recorded on. */
export function anyOperation(operationId: string): OperationEntry | undefined {
  everyOperation ??= new Map(listOperations(apiDocument()).map((entry) => [entry.operationId, entry]))
  return everyOperation.get(operationId)
}

/**
 * The operation that takes the place of `operationId` on the target: the profiles name, per role
 * (sign-in, Get Items), the operation of each release; when the client's operation fills a role on
 * its release and the target fills it with another, that one. Undefined when no role changes.
 */
export function successorOf(operationId: string, from: Profile, to: Profile): string | undefined {
  const operations = new Set(listOperations(apiDocument()).map((entry) => entry.operationId))
  for (const role of Object.keys(from) as Array<keyof Profile>) {
    const [was, now] = [from[role], to[role]]
    if (typeof was === 'string' && typeof now === 'string' && operations.has(was) && operations.has(now) && was === operationId && now !== operationId) return now
  }
  return undefined
}

/** A JSON schema written short: `{ query: string }`, `[{ RelationKey: string|null, Rows: [...] }]`; optional members with `?`. */
export function schemaText(document: OpenAPIObject, node: unknown, depth = 0): string {
  const { node: schema } = resolveRef(document, node)
  if (!isObject(schema)) return 'any'
  if (depth > 6) return '…'
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  if (Array.isArray(schema.enum) && schema.enum.length === 1) return JSON.stringify(schema.enum[0])
  for (const key of ['oneOf', 'anyOf'] as const) {
    const branches = schema[key]
    if (Array.isArray(branches) && branches.length > 0) return [...new Set(branches.map((branch) => schemaText(document, branch, depth)))].join(' | ')
  }
  const types = Array.isArray(schema.type) ? schema.type.map(String) : typeof schema.type === 'string' ? [schema.type] : []
  if (types.includes('object') && isObject(schema.properties)) {
    const required = new Set(Array.isArray(schema.required) ? schema.required.map(String) : [])
    const members = Object.entries(schema.properties).map(([name, member]) => `${name}${required.has(name) ? '' : '?'}: ${schemaText(document, member, depth + 1)}`)
    return `{ ${members.join(', ')} }`
  }
  if (types.includes('array')) return `[${schema.items === undefined ? 'any' : schemaText(document, schema.items, depth + 1)}]${types.length > 1 ? `|${types.filter((t) => t !== 'array').join('|')}` : ''}`
  return types.length === 0 ? 'any' : types.join('|')
}

/** What a release takes for an operation: method, path, body media type and members. */
export function requestSide(view: ReleaseDocument, operationId: string): FindingSide | undefined {
  const entry = view.operations.get(operationId)
  if (entry === undefined) return undefined
  const body = requestBodyOf(view.document, entry)
  return {
    method: entry.method.toUpperCase(),
    path: entry.path,
    ...(body === undefined ? {} : { contentType: body.mediaType, body: schemaText(view.document, atPointer(view.document, body.schemaPointer)) }),
  }
}

/** The header parameters an operation requires on a release, in the document's spelling. */
export function requiredHeaders(view: ReleaseDocument, operationId: string): string[] {
  const entry = view.operations.get(operationId)
  return entry === undefined ? [] : operationParameters(view.document, entry).filter((p) => p.in === 'header' && p.required).map((p) => p.name)
}

/** A path parameter's description on a release (what `{organizationphysicalname}` stands for). */
export function pathParameterText(view: ReleaseDocument, operationId: string, name: string): string | undefined {
  const entry = view.operations.get(operationId)
  const parameter = entry === undefined ? undefined : operationParameters(view.document, entry).find((p) => p.in === 'path' && p.name === name)
  const description = parameter?.parameter.description
  return typeof description === 'string' ? description.split(/(?<=\.)\s/)[0] : undefined
}

/** The top-level members of an operation's 2xx JSON answer on a release, with their schema text; undefined when it has none. */
export function answerMembers(view: ReleaseDocument, operationId: string): Map<string, string> | undefined {
  const entry = view.operations.get(operationId)
  if (entry === undefined) return undefined
  const found = responseOf(view.document, entry, 200)
  const content = found?.response.content
  if (!isObject(content)) return undefined
  const media = Object.entries(content).find(([type]) => /json/.test(type))?.[1]
  if (!isObject(media)) return undefined
  const { node } = resolveRef(view.document, media.schema)
  const branches = isObject(node) && Array.isArray(node.oneOf) ? node.oneOf : [node]
  const members = new Map<string, string>()
  for (const branch of branches) {
    const { node: schema } = resolveRef(view.document, branch)
    if (!isObject(schema) || !isObject(schema.properties)) continue
    for (const [name, member] of Object.entries(schema.properties)) members.set(name, schemaText(view.document, member, 1))
  }
  return members.size === 0 ? undefined : members
}

/** Whether a release documents a status for an operation. */
export function documentsStatus(view: ReleaseDocument, operationId: string, status: number): boolean {
  const entry = view.operations.get(operationId)
  return entry !== undefined && responseOf(view.document, entry, status) !== undefined
}
