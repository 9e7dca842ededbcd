import { deleteBody, queryText, rowVersion, SIGN_IN_SCOPE, type Client, type ReadRow } from '../../client/client.ts'
import type { Transport, WireRequest } from '../../wire/transport.ts'
import type { Interaction } from '../../usage-file/file.ts'
import type { RowKind } from '../../usage-file/request-shape.ts'
import type { Shape } from '../../usage-file/shape.ts'
import { instantiate } from '../usage/replay.ts'
import { saveBody, Skip, valueOfType, type RowSource, type SaveBody } from '../usage/replay-rows.ts'
import { anyOperation } from './documents.ts'
import type { ReplayIds } from './replay-ids.ts'

/**
 * The request of a recorded interaction, in the client's own form (its operation, path, headers,
 * media type and body shape), with values from the release being replayed: rows read from its
 * replayed state, new rows with fresh temporary Ids and an Identity value no row holds, rows to
 * delete created first, and the fixture's user, ids and attachments. The same interaction gives
 * the same request on both releases, so what differs in the answers is the release's doing.
 */

/** One release being replayed: its mock and a client of it, signed in. */
export interface ReplayedRelease {
  release: string
  transport: Transport
  /** Reads the replayed state and prepares rows, in the forms the release serves; never sends the client's requests. */
  client: Client
  token: string
  ids: ReplayIds
  /** Whether the release's document has an operation (the replay's own reads take the form it serves). */
  serves(operationId: string): boolean
  /** How many requests that may change the replayed state were sent so far (read-cache.ts): rows read stay the rows while it stays the same. */
  writes(): number
}

/** A request to send, or why the interaction is not replayed on this side. */
export type Prepared = { request: WireRequest } | { skip: string }

/** A value for each member of a recorded body shape, by its name where it says what it is, else by its type. */
function bodyFor(shape: Shape | undefined, named: (name: string, type: Shape) => unknown): Record<string, unknown> {
  if (shape === undefined || typeof shape === 'string') return {}
  return Object.fromEntries(Object.entries(shape.fields ?? {}).map(([name, type]) => [name, named(name, type)]))
}

/**
 * What a side has read of its state since the last request that may have changed it: rows by the
 * read that got them, and recorded filters as filled from them. Most interactions of a large usage
 * read the same rows to fill their filters; each is read (and its answer parsed) once.
 */
interface StateReads {
  writes: number
  rows: Map<string, ReadRow[]>
  filters: Map<string, string | undefined>
}

/** Entries of either map kept at most (a usage of many distinct filters between two writes): past it, the map starts again empty. */
const STATE_READS = 4096

const stateReads = new WeakMap<ReplayedRelease, StateReads>()

/** What the side has read of its state as it is now (emptied as soon as a write was sent). */
function readsOf(side: ReplayedRelease): StateReads {
  const writes = side.writes()
  let reads = stateReads.get(side)
  if (reads === undefined || reads.writes !== writes) stateReads.set(side, (reads = { writes, rows: new Map(), filters: new Map() }))
  return reads
}

/** Keeps an entry in one of a side's maps of reads, within the bound. */
function keep<V>(map: Map<string, V>, key: string, value: V): V {
  if (map.size >= STATE_READS) map.clear()
  map.set(key, value)
  return value
}

/**
 * Rows of a table as the release reads them now, in the form of Get Items its document serves;
 * none when it cannot (detail rows below 3.0). The rows are shared by every caller until the state
 * changes, so only read.
 */
async function rowsOf(
  side: ReplayedRelease,
  relationKey: string | undefined,
  extra: { top?: number; orderBy?: string; filter?: string } = {},
): Promise<readonly ReadRow[]> {
  const text = queryText({ top: 50, ...extra, ...(relationKey === undefined ? {} : { relationKey }) })
  // Kept under the state it was read in, whatever is sent while the read is under way.
  const reads = readsOf(side)
  const known = reads.rows.get(text)
  if (known !== undefined) return known
  const answer = side.serves('queryItems')
    ? await side.client.call('queryItems', { body: { query: text } })
    : await side.client.call('queryItemsLegacy', { query: Object.fromEntries(new URLSearchParams(text)) })
  const rows = answer.status === 200 && Array.isArray(answer.body) ? (answer.body as ReadRow[]) : []
  return keep(reads.rows, text, rows)
}

