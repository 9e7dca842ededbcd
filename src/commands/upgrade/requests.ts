import { printFilter, type FilterNode } from '../../store/filter-ast.ts'
import { queryText, rowVersion, SIGN_IN_SCOPE, type Client, type ReadRow } from '../../client/client.ts'
import type { Transport, WireRequest } from '../../wire/transport.ts'
import type { Interaction } from '../../usage-file/file.ts'
import type { RowKind } from '../../usage-file/request-shape.ts'
import { typesOf, type Shape } from '../../usage-file/shape.ts'
import { instantiate } from '../usage/replay.ts'
import { parseTemplate, placeholderType } from '../usage/template.ts'
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

/** Why a body cannot be made on this side: a value of its own, so no body (whatever its members) is taken for one. */
class Skip {
  constructor(readonly reason: string) {}
}

/** A value of a recorded type, for a member whose value the replay has nowhere to read from. */
export function valueOfType(type: string): unknown {
  const [first = 'string'] = typesOf(type).filter((t) => t !== 'absent' && t !== 'null')
  switch (first) {
    case 'integer':
    case 'temporary':
      return 1
    case 'number':
      return 1.5
    case 'boolean':
      return true
    case 'guid':
      return '00000000-0000-4000-8000-000000000000'
    case 'email':
      return 'upgrade-check@example.test'
    case 'date':
      return '2026-01-05'
    case 'date-time':
      return '2026-01-05T09:00:00Z'
    case 'uri':
      return 'https://example.test/'
    case 'array':
      return []
    case 'object':
      return {}
    default:
      return 'x'
  }
}

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

const tableOf = (side: ReplayedRelease, relationKey: string | null) =>
  relationKey === null ? side.ids.application.master : side.ids.application.details.find((d) => d.relationKey === relationKey)?.storage

/** A value of a table's Identity field no row holds: one above the largest the release reads now. */
async function freeIdentity(side: ReplayedRelease, field: string, relationKey: string | null): Promise<number> {
  const [top] = await rowsOf(side, relationKey ?? undefined, { top: 1, orderBy: `${field} desc` })
  const value = top?.[field]
  // A table the release cannot read (detail rows below 3.0): a value far above any a fixture holds.
  return typeof value === 'number' && Number.isSafeInteger(value) ? value + 1 : 900_000_001
}

/**
 * The fields of a kind of row with values: from `template` (a row of the table as the release
 * reads it), of the recorded type where it has none; null where the client sent null; the
 * Identity field a value no row holds when the client sent one, left out when it sometimes did.
 */
async function rowValues(side: ReplayedRelease, kind: RowKind, template: ReadRow | undefined, leaveOut: readonly string[]): Promise<Record<string, unknown>> {
  const identity = tableOf(side, kind.table)?.identityField
  const values: Record<string, unknown> = {}
  for (const [name, type] of Object.entries(kind.fields)) {
    if (name === 'Id' || name === 'TIMESTAMP' || leaveOut.includes(name)) continue
    const types = typesOf(type)
    if (types.includes('absent')) continue
    // Null where the client sent null: the Identity field of a new row as the description shows it, or a field it empties.
    if (type === 'null' || (name === identity && kind.action === 'create' && types.includes('null'))) values[name] = null
    else if (name === identity && kind.action === 'create') values[name] = await freeIdentity(side, name, kind.table)
    else values[name] = template?.[name] ?? (side.ids.templates[kind.table ?? ''] as Record<string, unknown> | undefined)?.[name] ?? valueOfType(type)
  }
  return values
}

/** A row of a table read again by its Id, for its current row version. */
async function reread(side: ReplayedRelease, relationKey: string | undefined, id: number): Promise<ReadRow | undefined> {
  const [row] = await rowsOf(side, relationKey, { filter: `Id eq ${id}` })
  return row
}

