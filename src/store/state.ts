import { AttachmentStore } from './attachments.ts'
import { dateTimeIn } from './data-types.ts'
import { Table } from './engine/table.ts'
import { ownValue } from './field-values.ts'
import { RowLocks } from './locks.ts'
import type { ApplicationDef, Deps, FieldValue, Fixture, Row, RowGenerator, Sequences } from './types.ts'

/** One application's tables. */
export interface AppTables {
  def: ApplicationDef
  master: Table
  /** Detail tables by relation key. */
  details: Map<string, Table>
}

/** Everything the store holds; the planning functions read it, `applyChanges` writes it. */
export interface StoreState {
  fixture: Fixture
  apps: Map<string, AppTables>
  /** Tables by storage Id (Get Identities addresses a storage). */
  storages: Map<string, Table>
  attachments: AttachmentStore
  /** Rows locked as if by another user: the fixture's at first, then as the control plane sets them. */
  locks: RowLocks
  /** The installation's row-version counter: the next TIMESTAMP to hand out. */
  nextVersion: number
  /** Grows with every write; a plan made against an older generation must not be applied. */
  generation: number
}

/**
 * Live tables from a fixture. Fixture rows are copied, never adopted, so a reset can rebuild
 * from the same fixture. The store assigns what a fixture does not say: row versions (from
 * `firstVersion` on, masters before details, unless the fixture gives them), ROW_ORDER (position
 * in Id order, unless given), Identity values missing from the fixture (after the largest one
 * given), DT_CREATION (deps.now() when absent), DT_LAST_UPDATE and USER_ID_LAST_UPDATE (the
 * creation's when absent) and CT_ATTACHMENTS. Generated rows (`fixture.generated`) are made here by
 * `generator`, after the fixture's own rows of their tables.
 */
export function buildState(fixture: Fixture, deps: Deps, generator: RowGenerator, firstVersion: number, generation: number): StoreState {
  const attachments = new AttachmentStore(fixture.attachments)
  const state: StoreState = { fixture, apps: new Map(), storages: new Map(), attachments, locks: new RowLocks(fixture.locks), nextVersion: firstVersion, generation }
  const loadedAt = dateTimeIn(deps.now(), fixture.organization.timeZone)
  for (const def of fixture.applications) {
    const master = new Table(def.id, null, def.master, null)
    const details = new Map(def.details.map((d) => [d.relationKey, new Table(def.id, d.relationKey, d.storage, d.masterField)]))
    state.apps.set(def.id, { def, master, details })
    state.storages.set(def.master.id, master)
    for (const table of details.values()) state.storages.set(table.storage.id, table)
  }
  // Versions a fixture gives are kept (a state export restored); the others are handed out after the largest.
  for (const data of Object.values(fixture.data)) {
    for (const rows of [data.masters, ...Object.values(data.details)]) for (const row of rows) if (row.TIMESTAMP >= state.nextVersion) state.nextVersion = row.TIMESTAMP + 1
  }
  for (const def of fixture.applications) {
    const app = state.apps.get(def.id) as AppTables
    const data = fixture.data[def.id]
    const generated = fixture.generated
    const generating = generated !== undefined && generator.target(fixture, generated).id === def.id ? generated : undefined
    const masterRows = generating?.rows ?? 0
    const detailRows = masterRows * (generating?.detailsPerMaster ?? 2)
    const loaders = new Map<Table, TableLoader>([
      [app.master, new TableLoader(app.master, data?.masters ?? [], state, loadedAt, masterRows)],
      ...[...app.details].map(([key, table]): [Table, TableLoader] => [table, new TableLoader(table, data?.details[key] ?? [], state, loadedAt, detailRows)]),
    ])
    if (generating !== undefined) {
      // Straight into the tables: a million generated rows are never held as objects as well.
      const masters = loaders.get(app.master) as TableLoader
      const byKey = new Map([...app.details].map(([key, table]) => [key, loaders.get(table) as TableLoader]))
      generator.emit(fixture, generating, { master: (row) => masters.add(row), detail: (key, row) => byKey.get(key)?.add(row) })
    }
    for (const table of loaders.keys()) applySequence(table, fixture.sequences?.[table.storage.id])
  }
  return state
}