/**
 * A side as the rows of a replayed save see it: rows as the release reads them now, each table's
 * Identity field and master link from the fixture, and where the release reads no row (detail
 * rows below 3.0) the fixture's own row, else a value of the recorded type.
 */
function rowSource(side: ReplayedRelease): RowSource {
  const detailOf = (relationKey: string | null) => side.ids.application.details.find((d) => d.relationKey === relationKey)
  return {
    rows: (relationKey, options) => rowsOf(side, relationKey ?? undefined, options),
    identityField: (relationKey) => (relationKey === null ? side.ids.application.master : detailOf(relationKey)?.storage)?.identityField,
    linkFields: (relationKey) => {
      const link = detailOf(relationKey)?.masterField
      return link === undefined ? [] : [link]
    },
    missing: (relationKey, name, type) => (side.ids.templates[relationKey ?? ''] as Record<string, unknown> | undefined)?.[name] ?? valueOfType(type),
  }
}

/** A row of a table read again by its Id, for its current row version. */
async function reread(side: ReplayedRelease, relationKey: string | undefined, id: number): Promise<ReadRow | undefined> {
  const [row] = await rowsOf(side, relationKey, { filter: `Id eq ${id}` })
  return row
}

/** A save body of the recorded kinds (replay-rows.ts), in this release's values. */
async function saveBodyOf(side: ReplayedRelease, kinds: readonly RowKind[]): Promise<SaveBody | Skip> {
  const body = await saveBody(rowSource(side), kinds)
  return body instanceof Skip ? new Skip(`release ${side.release}: ${body.reason}`) : body
}

/** Rows of the recorded tables created for a delete to remove (in the release's own forms), with their Ids and row versions. */
async function rowsToDelete(
  side: ReplayedRelease,
  tables: ReadonlyArray<string | null>,
): Promise<Map<string | null, { Id: number; TIMESTAMP: number }> | Skip> {
  const [template] = await rowsOf(side, undefined, { top: 1 })
  const { master, details } = side.ids.application
  const userFields = (fields: readonly { name: string }[], row: ReadRow | undefined) => Object.fromEntries(fields.map((f) => [f.name, row?.[f.name] ?? null]))
  const detailGroups = []
  for (const table of tables.filter((t): t is string => t !== null)) {
    const detail = details.find((d) => d.relationKey === table)
    if (detail === undefined) return new Skip(`the fixture's application has no detail table ${table}`)
    const [line] = await rowsOf(side, table, { top: 1 })
    const fields = userFields(
      detail.storage.fields.filter((f) => f.name !== detail.masterField),
      line,
    )
    detailGroups.push({ RelationKey: table, Rows: [{ Id: -1, TIMESTAMP: null, [detail.storage.identityField]: null, ...fields }] })
  }
  const row = { Id: -1, TIMESTAMP: null, [master.identityField]: null, ...userFields(master.fields, template) }
  const saved = await side.client.save({ Rows: [{ Row: row, Details: detailGroups }] } as Parameters<Client['save']>[0])
  const keys =
    (saved.result as { ReturnData?: { PrimaryKeyData?: Record<string, { newKeys?: Record<string, string> }> } }).ReturnData?.PrimaryKeyData?.['-1']?.newKeys ??
    {}
  if (!saved.ok || keys.Id === undefined) return new Skip(`release ${side.release} did not create the rows to delete`)
  const found = new Map<string | null, { Id: number; TIMESTAMP: number }>()
  for (const table of tables) {
    const id = Number(table === null ? keys.Id : keys[`${table}[0]`])
    const read = await reread(side, table ?? undefined, id)
    if (read === undefined) return new Skip(`release ${side.release} cannot read back the ${table ?? 'master'} row it created to delete`)
    found.set(table, { Id: id, TIMESTAMP: rowVersion(String(read.TIMESTAMP)) })
  }
  return found
}

