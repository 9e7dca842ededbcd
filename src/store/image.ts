import type { StoreState } from './state.ts'
import type { TableImage } from './engine/table.ts'
import type { AttachmentDef, Fixture, Locks, Sequences } from './model/types.ts'

/** Everything of the data but its rows, as it was when an image was opened. */
export interface ImageHeader {
  /** The fixture's definitions: organization, applications, actions, e-mail providers. */
  definitions: Pick<Fixture, 'organization' | 'applications' | 'actions' | 'emailProviders'>
  /** Where each storage's sequences stand, by storage Id. */
  sequences: Sequences
  /** Where each storage's ROW_ORDER stands, by storage Id. */
  nextRowOrders: Record<string, number>
  /** The next row version (TIMESTAMP) to hand out. */
  nextVersion: number
  locks?: Locks
  /** Every attachment, bytes included. */
  attachments: AttachmentDef[]
  masterRows: number
  detailRows: number
}

/**
 * The whole data as it was at one moment, to be read a table at a time, a chunk of rows at a time,
 * while the store goes on taking writes (see engine/table.ts's TableImage): what the durable state
 * writes as a snapshot. Close it when done, or when giving up on it.
 */
export interface DataImage {
  readonly header: ImageHeader
  /** Every table (masters and details), each with its storage's Id. */
  readonly tables: ReadonlyArray<{ storageId: string; image: TableImage }>
  close(): void
}

/** An image of the state as it is now. Cheap: nothing is copied until a table is read. */
export function imageOf(state: StoreState): DataImage {
  const sequences: Sequences = {}
  const nextRowOrders: Record<string, number> = {}
  let masterRows = 0
  let detailRows = 0
  const tables = [...state.storages.values()].map((table) => {
    sequences[table.storage.id] = { nextId: table.nextId, nextIdentity: table.nextIdentity }
    nextRowOrders[table.storage.id] = table.nextRowOrder
    if (table.relationKey === null) masterRows += table.size
    else detailRows += table.size
    return { storageId: table.storage.id, image: table.openImage() }
  })
  const { organization, applications, actions, emailProviders } = state.fixture
  const locks = state.locks.toLocks()
  return {
    header: {
      definitions: { organization, applications, actions, emailProviders },
      sequences,
      nextRowOrders,
      nextVersion: state.nextVersion,
      ...(locks === undefined ? {} : { locks }),
      attachments: state.attachments.all(),
      masterRows,
      detailRows,
    },
    tables,
    close: () => {
      for (const { image } of tables) image.close()
    },
  }
}
