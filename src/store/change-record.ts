import { applyChanges, type TableChange } from './plan.ts'
import { attachTo } from './attach.ts'
import { RowLocks } from './locks.ts'
import type { StoreState } from './state.ts'
import type { AttachmentDef, ChangeRecord, RecordedAttachment, StoreChanges } from './model/types.ts'

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

/** The record of an upload: the attachments it added, bytes as base64. */
export function uploadRecord(added: readonly AttachmentDef[]): ChangeRecord {
  return {
    u: added.map((attachment) => {
      const { content, file: _file, ...rest } = attachment
      return content === undefined ? rest : { ...rest, content: Buffer.from(content).toString('base64') }
    }),
  }
}

/** The record of a lock or unlock: the locks held after it. */
export function locksRecord(state: StoreState): ChangeRecord {
  return { l: state.locks.toLocks() ?? null }
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
  if ('u' in record) {
    for (const attachment of record.u) attachTo(state, attachmentOf(attachment))
    return
  }
  if ('l' in record) {
    state.locks = new RowLocks(record.l ?? undefined)
    state.generation++
    return
  }
  const tables: TableChange[] = record.t.map((change) => {
    const table = storageOf(state, change.s)
    return {
      table,
      puts: change.p.map((row) => table.makeRow(row)),
      deletes: change.d,
      nextId: change.n[0],
      nextIdentity: change.n[1],
      nextRowOrder: change.n[2],
    }
  })
  applyChanges(state, { kind: 'changes', generation: state.generation, tables, nextVersion: record.v })
}

function attachmentOf(recorded: RecordedAttachment): AttachmentDef {
  const { content, ...rest } = recorded
  return content === undefined ? rest : { ...rest, content: new Uint8Array(Buffer.from(content, 'base64')) }
}

function storageOf(state: StoreState, id: string) {
  const table = state.storages.get(id)
  if (table === undefined) throw new Error(`storage ${id} is not in the state file`)
  return table
}