/** A filter template filled for the attachments list: ParentId and FolderId of one of the fixture's attachments of that table. */
function attachmentFilter(side: ReplayedRelease, template: string, relationKey: string | undefined): string | undefined {
  const wantsFolder = /\bFolderId eq </.test(template)
  const own = side.ids.attachments.filter((a) => a.relationKey === (relationKey ?? null))
  const chosen = wantsFolder ? own.find((a) => a.folderId !== null) : own.find((a) => a.folderId === null)
  return instantiate(template, [{ ParentId: chosen?.parentId ?? 1, FolderId: chosen?.folderId ?? 1 }])?.text
}

/** The query text of a recorded Get Items (or Count), its filter filled from rows the release reads now. */
async function itemsQuery(side: ReplayedRelease, interaction: Interaction): Promise<string | { skip: string }> {
  const q = interaction.request.query ?? {}
  let filter: string | undefined
  if (q.filter !== undefined) {
    const key = `${q.relationKey ?? ''}\n${q.filter}`
    const { filters } = readsOf(side)
    filter = filters.has(key) ? filters.get(key) : keep(filters, key, instantiate(q.filter, await rowsOf(side, q.relationKey))?.text)
    if (filter === undefined) return { skip: `the recorded filter ${q.filter} cannot be read back` }
  }
  // queryText leaves out what is undefined.
  const text = queryText({ top: q.top, skip: q.skip === true ? 1 : undefined, orderBy: q.orderBy, filter, relationKey: q.relationKey, count: q.count === true })
  if (q.other === undefined || q.other.length === 0) return text
  return [text, ...q.other.map((name) => `${encodeURIComponent(name)}=1`)].filter((part) => part !== '').join('&')
}

/** The body of a recorded interaction, with this release's values; a Skip when it cannot be made. */
async function bodyOf(side: ReplayedRelease, interaction: Interaction): Promise<unknown> {
  const { request } = interaction
  const ids = side.ids
  switch (interaction.operation) {
    case 'signIn':
    case 'signInWithoutOrganization':
    case 'signInLegacy':
      return bodyFor(request.body, (name, type) => {
        if (/^user_?name$/i.test(name)) return ids.user.email
        if (/password/i.test(name)) return ids.user.password
        if (name === 'client_id') return ids.clientId
        if (name === 'clientId') return ids.legacyClientId
        if (name === 'grant_type') return 'password'
        if (name === 'scope') return SIGN_IN_SCOPE
        return valueOfType(typeof type === 'string' ? type : type.type)
      })
    case 'saveItems':
      return saveBodyOf(side, request.rows ?? [])
    case 'deleteItems': {
      const shape = request.delete ?? { form: 'current' as const, tables: [null] }
      const rows = await rowsToDelete(side, shape.tables)
      if (rows instanceof Skip) return rows
      return deleteBody(
        side.client.profile,
        [...rows].map(([relationKey, row]) => ({ relationKey, rows: [row] })),
        shape.form,
      )
    }
    case 'generateRowLink': {
      const [row] = await rowsOf(side, undefined, { top: 1, orderBy: 'Id asc' })
      const id = row?.Id ?? 1
      return bodyFor(request.body, (name, type) =>
        name === 'values'
          ? typeof type !== 'string' && type.type.includes('array')
            ? [id]
            : id
          : name === 'valueType'
            ? 1
            : name === 'relationKey'
              ? null
              : valueOfType(typeof type === 'string' ? type : type.type),
      )
    }
    case 'runAction': {
      if (ids.action === undefined) return new Skip('the fixture has no custom action to run')
      const action = ids.action
      const parameters =
        request.body !== undefined &&
        typeof request.body !== 'string' &&
        typeof request.body.fields?.parametersMap !== 'string' &&
        request.body.fields?.parametersMap?.items !== undefined
      return { actionId: action.id, parametersMap: parameters ? [{ Name: 'ProcedureName', Value: action.procedureName }] : [] }
    }
    case 'sendEmail':
      return bodyFor(request.body, (name, type) =>
        name === 'to'
          ? ['upgrade-check@example.test']
          : name === 'providerId'
            ? (ids.providerId ?? valueOfType('guid'))
            : valueOfType(typeof type === 'string' ? type : type.type),
      )
    case 'downloadAttachment': {
      const relationKey = request.query?.relationKey
      const file = ids.attachments.find((a) => !a.isFolder && a.relationKey === (relationKey ?? null))
      if (file === undefined) return new Skip(`the fixture has no file attached to a ${relationKey ?? 'master'} row`)
      return { ids: [file.id], ...(request.query === undefined ? {} : { rk: relationKey ?? '' }) }
    }
    default:
      return request.body === undefined ? undefined : bodyFor(request.body, (_name, type) => valueOfType(typeof type === 'string' ? type : type.type))
  }
}

