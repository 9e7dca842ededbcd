import { AttachmentStore } from './attachments.ts'
import { Table } from './table.ts'
import type { ApplicationDef, Deps, Fixture, Row } from './types.ts'

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
  /** The installation's row-version counter: the next TIMESTAMP to hand out. */
  nextVersion: number
  /** Grows with every write; a plan made against an older generation must not be applied. */
  generation: number
}

/**
 * Live tables from a fixture. Fixture rows are copied, never adopted, so a reset can rebuild
 * from the same fixture. The store assigns what a fixture does not say: row versions (from
 * `firstVersion` on, masters before details, unless the fixture gives them), ROW_ORDER (position in Id order, unless given), Identity values
 * missing from the fixture (after the largest one given), DT_CREATION (deps.now() when absent),
 * DT_LAST_UPDATE and USER_ID_LAST_UPDATE (the creation's when absent) and CT_ATTACHMENTS.
 */
export function buildState(fixture: Fixture, deps: Deps, firstVersion: number, generation: number): StoreState {
  const attachments = new AttachmentStore(fixture.attachments)
  const state: StoreState = { fixture, apps: new Map(), storages: new Map(), attachments, nextVersion: firstVersion, generation }
  const loadedAt = new Date(deps.now()).toISOString()
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
    state.nextVersion = loadTable(app.master, data?.masters ?? [], state, loadedAt)
    for (const [relationKey, table] of app.details) {
      state.nextVersion = loadTable(table, data?.details[relationKey] ?? [], state, loadedAt)
    }
  }
  return state
}

function loadTable(table: Table, source: readonly Row[], state: StoreState, loadedAt: string): number {
  const rows = isSortedById(source) ? source : [...source].sort((a, b) => a.Id - b.Id)
  const identityField = table.storage.identityField
  let maxIdentity = 0
  for (const row of rows) {
    const identity = row[identityField]
    if (typeof identity === 'number' && identity > maxIdentity) maxIdentity = identity
  }
  table.nextIdentity = maxIdentity + 1
  for (const row of rows) if (typeof row.ROW_ORDER === 'number' && row.ROW_ORDER >= table.nextRowOrder) table.nextRowOrder = row.ROW_ORDER + 1
  const fileCounts = state.attachments.fileCounts(table.applicationId, table.relationKey)
  let version = state.nextVersion
  for (const source of rows) {
    // The constructor copies only the table's columns; those the store assigns are overwritten below.
    const row = table.makeRow(source)
    if (typeof row[identityField] !== 'number') row[identityField] = table.nextIdentity++
    row.DT_CREATION ??= loadedAt
    row.DT_LAST_UPDATE ??= row.DT_CREATION ?? null
    row.USER_ID_LAST_UPDATE ??= row.USER_ID_CREATION ?? null
    row.ROW_ORDER = typeof source.ROW_ORDER === 'number' ? source.ROW_ORDER : table.nextRowOrder++
    row.TIMESTAMP = source.TIMESTAMP > 0 ? source.TIMESTAMP : version++
    row.CT_ATTACHMENTS = fileCounts.get(source.Id) ?? null
    table.load(row)
  }
  const last = rows[rows.length - 1]
  table.nextId = last === undefined ? 1 : last.Id + 1
  return version
}

function isSortedById(rows: readonly Row[]): boolean {
  for (let i = 1; i < rows.length; i++) if ((rows[i] as Row).Id <= (rows[i - 1] as Row).Id) return false
  return true
}
