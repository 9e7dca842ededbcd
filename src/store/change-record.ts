import { applyChanges, type TableChange } from './plan.ts'
import type { StoreState } from './state.ts'
import type { ChangeRecord, StoreChanges } from './types.ts'

/** The record of changes about to be applied (planned against the store's current generation). */
export function changeRecord(changes: StoreChanges): ChangeRecord {
  return {
    v: changes.nextVersion,
    t: (changes.tables as TableChange[]).map((change) => ({
      s: change.table.storage.id,
      p: change.puts,
      d: change.deletes,
      n: [change.nextId, change.nextIdentity, change.nextRowOrder],
    })),
  }
}

/** The record of an identity reservation, after it moved the storage's sequence. */
export function reservationRecord(state: StoreState, storageId: string): ChangeRecord {
  return { s: storageId, i: state.storages.get(storageId)?.nextIdentity ?? 0 }
}

/**
 * Applies a logged record to the state, as the write it stands for did. Throws (with the reason)
 * for a record that names a storage the state does not have: the log belongs to another fixture.
 */
export function replayRecord(state: StoreState, record: ChangeRecord): void {
  if ('i' in record) {
    storageOf(state, record.s).nextIdentity = record.i
    state.generation++
    return
  }
  const tables: TableChange[] = record.t.map((change) => {
    const table = storageOf(state, change.s)
    return { table, puts: change.p.map((row) => table.makeRow(row)), deletes: change.d, nextId: change.n[0], nextIdentity: change.n[1], nextRowOrder: change.n[2] }
  })
  applyChanges(state, { kind: 'changes', generation: state.generation, tables, nextVersion: record.v })
}

function storageOf(state: StoreState, id: string) {
  const table = state.storages.get(id)
  if (table === undefined) throw new Error(`storage ${id} is not in the state file`)
  return table
}