/** A save body of the recorded kinds: a new master row with its new detail rows, an existing one updated, detail rows updated under their master. */
async function saveBody(side: ReplayedRelease, kinds: readonly RowKind[]): Promise<unknown> {
  const masters = await rowsOf(side, undefined, { orderBy: 'Id asc' })
  const linkOf = (table: string | null) => side.ids.application.details.find((d) => d.relationKey === table)?.masterField
  const create = kinds.find((kind) => kind.table === null && kind.action === 'create')
  const update = kinds.find((kind) => kind.table === null && kind.action === 'update')
  const detailCreates = kinds.filter((kind) => kind.table !== null && kind.action === 'create')
  const detailUpdates = kinds.filter((kind) => kind.table !== null && kind.action === 'update')
  // Detail rows updated hang off their own master: that one is the existing master of the save.
  const updated: Array<{ relationKey: string; row: Record<string, unknown> }> = []
  let existingId = masters[0]?.Id
  for (const kind of detailUpdates) {
    const [row] = await rowsOf(side, kind.table as string, { top: 1, orderBy: 'Id asc' })
    if (row === undefined) return new Skip(`release ${side.release} has no ${kind.table} row it reads, to update`)
    const link = linkOf(kind.table)
    if (link !== undefined && typeof row[link] === 'number') existingId = row[link] as number
    updated.push({
      relationKey: kind.table as string,
      row: { Id: row.Id, TIMESTAMP: rowVersion(String(row.TIMESTAMP)), ...(await rowValues(side, kind, row, [])) },
    })
  }
  const details = async (forNew: boolean) => {
    const groups: Array<{ RelationKey: string; Rows: Array<Record<string, unknown>> }> = []
    for (const kind of detailCreates) {
      const [template] = await rowsOf(side, kind.table as string, { top: 1 })
      const link = linkOf(kind.table)
      // A new master's rows are linked by the service; an existing master's by its Id, when the client sent the link.
      const values = await rowValues(side, kind, template, link === undefined ? [] : [link])
      if (link !== undefined && kind.fields[link] !== undefined && !forNew) values[link] = existingId
      groups.push({ RelationKey: kind.table as string, Rows: [{ Id: -1, TIMESTAMP: null, ...values }] })
    }
    return groups
  }
  const entries: unknown[] = []
  if (create !== undefined) entries.push({ Row: { Id: -1, TIMESTAMP: null, ...(await rowValues(side, create, masters[0], [])) }, Details: await details(true) })
  if (update !== undefined || updated.length > 0 || create === undefined) {
    if (existingId === undefined) return new Skip(`release ${side.release} has no master row it reads, to update`)
    const current = await reread(side, undefined, existingId)
    if (current === undefined) return new Skip(`release ${side.release} cannot read master row ${existingId} back`)
    const fields = update === undefined ? {} : await rowValues(side, update, current, [])
    const groups = [
      ...(create === undefined ? await details(false) : []),
      ...updated.map(({ relationKey, row }) => ({ RelationKey: relationKey, Rows: [row] })),
    ]
    entries.push({ Row: { Id: existingId, TIMESTAMP: rowVersion(String(current.TIMESTAMP)), ...fields }, Details: groups })
  }
  return { Rows: entries }
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
  const tree = parseTemplate(template)
  if (tree === undefined) return undefined
  const wantsFolder = /\bFolderId eq </.test(template)
  const own = side.ids.attachments.filter((a) => a.relationKey === (relationKey ?? null))
  const chosen = wantsFolder ? own.find((a) => a.folderId !== null) : own.find((a) => a.folderId === null)
  const values: Record<string, number> = { ParentId: chosen?.parentId ?? 1, FolderId: chosen?.folderId ?? 1 }
  const fill = (node: FilterNode): FilterNode => {
    if (node.kind === 'and' || node.kind === 'or') return { ...node, left: fill(node.left), right: fill(node.right) }
    if (node.kind === 'not') return { ...node, operand: fill(node.operand) }
    if (node.kind === 'compare' && node.value.type === 'string' && placeholderType(node.value.value) !== undefined) {
      const value = values[node.field] ?? 1
      return { ...node, value: { type: 'number', value, raw: String(value) } }
    }
    return node
  }
  return printFilter(fill(tree))
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
      return saveBody(side, request.rows ?? [])
    case 'deleteItems': {
      const shape = request.delete ?? { form: 'current' as const, tables: [null] }
      const rows = await rowsToDelete(side, shape.tables)
      if (rows instanceof Skip) return rows
      if (shape.form === 'older') return [{ Rows: [...rows.values()].map((row) => ({ Row: row, Details: [] })) }]
      return shape.tables.map((table) => ({ RelationKey: table, Rows: [{ Row: rows.get(table) }] }))
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
