import { ApiError, type Client, type ReadRow } from '../src/client/client.ts'

/** A row that has attachments, with the relation key of its table (null for masters). */
export interface AttachmentHolder {
  row: ReadRow
  relationKey: string | null
}

/**
 * What the contracts learn about the installation by reading it, once per run and shared: a page
 * of master rows, of detail rows, a row with attachments. Read by whichever contract asks first,
 * through that contract's client, so a wrong answer fails the contract that saw it.
 */
export class Facts {
  readonly #memo = new Map<string, Promise<unknown>>()
  readonly #relationKey: string | undefined
  readonly #detailsInQueries: boolean

  constructor(options: { relationKey: string | undefined; detailsInQueries: boolean }) {
    this.#relationKey = options.relationKey
    this.#detailsInQueries = options.detailsInQueries
  }

  #once<T>(key: string, read: () => Promise<T>): Promise<T> {
    let value = this.#memo.get(key) as Promise<T> | undefined
    if (value === undefined) {
      value = read()
      this.#memo.set(key, value)
      // A failed read is tried again by the next contract that asks.
      value.catch(() => this.#memo.delete(key))
    }
    return value
  }

  /** The first master rows by Id (at most 20). */
  masters(client: Client): Promise<ReadRow[]> {
    return this.#once('masters', () => client.rows({ top: 20, orderBy: 'Id asc' }))
  }

  /** The first detail rows of the relation key by Id (at most 20); undefined without a relation key or detail rows in queries. */
  details(client: Client): Promise<ReadRow[] | undefined> {
    const relationKey = this.#relationKey
    if (relationKey === undefined || !this.#detailsInQueries) return Promise.resolve(undefined)
    return this.#once('details', () => client.rows({ top: 20, orderBy: 'Id asc', relationKey }))
  }

  /**
   * A master row with attachments, else a detail row with attachments, or why there is none to
   * check: the first rows have none, or the installation refused to order by the marker.
   */
  attachmentHolder(client: Client): Promise<AttachmentHolder | { none: string }> {
    return this.#once('attachments', async (): Promise<AttachmentHolder | { none: string }> => {
      // One key, as the description shows `$orderby` ("field name followed by asc or desc", Get Items).
      const first = async (relationKey?: string): Promise<{ row: ReadRow | undefined } | { none: string }> => {
        try {
          const [row] = await client.rows({ top: 1, orderBy: 'CT_ATTACHMENTS desc', ...(relationKey === undefined ? {} : { relationKey }) })
          return { row: row !== undefined && Number(row.CT_ATTACHMENTS) > 0 ? row : undefined }
        } catch (error) {
          if (error instanceof ApiError && error.status < 500)
            return { none: `the installation refused to order rows by CT_ATTACHMENTS (${error.status}), so no row with attachments was found` }
          throw error
        }
      }
      const master = await first()
      if ('row' in master && master.row !== undefined) return { row: master.row, relationKey: null }
      const relationKey = this.#relationKey
      const detail = relationKey === undefined || !this.#detailsInQueries ? { row: undefined } : await first(relationKey)
      if ('row' in detail && detail.row !== undefined && relationKey !== undefined) return { row: detail.row, relationKey }
      if ('none' in master) return master
      return 'none' in detail ? detail : { none: 'no master row (nor detail row) among the first ones has attachments' }
    })
  }
}

/** Fields the service keeps on every row, which a client does not send when it creates one. */
export const SYSTEM_FIELDS = new Set([
  'Id',
  'TIMESTAMP',
  'CT_ATTACHMENTS',
  'DT_CREATION',
  'DT_LAST_UPDATE',
  'ROW_ORDER',
  'USER_ID_CREATION',
  'USER_ID_LAST_UPDATE',
])

/** The fields of a read row a save may send again: its user fields, without the system fields and the ones named. */
export function userFields(row: ReadRow, without: readonly string[] = []): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {}
  for (const [name, value] of Object.entries(row)) {
    if (SYSTEM_FIELDS.has(name) || without.includes(name)) continue
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) out[name] = value as string | number | boolean | null
  }
  return out
}
