import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { resolveProfile, type Profile } from '../../../spec/profiles.ts'
import {
  apiDocument,
  listOperations,
  operationParameters,
  requestBodyOf,
  resolveRef,
  responseOf,
  servedDocument,
  atPointer,
  type OperationEntry,
} from '../../document/reader.ts'
import { isObject } from '../../document/json.ts'
import type { FindingSide, TokenSide } from './types.ts'

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
export function strictReleaseDocument(release: string): ReleaseDocument {
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
    if (typeof was === 'string' && typeof now === 'string' && operations.has(was) && operations.has(now) && was === operationId && now !== operationId)
      return now
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
    const members = Object.entries(schema.properties).map(
      ([name, member]) => `${name}${required.has(name) ? '' : '?'}: ${schemaText(document, member, depth + 1)}`,
    )
    return `{ ${members.join(', ')} }`
  }
  if (types.includes('array'))
    return `[${schema.items === undefined ? 'any' : schemaText(document, schema.items, depth + 1)}]${types.length > 1 ? `|${types.filter((t) => t !== 'array').join('|')}` : ''}`
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
  return entry === undefined
    ? []
    : operationParameters(view.document, entry)
        .filter((p) => p.in === 'header' && p.required)
        .map((p) => p.name)
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

/** A member name as two releases may spell it: `client_id`, `clientId` and `ClientID` are one. */
const looseName = (name: string) => name.toLowerCase().replace(/[_-]/g, '')

/**
 * The members of an operation's request body on a release, with their schemas: the top-level
 * members of an object, or of each item of a list (`[].RelationKey`), required ones only when
 * `requiredOnly` (what a client must send).
 */
function bodyMembers(view: ReleaseDocument, operationId: string, requiredOnly: boolean): Map<string, Record<string, unknown>> {
  const entry = view.operations.get(operationId)
  const body = entry === undefined ? undefined : requestBodyOf(view.document, entry)
  const members = new Map<string, Record<string, unknown>>()
  if (body === undefined) return members
  let { node } = resolveRef(view.document, atPointer(view.document, body.schemaPointer))
  let prefix = ''
  if (isObject(node) && node.type === 'array') {
    node = resolveRef(view.document, node.items).node
    prefix = '[].'
  }
  if (!isObject(node) || !isObject(node.properties)) return members
  const required = new Set(Array.isArray(node.required) ? node.required.map(String) : [])
  for (const [name, member] of Object.entries(node.properties)) {
    const { node: schema } = resolveRef(view.document, member)
    if (isObject(schema) && (!requiredOnly || required.has(name))) members.set(`${prefix}${name}`, schema)
  }
  return members
}

/** The value a document gives a member, as JSON: its const, its enum (`"a" | "b"`), its default, else its first example; undefined when it gives none. */
function documentedValue(schema: Record<string, unknown>): string | undefined {
  if (schema.const !== undefined) return JSON.stringify(schema.const)
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum.map((value) => JSON.stringify(value)).join(' | ')
  if (schema.default !== undefined) return JSON.stringify(schema.default)
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return JSON.stringify(schema.examples[0])
  return schema.example === undefined ? undefined : JSON.stringify(schema.example)
}

/**
 * What a client must send on `to` for `toOperation` that it does not send today with
 * `fromOperation` on `from`, member by member, with the value the target's document gives (its
 * const, enum, default or example, as JSON), or its type where the document gives none: each
 * required member the client does not send today (by name, however spelt), and each it sends
 * whose value the two documents describe otherwise (the legacy client constant and the client
 * constant of the current sign-in are two values). A member both describe alike keeps the
 * client's own value (the user's name and password), and is left out. Undefined when nothing is new.
 */
export function sendOf(from: ReleaseDocument, fromOperation: string, to: ReleaseDocument, toOperation: string): Record<string, string> | undefined {
  const before = new Map([...bodyMembers(from, fromOperation, false)].map(([name, schema]) => [looseName(name), schema]))
  const send: Record<string, string> = {}
  for (const [name, schema] of bodyMembers(to, toOperation, true)) {
    const was = before.get(looseName(name))
    const value = documentedValue(schema)
    if (was === undefined) send[name] = value ?? schemaText(to.document, schema, 1)
    else if (value !== undefined && was.description !== schema.description) send[name] = value
  }
  return Object.keys(send).length === 0 ? undefined : send
}

/** The names a description sets in code (`access_token`, `SessionToken`). */
const codeNames = (text: unknown) => (typeof text === 'string' ? [...text.matchAll(/`([^`\s]+)`/g)].map((match) => match[1] as string) : [])

/**
 * Where `signIn`'s token goes on a release, read from its document: `signIn` is an operation that
 * asks for no security (`security: []`) and answers JSON; each of `operations` that asks for a
 * security scheme sends the token there (an API key's header, or `Authorization: Bearer`); the
 * member holding it is the one of the sign-in's answer that the header parameter or the scheme
 * names (`The session token returned by sign-in (`access_token` ...)`). Undefined for an operation
 * that is no sign-in, or when none of `operations` sends a token.
 */
export function tokenOf(view: ReleaseDocument, signIn: string, operations: readonly string[]): TokenSide | undefined {
  const entry = view.operations.get(signIn)
  const security = entry?.operation.security
  const answer = answerMembers(view, signIn)
  if (!Array.isArray(security) || security.length > 0 || answer === undefined) return undefined
  const schemes = isObject(view.document.components?.securitySchemes) ? view.document.components.securitySchemes : {}
  const headers = new Map<string, string[]>()
  let member: string | undefined
  for (const operationId of operations) {
    const used = view.operations.get(operationId)
    if (used === undefined || !Array.isArray(used.operation.security)) continue
    for (const requirement of used.operation.security) {
      for (const name of Object.keys(requirement)) {
        const { node: scheme } = resolveRef(view.document, (schemes as Record<string, unknown>)[name])
        if (!isObject(scheme)) continue
        const header =
          scheme.type === 'apiKey' && scheme.in === 'header'
            ? String(scheme.name)
            : scheme.type === 'http'
              ? `Authorization: ${String(scheme.scheme).replace(/^./, (c) => c.toUpperCase())}`
              : undefined
        if (header === undefined) continue
        headers.set(header, [...(headers.get(header) ?? []), operationId])
        // The header parameter of the same name says what its value is, else the scheme does.
        const parameter = operationParameters(view.document, used).find((p) => p.in === 'header' && p.name.toLowerCase() === header.toLowerCase())
        member ??= [...codeNames(parameter?.parameter.description), ...codeNames(scheme.description)].find((named) => answer.has(named))
      }
    }
  }
  if (headers.size === 0) return undefined
  return {
    ...(member === undefined ? {} : { member }),
    headers: [...headers].map(([header, operationIds]) => ({ header, operationIds: [...new Set(operationIds)] })),
  }
}
