import type { Client, ReadRow } from '../src/client/client.ts'

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

  /** A master row with attachments, else a detail row with attachments; undefined when the first rows have none. */
  attachmentHolder(client: Client): Promise<AttachmentHolder | undefined> {
    return this.#once('attachments', async () => {
      // The attachment marker orders like any field ("field name followed by asc or desc").
      const [master] = await client.rows({ top: 1, orderBy: 'CT_ATTACHMENTS desc,Id asc' })
      if (master !== undefined && Number(master.CT_ATTACHMENTS) > 0) return { row: master, relationKey: null }
      const relationKey = this.#relationKey
      if (relationKey === undefined || !this.#detailsInQueries) return undefined
      const [detail] = await client.rows({ top: 1, orderBy: 'CT_ATTACHMENTS desc,Id asc', relationKey })
      return detail !== undefined && Number(detail.CT_ATTACHMENTS) > 0 ? { row: detail, relationKey } : undefined
    })
  }
}

/** Fields the service keeps on every row, which a client does not send when it creates one. */
export const SYSTEM_FIELDS = new Set(['Id', 'TIMESTAMP', 'CT_ATTACHMENTS', 'DT_CREATION', 'DT_LAST_UPDATE', 'ROW_ORDER', 'USER_ID_CREATION', 'USER_ID_LAST_UPDATE'])

/** The fields of a read row a save may send again: its user fields, without the system fields and the ones named. */
export function userFields(row: ReadRow, without: readonly string[] = []): Record<string, string | number | boolean | null> {
  const out: Record<string, string | number | boolean | null> = {}
  for (const [name, value] of Object.entries(row)) {
    if (SYSTEM_FIELDS.has(name) || without.includes(name)) continue
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) out[name] = value as string | number | boolean | null
  }
  return out
}
