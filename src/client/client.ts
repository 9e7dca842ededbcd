import { resolveProfile, type Profile } from '../../spec/profiles.ts'
import { apiDocument, listOperations, operationParameters, requestBodyOf, type OperationEntry } from '../document/reader.ts'
import type { ApiBody, ApiComponents, ApiOperations, OperationId, PathOf, QueryOf } from '../wire/operation-types.ts'
import { httpTransport, type Transport, type WireResponse } from '../wire/transport.ts'
import { textOf } from '../bytes.ts'

type Schemas = ApiComponents['schemas']
export type ReadRow = Schemas['ReadRow']
export type WriteRow = Schemas['WriteRow']
export type SaveRequest = Schemas['SaveRequest']
export type AttachmentRecord = Schemas['Attachment']
export type ActionResult = Schemas['ActionResult']
export type EmailRequest = Schemas['EmailRequest']
export type Problem = Schemas['Problem']

/** An answer of the API: status, headers, the body parsed (JSON as a value, text as text, else bytes). */
export interface Answer {
  operationId: OperationId
  method: string
  /** The path and query sent (no secrets: tokens travel in headers). */
  path: string
  status: number
  headers: Record<string, string>
  contentType: string
  body: unknown
  raw: Uint8Array
  /** The body's length in bytes when the call asked for its size only (`raw` is then empty). */
  size?: number
}

/** A refusal (any status but 2xx), with the problem document when the answer carries one. */
export class ApiError extends Error {
  override name = 'ApiError'
  readonly status: number
  readonly problem: Problem | undefined
  readonly answer: Answer
  constructor(answer: Answer) {
    const problem = isProblem(answer.body) ? answer.body : undefined
    super(`${answer.method} ${answer.path.split('?')[0]} answered ${answer.status}${problem === undefined ? '' : `: ${problem.detail}`}`)
    this.status = answer.status
    this.problem = problem
    this.answer = answer
  }
}

function isProblem(body: unknown): body is Problem {
  return (
    body !== null &&
    typeof body === 'object' &&
    typeof (body as { status?: unknown }).status === 'number' &&
    typeof (body as { detail?: unknown }).detail === 'string'
  )
}

/** What a call may set besides what the client fills in itself. */
export interface CallInput<K extends OperationId> {
  body?: ApiBody<K>
  query?: Partial<QueryOf<ApiOperations, K>>
  path?: PathOf<ApiOperations, K>
  /** Extra or replacing headers. */
  headers?: Record<string, string>
  /** The session token to send instead of the client's; null sends none. */
  token?: string | null
  /** Give up on an answer larger than this (TransportError TOO_LARGE), without reading all of it. */
  maxBytes?: number
  /** Only the size of a 2xx answer's body, not its bytes (see the transport's `sizeOnly`). */
  sizeOnly?: boolean
}

export interface ClientOptions {
  /** A transport, or a base URL (`https://host[:port][/prefix]`) for HTTP(S). */
  transport: Transport | string
  /** The release the installation runs (default: the latest); decides sign-in form, query form and result spelling. */
  productVersion?: string
  /** Organization physical name, for sign-in from 3.0.19. */
  organization?: string
  /**
   * The installation's client constants: `client_id` of the current sign-in (default `appdataapiv1`,
   * the mock's) and `clientId` of the legacy one (default `appdata-legacy`). A real installation has its own.
   */
  clientId?: string
  legacyClientId?: string
  workspaceId?: string
  applicationId?: string
  /** A session token to start with (from an earlier sign-in). */
  token?: string
  /** Called with every answer, for recording and conformance checks. */
  onAnswer?: (answer: Answer) => void
}

/** Options of Get Items and Get Items Count, written into the release's form of the query. */
export interface QueryOptions {
  top?: number
  skip?: number
  /** `Field asc`, `Field desc`, or several joined by commas. */
  orderBy?: string
  filter?: string
  relationKey?: string
}

/** The outcome of a save or delete: the success flag, read in either spelling, and the whole result. */
export interface WriteOutcome<R> {
  ok: boolean
  result: R
}

/** The row version a read result carries (base64 of a big-endian integer) as the number saves and deletes take. */
export function rowVersion(timestamp: string): number {
  const bytes = Buffer.from(timestamp, 'base64')
  let value = 0
  for (const byte of bytes) value = value * 256 + byte
  return value
}

/** The success flag of a save or delete result, in the spelling of any release. */
export function successOf(result: unknown): boolean | undefined {
  if (result === null || typeof result !== 'object') return undefined
  const flags = result as { IsSaveSuccessfully?: unknown; IsSaveSuccesfully?: unknown }
  const flag = flags.IsSaveSuccessfully ?? flags.IsSaveSuccesfully
  return typeof flag === 'boolean' ? flag : undefined
}

