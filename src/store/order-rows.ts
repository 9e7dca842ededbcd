import type { OrderItem, Row } from './types.ts'

/**
 * Rows sorted for `$orderby`: nulls first ascending (last descending), as SQL Server sorts;
 * numbers numerically; text by UTF-16 code units, without locale collation; false before true.
 * Ties keep the input order, which the caller gives in ascending Id, so paging is stable.
 *
 * Sorting a million rows with a comparator that reads row properties takes seconds; instead each
 * order field becomes a Float64Array of sort keys (text replaced by its rank among the distinct
 * texts) and an index array is sorted, about three times faster.
 */
export function orderRows(rows: readonly Row[], orderBy: readonly OrderItem[]): Row[] {
  const n = rows.length
  const keys = orderBy.map((item) => sortKeys(rows, item.field))
  const signs = orderBy.map((item) => (item.direction === 'desc' ? -1 : 1))
  const count = keys.length
  const index = new Uint32Array(n)
  for (let i = 0; i < n; i++) index[i] = i
  index.sort((a, b) => {
    for (let k = 0; k < count; k++) {
      const column = keys[k] as Float64Array
      const x = column[a] as number
      const y = column[b] as number
      if (x !== y) return x < y ? -(signs[k] as number) : (signs[k] as number)
    }
    return a - b
  })
  const sorted = new Array<Row>(n)
  for (let i = 0; i < n; i++) sorted[i] = rows[index[i] as number] as Row
  return sorted
}

/** One number per row that orders like the field's values; null is -Infinity (store values are finite). */
function sortKeys(rows: readonly Row[], field: string): Float64Array {
  const n = rows.length
  const keys = new Float64Array(n)
  let texts: Set<string> | null = null
  for (let i = 0; i < n; i++) {
    const value = (rows[i] as Row)[field]
    if (typeof value === 'string') (texts ??= new Set()).add(value)
  }
  const rank = texts === null ? null : rankOf(texts)
  for (let i = 0; i < n; i++) {
    const value = (rows[i] as Row)[field]
    if (value === null || value === undefined) keys[i] = Number.NEGATIVE_INFINITY
    else if (typeof value === 'string') keys[i] = (rank as Map<string, number>).get(value) as number
    else if (typeof value === 'boolean') keys[i] = value ? 1 : 0
    else keys[i] = value
  }
  return keys
}

function rankOf(texts: Set<string>): Map<string, number> {
  const sorted = [...texts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const rank = new Map<string, number>()
  sorted.forEach((text, i) => rank.set(text, i))
  return rank
}