/**
 * The request of a recorded interaction on one release: the operation's method and path (of the
 * release the client was recorded on, whatever this one serves), the headers the client sent and
 * no other, its media type, its query and body with this release's values.
 */
export async function clientRequest(side: ReplayedRelease, interaction: Interaction): Promise<Prepared> {
  const entry = anyOperation(interaction.operation)
  if (entry === undefined) return { skip: `${interaction.operation} is no operation of any release` }
  const { request } = interaction
  const ids = side.ids
  let path = entry.path
  const params: Record<string, string> = {
    organizationphysicalname: ids.organization,
    storage_id: ids.application.master.id,
    field_name: ids.application.master.identityField,
    count: '1',
  }
  path = path.replace(/\{([^}]+)\}/g, (_all, name: string) => encodeURIComponent(params[name] ?? 'x'))
  let query = ''
  if (interaction.operation === 'queryItemsLegacy') {
    const text = await itemsQuery(side, interaction)
    if (typeof text !== 'string') return text
    query = text
  } else if (interaction.operation === 'listAttachments') {
    const q = request.query ?? {}
    const filter = q.filter === undefined ? undefined : attachmentFilter(side, q.filter, q.relationKey)
    if (q.filter !== undefined && filter === undefined) return { skip: `the recorded filter ${q.filter} cannot be read back` }
    query = queryText({ ...(filter === undefined ? {} : { filter }), ...(q.relationKey === undefined ? {} : { relationKey: q.relationKey }) })
  }
  let body: unknown
  if (interaction.operation === 'queryItems') {
    const text = await itemsQuery(side, interaction)
    if (typeof text !== 'string') return text
    body = { query: text }
  } else {
    body = await bodyOf(side, interaction)
    if (body instanceof Skip) return { skip: body.reason }
  }
  const headers: Record<string, string> = {}
  for (const name of request.headers) {
    if (name === 'ApplicationId') headers.ApplicationId = ids.application.id
    else if (name === 'WorkspaceId') headers.WorkspaceId = ids.workspaceId
    else if (name === 'SessionToken') headers.SessionToken = side.token
    else if (name === 'Authorization') headers.Authorization = `Bearer ${side.token}`
  }
  let payload: string | undefined
  if (body !== undefined) {
    const type = request.contentType ?? 'application/json'
    headers['Content-Type'] = type
    payload = type === 'application/x-www-form-urlencoded' ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body)
  }
  return {
    request: {
      method: entry.method.toUpperCase(),
      path: query === '' ? path : `${path}?${query}`,
      headers,
      ...(payload === undefined ? {} : { body: payload }),
    },
  }
}
