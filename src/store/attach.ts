import { tableFor } from './query.ts'
import type { StoreState } from './state.ts'
import type { AttachmentDef } from './model/types.ts'

/**
 * Puts an attachment in the data: in the attachment store, and in its row's CT_ATTACHMENTS (the
 * row keeps its TIMESTAMP: attachments live beside it). Returns the step that takes it back. An
 * upload and the replay of its change record both come here, so they agree.
 */
export function attachTo(state: StoreState, attachment: AttachmentDef): () => void {
  const table = tableFor(state, attachment.applicationId, attachment.relationKey)
  if ('error' in table) throw new Error(`attachment ${attachment.id}: ${table.message}`)
  const row = table.get(attachment.parentId)
  if (row === undefined) throw new Error(`attachment ${attachment.id}: row ${attachment.parentId} does not exist in storage ${table.storage.name}`)
  const nextId = state.attachments.nextId
  state.attachments.add(attachment)
  table.put(table.makeRow({ ...row, CT_ATTACHMENTS: state.attachments.fileCount(attachment.applicationId, attachment.relationKey, attachment.parentId) }))
  state.generation++
  return () => {
    state.attachments.undoAdd(attachment, nextId)
    table.put(row)
  }
}