/** A sequence the fixture gives moves the table's on, never back below what its rows need. */
function applySequence(table: Table, sequence: Sequences[string] | undefined): void {
  if (sequence?.nextId !== undefined) table.nextId = Math.max(table.nextId, sequence.nextId)
  if (sequence?.nextIdentity !== undefined) table.nextIdentity = Math.max(table.nextIdentity, sequence.nextIdentity)
}

/**
 * Loads one table: the fixture's rows (sorted by Id) first, then any generated ones, assigning
 * what the fixture leaves to the store. Versions are handed out table by table as rows arrive.
 */
class TableLoader {
  readonly #table: Table
  readonly #state: StoreState
  readonly #loadedAt: number
  readonly #fileCounts: Map<number, number>
  readonly #identityField: string
  /** The fields the store assigns (ASSIGNED's order, NaN for null), written over the source's: reused for every row. */
  readonly #assigned = new Float64Array(ASSIGNED.length + 1)
  readonly #load: (source: Readonly<Row>, assigned: Float64Array) => void

  /** `expected`: rows the generator will add after the fixture's, so the table is sized once. */
  constructor(table: Table, source: readonly Row[], state: StoreState, loadedAt: number, expected: number) {
    this.#table = table
    this.#state = state
    this.#loadedAt = loadedAt
    this.#fileCounts = state.attachments.fileCounts(table.applicationId, table.relationKey)
    this.#identityField = table.storage.identityField
    this.#load = table.loader([...ASSIGNED, this.#identityField])
    const rows = isSortedById(source) ? source : [...source].sort((a, b) => a.Id - b.Id)
    let maxIdentity = 0
    for (const row of rows) {
      const identity = ownValue(row, this.#identityField)
      if (typeof identity === 'number' && identity > maxIdentity) maxIdentity = identity
      if (typeof row.ROW_ORDER === 'number' && row.ROW_ORDER >= table.nextRowOrder) table.nextRowOrder = row.ROW_ORDER + 1
    }
    table.nextIdentity = maxIdentity + 1
    table.reserve(rows.length + expected)
    for (const row of rows) this.add(row)
  }

  /** One more row, in ascending Id order; the table copies its values. */
  add(source: Readonly<Row>): void {
    const table = this.#table
    const identity = ownValue(source, this.#identityField)
    const created = source.DT_CREATION ?? this.#loadedAt
    const assigned = this.#assigned
    assigned[0] = numberOrNaN(created)
    assigned[1] = numberOrNaN(source.DT_LAST_UPDATE ?? created)
    assigned[2] = numberOrNaN(source.USER_ID_LAST_UPDATE ?? source.USER_ID_CREATION)
    assigned[3] = typeof source.ROW_ORDER === 'number' ? source.ROW_ORDER : table.nextRowOrder++
    assigned[4] = source.TIMESTAMP > 0 ? numberOrNaN(source.TIMESTAMP) : this.#state.nextVersion++
    assigned[5] = this.#fileCounts.get(source.Id) ?? Number.NaN
    assigned[6] = typeof identity === 'number' ? identity : table.nextIdentity++
    this.#load(source, assigned)
    table.nextId = source.Id + 1
  }
}

/** The system fields the store assigns to every row it loads (the Identity field comes after them). */
const ASSIGNED = ['DT_CREATION', 'DT_LAST_UPDATE', 'USER_ID_LAST_UPDATE', 'ROW_ORDER', 'TIMESTAMP', 'CT_ATTACHMENTS'] as const

/** A value as a number column holds it: anything but a number is null, held as NaN. */
function numberOrNaN(value: FieldValue | undefined): number {
  return typeof value === 'number' ? value : Number.NaN
}

function isSortedById(rows: readonly Row[]): boolean {
  for (let i = 1; i < rows.length; i++) if ((rows[i] as Row).Id <= (rows[i - 1] as Row).Id) return false
  return true
}