/** Rows to delete, grouped by table (relation key null for master rows). */
export type DeleteGroups = Array<{ relationKey: string | null; rows: Array<{ Id: number; TIMESTAMP: number }> }>

/**
 * The delete body a release takes: the older one below 3.0, which has master rows only (it throws
 * for detail rows). `form` sends the other one (a replay sends the form its client used).
 */
export function deleteBody(
  profile: Profile,
  groups: DeleteGroups,
  form: 'current' | 'older' = profile.legacyDeleteBody ? 'older' : 'current',
): ApiBody<'deleteItems'> {
  // The older body cannot name a detail table: sending detail Ids in it would delete masters.
  if (form === 'older' && groups.some((group) => group.relationKey !== null)) {
    throw new Error(
      `the older delete body${profile.legacyDeleteBody ? ` (release ${profile.version}'s)` : ''} deletes master rows only; detail rows go with their master`,
    )
  }
  return form === 'older'
    ? groups.map((group) => ({ Rows: group.rows.map((row) => ({ Row: row, Details: [] })) }))
    : groups.map((group) => ({ RelationKey: group.relationKey, Rows: group.rows.map((row) => ({ Row: row })) }))
}

/** A query text from options: names as the description writes them, values percent-encoded. */
export function queryText(options: QueryOptions & { count?: boolean }): string {
  const parts: string[] = []
  const add = (name: string, value: string | number | undefined) => {
    if (value !== undefined) parts.push(`${name}=${encodeURIComponent(String(value))}`)
  }
  if (options.count === true) parts.push('$inlinecount=allpages')
  add('$top', options.top)
  add('$skip', options.skip)
  add('$orderby', options.orderBy)
  add('$filter', options.filter)
  add('relationKey', options.relationKey)
  return parts.join('&')
}

/** The scopes a sign-in asks for, as the description sends them. */
export const SIGN_IN_SCOPE = 'openid apiv1 nosession'
/** The default fixture's client constants, which the mock takes unless its fixture says otherwise. */
const DEFAULT_CLIENT_ID = 'appdataapiv1'
const DEFAULT_LEGACY_CLIENT_ID = 'appdata-legacy'

let operationsById: Map<string, OperationEntry> | undefined

function operation(id: OperationId): OperationEntry {
  operationsById ??= new Map(listOperations(apiDocument()).map((entry) => [entry.operationId, entry]))
  const entry = operationsById.get(id)
  if (entry === undefined) throw new Error(`no operation ${id} in the document`)
  return entry
}

/** A JSON object or array in a body of any label, or undefined when the text is none. */
function jsonInside(text: string): unknown {
  const trimmed = text.replace(/^\uFEFF/, '').trim()
  if (!/^[[{]/.test(trimmed)) return undefined
  try {
    return JSON.parse(trimmed)
  } catch {
    return undefined
  }
}

function parse(response: WireResponse): { contentType: string; body: unknown } {
  const contentType = response.headers['content-type'] ?? ''
  const text = (): string => textOf(response.body)
  if (/[/+]json\b/i.test(contentType)) {
    if (response.body.length === 0) return { contentType, body: '' }
    try {
      return { contentType, body: JSON.parse(text()) }
    } catch {
      return { contentType, body: text() }
    }
  }
  if (response.body.length === 0) return { contentType, body: '' }
  // The real Run Action answer is labelled XML although its body is JSON (Endpoints, 8): a JSON body is read whatever its label says.
  if (/^text\/|[/+]xml\b/i.test(contentType) || contentType === '') {
    const json = jsonInside(text())
    return { contentType, body: json === undefined ? text() : json }
  }
  return { contentType, body: response.body }
}

/**
 * A typed client of the Application Data Web API, for any installation or the mock. It signs in
 * with the release's form, sends the data headers and the token, takes bodies and gives results
 * in the shapes of the OpenAPI document, reads the success flag in either spelling, and turns
 * refusals into `ApiError`. `call` is the raw form every method is built on.
 * @example
 * const client = createClient({ transport: 'http://127.0.0.1:4080', organization: 'acme', clientId: 'appdataapiv1',
 *   workspaceId: '6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b70', applicationId: 'a1b2c3d4-0000-4000-8000-000000000001' })
 * await client.signIn({ username: 'admin@acme.test', password: 'admin-pass' })
 * const [row] = await client.rows({ top: 1, orderBy: 'Id asc' })
 */
export function createClient(options: ClientOptions) {
  const transport = typeof options.transport === 'string' ? httpTransport(options.transport) : options.transport
  const profile: Profile = resolveProfile(options.productVersion ?? 'latest')
  const state = { token: options.token, workspaceId: options.workspaceId, applicationId: options.applicationId }

  async function call<K extends OperationId>(id: K, input: CallInput<K> = {}): Promise<Answer> {
    const entry = operation(id)
    const document = apiDocument()
    let path = entry.path
    const query = new URLSearchParams()
    const headers: Record<string, string> = {}
    const token = input.token === undefined ? state.token : input.token
    for (const parameter of operationParameters(document, entry)) {
      if (parameter.in === 'path') {
        const value = (input.path as Record<string, unknown> | undefined)?.[parameter.name]
        path = path.replace(`{${parameter.name}}`, encodeURIComponent(String(value ?? '')))
      } else if (parameter.in === 'query') {
        const value = (input.query as Record<string, unknown> | undefined)?.[parameter.name]
        if (value !== undefined) query.set(parameter.name, String(value))
      } else if (parameter.in === 'header') {
        const value =
          parameter.name === 'SessionToken'
            ? token
            : parameter.name === 'ApplicationId'
              ? state.applicationId
              : parameter.name === 'WorkspaceId'
                ? state.workspaceId
                : undefined
        if (value !== undefined && value !== null) headers[parameter.name] = value
      }
    }
    if (JSON.stringify(entry.operation.security ?? []).includes('BearerAuth') && token !== undefined && token !== null)
      headers.Authorization = `Bearer ${token}`
    Object.assign(headers, input.headers)
    const body = requestBodyOf(document, entry)
    let payload: string | undefined
    if (body !== undefined && input.body !== undefined) {
      headers['Content-Type'] = body.mediaType
      payload =
        body.mediaType === 'application/x-www-form-urlencoded'
          ? new URLSearchParams(input.body as Record<string, string>).toString()
          : JSON.stringify(input.body)
    }
    const target = query.size === 0 ? path : `${path}?${query.toString().replaceAll('+', '%20')}`
    const response = await transport.send({
      method: entry.method.toUpperCase(),
      path: target,
      headers,
      ...(payload === undefined ? {} : { body: payload }),
      ...(input.maxBytes === undefined ? {} : { maxBytes: input.maxBytes }),
      ...(input.sizeOnly === true ? { sizeOnly: true } : {}),
    })
    const answer: Answer = {
      operationId: id,
      method: entry.method.toUpperCase(),
      path: target,
      status: response.status,
      headers: response.headers,
      ...parse(response),
      raw: response.body,
      ...(response.size === undefined ? {} : { size: response.size }),
    }
    options.onAnswer?.(answer)
    return answer
  }

  /** The answer's body when its status is 2xx; an ApiError otherwise. */
  async function ok<K extends OperationId>(id: K, input: CallInput<K> = {}): Promise<Answer> {
    const answer = await call(id, input)
    if (answer.status < 200 || answer.status > 299) throw new ApiError(answer)
    return answer
  }

  /**
   * The answer to a sign-in of `form` (the release's own unless said), whatever it is, keeping
   * nothing: the password grant with the client constant, the scope the description sends and the
   * organization in the path from 3.0.19, or the legacy body below 3.0. The one place the
   * project writes a sign-in request (verify's contracts and replay, upgrade's replay).
   */
  function signInAnswer(credentials: { username: string; password: string }, form: Profile['signIn'] = profile.signIn): Promise<Answer> {
    if (form === 'signInLegacy')
      return call('signInLegacy', {
        body: { userName: credentials.username, password: credentials.password, clientId: options.legacyClientId ?? DEFAULT_LEGACY_CLIENT_ID },
        token: null,
      })
    const grant = {
      client_id: options.clientId ?? DEFAULT_CLIENT_ID,
      username: credentials.username,
      password: credentials.password,
      grant_type: 'password' as const,
      scope: SIGN_IN_SCOPE,
    }
    return form === 'signIn'
      ? call('signIn', { body: grant, path: { organizationphysicalname: options.organization ?? '' }, token: null })
      : call('signInWithoutOrganization', { body: grant, token: null })
  }

  return {
    profile,
    transport,
    call,
    get token(): string | undefined {
      return state.token
    },
    set token(value: string | undefined) {
      state.token = value
    },
    /** The data headers' ids to send from now on. */
    use(ids: { workspaceId?: string; applicationId?: string }): void {
      if (ids.workspaceId !== undefined) state.workspaceId = ids.workspaceId
      if (ids.applicationId !== undefined) state.applicationId = ids.applicationId
    },

    /** Signs in with the release's form (current with or without organization, or legacy); keeps and returns the token. */
    async signIn(credentials: { username: string; password: string }): Promise<{ token: string; expiresIn: number | undefined }> {
      const answer = await signInAnswer(credentials)
      if (answer.status < 200 || answer.status > 299) throw new ApiError(answer)
      if (profile.signIn === 'signInLegacy') {
        const body = answer.body as Schemas['LegacyTokenResult']
        state.token = body.SessionToken
        return { token: body.SessionToken, expiresIn: undefined }
      }
      const body = answer.body as Schemas['TokenResult']
      state.token = body.access_token
      return { token: body.access_token, expiresIn: body.expires_in }
    },

    signInAnswer,

    /** Get Items: rows of the master table, or of a detail table with `relationKey`. */
    async rows(query: QueryOptions | string = {}): Promise<ReadRow[]> {
      return (await this.items(query)).body as ReadRow[]
    },

    /** Get Items as an answer (status, headers, body), in the release's form. */
    async items(query: QueryOptions | string = {}, input: { token?: string | null; headers?: Record<string, string> } = {}): Promise<Answer> {
      const text = typeof query === 'string' ? query : queryText(query)
      if (profile.itemsQuery === 'queryItems') return ok('queryItems', { ...input, body: { query: text } })
      return ok('queryItemsLegacy', { ...input, query: Object.fromEntries(new URLSearchParams(text)) })
    },

    /** Get Items Count: how many rows match. */
    async count(query: Omit<QueryOptions, 'top' | 'skip' | 'orderBy'> = {}): Promise<number> {
      const text = queryText({ ...query, count: true })
      const answer =
        profile.itemsQuery === 'queryItems'
          ? await ok('queryItems', { body: { query: text } })
          : await ok('queryItemsLegacy', { query: Object.fromEntries(new URLSearchParams(text)) })
      return (answer.body as Schemas['CountResult']).Items[0]?._FieldCount_ ?? Number.NaN
    },

    /** Save: the outcome in either spelling; a business refusal is `ok: false`, not an error. */
    async save(body: SaveRequest): Promise<WriteOutcome<Schemas['SaveResult'] | Schemas['SaveResultLegacy']>> {
      const answer = await ok('saveItems', { body })
      return { ok: successOf(answer.body) === true, result: answer.body as Schemas['SaveResult'] }
    },

    /** Delete rows by Id and row version, in the release's body (the older one below 3.0, which has master rows only), or in `form`. */
    async delete(groups: DeleteGroups, form?: 'current' | 'older'): Promise<WriteOutcome<Schemas['DeleteResult'] | Schemas['DeleteResultLegacy']>> {
      const answer = await ok('deleteItems', { body: deleteBody(profile, groups, form) })
      return { ok: successOf(answer.body) === true, result: answer.body as Schemas['DeleteResult'] }
    },

    /** Reserves `count` values of a storage's Identity field. */
    async identities(storageId: string, fieldName: string, count: number): Promise<number[]> {
      return (await ok('getIdentities', { path: { storage_id: storageId, field_name: fieldName, count } })).body as number[]
    },

    /** The attachments of a row (its top level, or one folder). */
    async attachments(parentId: number, where: { folderId?: number; relationKey?: string } = {}): Promise<AttachmentRecord[]> {
      const filter = `ParentId eq ${parentId}${where.folderId === undefined ? '' : ` and FolderId eq ${where.folderId}`}`
      const answer = await ok('listAttachments', { query: { $filter: filter, ...(where.relationKey === undefined ? {} : { relationKey: where.relationKey }) } })
      return answer.body as AttachmentRecord[]
    },

    /** Downloads attachments: one file as itself, a folder or several as a zip; `maxBytes` gives up on a larger one. */
    async download(ids: number[], relationKey?: string, maxBytes?: number): Promise<{ bytes: Uint8Array; mediaType: string; disposition: string }> {
      const answer = await ok('downloadAttachment', {
        body: { ids, ...(relationKey === undefined ? {} : { rk: relationKey }) },
        ...(maxBytes === undefined ? {} : { maxBytes }),
      })
      return { bytes: answer.raw, mediaType: answer.contentType.split(';')[0] ?? '', disposition: answer.headers['content-disposition'] ?? '' }
    },

    /** The size and media type of one file, without its bytes (the download's headers; see the transport's `sizeOnly`). */
    async downloadSize(id: number, relationKey?: string): Promise<{ size: number; mediaType: string }> {
      const answer = await ok('downloadAttachment', { body: { ids: [id], ...(relationKey === undefined ? {} : { rk: relationKey }) }, sizeOnly: true })
      return { size: answer.size ?? answer.raw.length, mediaType: answer.contentType.split(';')[0] ?? '' }
    },

    async runAction(actionId: string, parametersMap: ApiBody<'runAction'>['parametersMap'] = []): Promise<ActionResult> {
      return (await ok('runAction', { body: { actionId, parametersMap } })).body as ActionResult
    },

    async sendEmail(email: EmailRequest): Promise<void> {
      await ok('sendEmail', { body: email })
    },

    /** A URL that opens master rows. */
    async rowLink(ids: number | number[]): Promise<string> {
      return (await ok('generateRowLink', { body: { relationKey: null, values: ids, valueType: 1 } })).body as string
    },
  }
}

export type Client = ReturnType<typeof createClient>
