import { AttachmentStore } from './attachments.ts'
import { dateTimeIn } from './model/data-types.ts'
import { Table } from './engine/table.ts'
import { ownValue } from './model/field-values.ts'
import { RowLocks } from './locks.ts'
import type { ApplicationDef, Deps, FieldValue, Fixture, Row, RowGenerator, Sequences, StoredRows } from './model/types.ts'

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
 * `generator`, after the fixture's own rows of their tables; stored rows (`fixture.stored`, a
 * state file's snapshot) come back column by column, as they were.
 */
export function buildState(fixture: Fixture, deps: Deps, generator: RowGenerator, firstVersion: number, generation: number): StoreState {
  const building = beginState(fixture, deps, generator, firstVersion, generation)
  for (const _step of building.steps);
  return building.state
}

/**
 * buildState a step at a time: `steps` loads a few thousand rows (or one column's room) per step,
 * and `state` is whole once they have all run. A reset made in slices runs them with turns of the
 * event loop between, while the old state goes on serving; nothing reads `state` until then.
 */
export function beginState(
  fixture: Fixture,
  deps: Deps,
  generator: RowGenerator,
  firstVersion: number,
  generation: number,
): { state: StoreState; steps: Iterable<void> } {
  const attachments = new AttachmentStore(fixture.attachments)
  const state: StoreState = {
    fixture,
    apps: new Map(),
    storages: new Map(),
    attachments,
    locks: new RowLocks(fixture.locks),
    nextVersion: firstVersion,
    generation,
  }
  for (const def of fixture.applications) {
    const master = new Table(def.id, null, def.master, null)
    const details = new Map(def.details.map((d) => [d.relationKey, new Table(def.id, d.relationKey, d.storage, d.masterField)]))
    state.apps.set(def.id, { def, master, details })
    state.storages.set(def.master.id, master)
    for (const table of details.values()) state.storages.set(table.storage.id, table)
  }
  return { state, steps: loadSteps(state, fixture, deps, generator) }
}

/** Rows loaded between two steps of a build. */
const ROWS_PER_STEP = 4096

/** The row versions a build of this fixture hands out at most: one per row that does not bring its own. */
export function versionsNeeded(fixture: Fixture, generator: RowGenerator): number {
  let count = 0
  for (const data of Object.values(fixture.data)) for (const rows of [data.masters, ...Object.values(data.details)]) count += rows.length
  const generated = fixture.generated
  if (generated !== undefined) count += generated.rows * (1 + (generated.detailsPerMaster ?? 2) * generator.target(fixture, generated).details.length)
  return count
}

function* loadSteps(state: StoreState, fixture: Fixture, deps: Deps, generator: RowGenerator): Generator<void, void> {
  const loadedAt = dateTimeIn(deps.now(), fixture.organization.timeZone)
  const stored = fixture.stored
  // Versions a fixture gives are kept (a state export restored); the others are handed out after the largest.
  if (stored !== undefined && stored.nextVersion > state.nextVersion) state.nextVersion = stored.nextVersion
  for (const data of Object.values(fixture.data)) {
    for (const rows of [data.masters, ...Object.values(data.details)])
      for (const row of rows) if (row.TIMESTAMP >= state.nextVersion) state.nextVersion = row.TIMESTAMP + 1
  }
  for (const def of fixture.applications) {
    const app = state.apps.get(def.id) as AppTables
    const data = fixture.data[def.id]
    const generated = fixture.generated
    const generating = generated !== undefined && generator.target(fixture, generated).id === def.id ? generated : undefined
    const masterRows = generating?.rows ?? 0
    const detailRows = masterRows * (generating?.detailsPerMaster ?? 2)
    const tables: Array<[Table, readonly Row[], number]> = [
      [app.master, data?.masters ?? [], masterRows],
      ...[...app.details].map(([key, table]): [Table, readonly Row[], number] => [table, data?.details[key] ?? [], detailRows]),
    ]
    const loaders = new Map<Table, TableLoader>()
    for (const [table, rows, expected] of tables) {
      const loader = new TableLoader(table, rows, state, loadedAt)
      loaders.set(table, loader)
      // Room made once, a column per step: a table of two million rows has a dozen columns of 16 MB.
      yield* table.reserveInSteps(rows.length + expected + (stored?.rowsOf(table.storage.id) ?? 0))
      yield* loader.addAll()
      if (stored !== undefined) yield* loadStored(table, stored)
    }
    if (generating !== undefined) {
      // Straight into the tables: a million generated rows are never held as objects as well.
      const masters = loaders.get(app.master) as TableLoader
      const byKey = new Map([...app.details].map(([key, table]) => [key, loaders.get(table) as TableLoader]))
      yield* generator.emit(fixture, generating, { master: (row) => masters.add(row), detail: (key, row) => byKey.get(key)?.add(row) })
    }
    for (const table of loaders.keys()) applySequence(table, fixture.sequences?.[table.storage.id])
  }
}

/** A table's stored rows, a chunk per step, with its sequences after them (the Identity ceiling, ROW_ORDER as stored). */
function* loadStored(table: Table, stored: StoredRows): Generator<void, void> {
  const rowOrder = table.columns.indexOf('ROW_ORDER')
  for (const chunk of stored.chunks(table.storage.id, table.columns, table.kinds)) {
    table.appendChunk(chunk)
    const orders = chunk.columns[rowOrder]
    if (orders instanceof Float64Array)
      for (let i = 0; i < chunk.count; i++) if ((orders[i] as number) >= table.nextRowOrder) table.nextRowOrder = (orders[i] as number) + 1
    const ids = chunk.columns[0] as Float64Array
    if (chunk.count > 0) table.nextId = (ids[chunk.count - 1] as number) + 1
    yield
  }
  if (table.identityCeiling >= table.nextIdentity) table.nextIdentity = table.identityCeiling + 1
  table.nextRowOrder = Math.max(table.nextRowOrder, stored.nextRowOrders[table.storage.id] ?? 0)
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
  readonly #rows: readonly Row[]
  /** The fields the store assigns (ASSIGNED's order, NaN for null), written over the source's: reused for every row. */
  readonly #assigned = new Float64Array(ASSIGNED.length + 1)
  readonly #load: (source: Readonly<Row>, assigned: Float64Array) => void

  constructor(table: Table, source: readonly Row[], state: StoreState, loadedAt: number) {
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
    this.#rows = rows
  }

  /** The fixture's rows of the table, a few thousand per step. */
  *addAll(): Generator<void, void> {
    const rows = this.#rows
    for (let i = 0; i < rows.length; i++) {
      this.add(rows[i] as Row)
      if (i % ROWS_PER_STEP === ROWS_PER_STEP - 1) yield
    }
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
