import type { SentFields } from '../../../contracts/ownership.ts'
import { rowVersion, type ReadRow } from '../../client/client.ts'
import type { RowKind } from '../../usage-file/request-shape.ts'
import { typesOf } from '../../usage-file/shape.ts'

/**
 * The rows a replayed Save sends, written once for both replays of a usage file: `verify --usage`
 * (on an installation, with values copied from its own rows) and `upgrade` (on a release's mock,
 * whose fixture it knows). A usage file keeps the shape of each kind of row the client saved (its
 * fields and their types), never a value; this fills the shape from a RowSource, which is where the
 * two replays differ: how they read rows, know a table's Identity field and its link to the
 * master, and what they do for a value no row gives.
 */

/** Where a replay reads rows and learns what a table is. */
export interface RowSource {
  /** Rows of a table as read now (null: master rows); none when it cannot read them. Only read. */
  rows(relationKey: string | null, options: { top: number; orderBy?: string; filter?: string }): Promise<readonly ReadRow[]>
  /** The table's Identity field, from what the source knows or from rows read of it. */
  identityField(relationKey: string | null, rows: readonly ReadRow[]): string | undefined
  /** The fields of a detail table's rows that point at their master row. */
  linkFields(relationKey: string, rows: readonly ReadRow[], masters: readonly ReadRow[]): readonly string[]
  /**
   * A value for a field the client saved that the template row holds no plain value in (or no
   * template row at all): undefined leaves the field out. May end the replay (a skip).
   */
  missing(relationKey: string | null, name: string, type: string, template: ReadRow | undefined): unknown
}

/** A value of a recorded type, for a member whose value the replay has nowhere to read from (verify's filters and upgrade's bodies). */
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

/** Why a body cannot be made: a value of its own, so no body (whatever its members) is taken for one. */
export class Skip {
  constructor(readonly reason: string) {}
}

/** A value of an Identity field when the table reads no row: far above any a fixture or a fresh table holds. */
export const UNREAD_IDENTITY = 900_000_001

/**
 * A value of a table's Identity field that no row holds: one above the largest, as the table reads
 * now. A replayed create that copied the value the client sent, or a row's, would meet a duplicate
 * key (the description, Errors, 3): a replay artefact, not a fault of the release or installation.
 * Nothing is reserved: Get Identities reserves values no cleanup can give back.
 */
export async function freeIdentity(source: RowSource, field: string, relationKey: string | null): Promise<number> {
  const [top] = await source.rows(relationKey, { top: 1, orderBy: `${field} desc` })
  const value = top?.[field]
  return Number.isSafeInteger(value) ? (value as number) + 1 : UNREAD_IDENTITY
}

function plain(value: unknown): value is string | number | boolean {
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
}

/**
 * The fields of a kind of row with values: those of the first of `rows` (rows of the table, from
 * which the source may also tell its Identity field), the source's where it has none; null where
 * the client sent null. The Identity field of a new row: null when the client sent null (as the
 * description shows a new row), a value no row holds when it sent one, left out when some of its
 * requests left it out. Any other field the client sent only sometimes
 * is sent: the release or installation must still take it.
 */
export async function rowValues(source: RowSource, kind: RowKind, rows: readonly ReadRow[], leaveOut: readonly string[] = []): Promise<SentFields> {
  const [template] = rows
  const identity = kind.action === 'create' ? source.identityField(kind.table, rows) : undefined
  const values: SentFields = {}
  for (const [name, type] of Object.entries(kind.fields)) {
    if (name === 'Id' || name === 'TIMESTAMP' || leaveOut.includes(name)) continue
    const types = typesOf(type)
    if (name === identity) {
      if (types.includes('absent')) continue
      values[name] = types.includes('null') ? null : await freeIdentity(source, name, kind.table)
    } else if (type === 'null') values[name] = null
    else if (plain(template?.[name])) values[name] = template?.[name] as string | number | boolean
    else {
      const value = source.missing(kind.table, name, type, template)
      if (value !== undefined) values[name] = plain(value) ? value : null
    }
  }
  return values
}

/** A save body: master rows, each with its detail groups. */
export interface SaveBody {
  Rows: Array<{ Row: Record<string, unknown>; Details: Array<{ RelationKey: string; Rows: Array<Record<string, unknown>> }> }>
}

/**
 * A save body of the recorded kinds of row: a new master row with its new detail rows (their link
 * to the master left to the service); an existing master row updated, with new detail rows linked
 * by its Id where the client sent the link, and detail rows updated under it. The existing master
 * is `existingId` when given (verify updates only rows it created), else the master of the first
 * detail row updated, else the first master row.
 */
export async function saveBody(source: RowSource, kinds: readonly RowKind[], existingId?: number): Promise<SaveBody | Skip> {
  const masters = await source.rows(null, { top: 50, orderBy: 'Id asc' })
  const create = kinds.find((kind) => kind.table === null && kind.action === 'create')
  const update = kinds.find((kind) => kind.table === null && kind.action === 'update')
  const detailCreates = kinds.filter((kind) => kind.table !== null && kind.action === 'create')
  const updated: SaveBody['Rows'][number]['Details'] = []
  let masterId = existingId ?? (masters[0]?.Id as number | undefined)
  for (const kind of kinds.filter((k) => k.table !== null && k.action === 'update')) {
    const table = kind.table as string
    const [row] = await source.rows(table, { top: 1, orderBy: 'Id asc' })
    if (row === undefined) return new Skip(`there is no ${table} row to update`)
    // A detail row updated hangs off its own master: that one is the existing master of the save.
    const [link] = source.linkFields(table, [row], masters)
    if (existingId === undefined && link !== undefined && typeof row[link] === 'number') masterId = row[link] as number
    updated.push({ RelationKey: table, Rows: [{ Id: row.Id, TIMESTAMP: rowVersion(String(row.TIMESTAMP)), ...(await rowValues(source, kind, [row])) }] })
  }
  const details = async (forNew: boolean) => {
    const groups: SaveBody['Rows'][number]['Details'] = []
    for (const kind of detailCreates) {
      const table = kind.table as string
      const sample = await source.rows(table, { top: 20 })
      const links = source.linkFields(table, sample, masters)
      // A new master's rows are linked by the service; an existing master's by its Id, when the client sent the link.
      const values: Record<string, unknown> = await rowValues(source, kind, sample, links)
      if (!forNew) for (const link of links.filter((name) => kind.fields[name] !== undefined)) values[link] = masterId
      groups.push({ RelationKey: table, Rows: [{ Id: -1, TIMESTAMP: null, ...values }] })
    }
    return groups
  }
  const rows: SaveBody['Rows'] = []
  if (create !== undefined) rows.push({ Row: { Id: -1, TIMESTAMP: null, ...(await rowValues(source, create, masters)) }, Details: await details(true) })
  // Without a new master row, whatever else the client sent goes to an existing one.
  if (update !== undefined || updated.length > 0 || create === undefined) {
    if (masterId === undefined) return new Skip('there is no master row to update')
    const [current] = await source.rows(null, { top: 1, filter: `Id eq ${masterId}` })
    if (current === undefined) return new Skip(`master row ${masterId} cannot be read back`)
    const fields = update === undefined ? {} : await rowValues(source, update, [current])
    const groups = [...(create === undefined ? await details(false) : []), ...updated]
    rows.push({ Row: { Id: masterId, TIMESTAMP: rowVersion(String(current.TIMESTAMP)), ...fields }, Details: groups })
  }
  return { Rows: rows }
}
