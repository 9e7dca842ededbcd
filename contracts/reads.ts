import type { Client, ReadRow } from '../src/client/client.ts'

/**
 * Reads of single rows and of the newest rows. Every read names `$top`: a filter an installation
 * does not honour must not turn a read of one row into a read of the whole table.
 */

const relation = (relationKey: string | null | undefined) => (relationKey === undefined || relationKey === null ? {} : { relationKey })

/** Whether a read row is the row with that Id (an installation may write Ids as text). */
export const hasId = (row: ReadRow, id: number): boolean => Number(row.Id) === id

/** The answer of a read by Id: the row, no row at all, or rows that are not it (the filter was not honoured). */
export type Lookup = { state: 'found'; row: ReadRow } | { state: 'gone' } | { state: 'unclear'; why: string }

export async function lookUpById(client: Client, id: number, relationKey?: string | null): Promise<Lookup> {
  // The value quoted, in the form the description shows (`<field> <operator> '<value>'`, Get Items).
  const rows: unknown = await client.rows({ filter: `Id eq '${id}'`, top: 2, ...relation(relationKey) })
  if (!Array.isArray(rows)) return { state: 'unclear', why: 'a read by Id answered no list of rows' }
  const row = (rows as ReadRow[]).find((r) => hasId(r, id))
  if (row !== undefined) return { state: 'found', row }
  return rows.length === 0
    ? { state: 'gone' }
    : { state: 'unclear', why: `a read by Id answered other rows (Id ${(rows as ReadRow[]).map((r) => String(r.Id)).join(', ')})` }
}

/** One row by its Id (of a detail table with `relationKey`), or undefined when the answer does not hold it. */
export async function readById(client: Client, id: number, relationKey?: string | null): Promise<ReadRow | undefined> {
  const found = await lookUpById(client, id, relationKey)
  return found.state === 'found' ? found.row : undefined
}

/** The highest Id of a table now (0 when empty): a row above it did not exist at this moment. */
export async function highestId(client: Client, relationKey?: string | null): Promise<number> {
  const [row] = await client.rows({ top: 1, orderBy: 'Id desc', ...relation(relationKey) })
  const id = Number(row?.Id ?? 0)
  if (!Number.isSafeInteger(id)) throw new Error(`the newest row's Id is no whole number (${String(row?.Id)})`)
  return id
}

/** The newest rows of a table, highest Id first. */
export function newestRows(client: Client, relationKey: string | null | undefined, top: number): Promise<ReadRow[]> {
  return client.rows({ top, orderBy: 'Id desc', ...relation(relationKey) })
}
