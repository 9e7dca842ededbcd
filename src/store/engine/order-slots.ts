import type { Column } from './columns.ts'
import type { FieldValue, OrderItem } from '../model/types.ts'

/** An order item with the column it reads. */
export interface SlotOrder {
  column: Column
  /** 1 ascending, -1 descending. */
  sign: number
}

/**
 * How `$orderby` compares two values: nulls first ascending (last descending), as SQL Server
 * sorts; numbers numerically; text by UTF-16 code units, without locale collation (Boolean 0/1 and the date types are numbers).
 * Multiselection fields are refused before this (an array has no order).
 */
export function compareValues(x: FieldValue, y: FieldValue): number {
  if (x === y) return 0
  if (x === null) return -1
  if (y === null) return 1
  return (x as string | number) < (y as string | number) ? -1 : (x as string | number) > (y as string | number) ? 1 : 0
}

/** Compares two slots by the order, ties by slot (which is Id order), so every order is total and paging stable. */
export function compareSlots(order: readonly SlotOrder[], a: number, b: number): number {
  for (const { column, sign } of order) {
    const c = compareValues(column.get(a), column.get(b))
    if (c !== 0) return c * sign
  }
  return a - b
}

/** The order items with their columns; undefined for a field without one. */
export function slotOrder(orderBy: readonly OrderItem[], columnOf: (field: string) => Column | undefined): SlotOrder[] {
  return orderBy.map((item) => ({ column: columnOf(item.field) as Column, sign: item.direction === 'desc' ? -1 : 1 }))
}

/**
 * Slots sorted by the order. Sorting a million entries with a comparator that reads columns
 * through calls takes seconds; instead each order field becomes a Float64Array of sort keys (text
 * replaced by its rank among the distinct texts) and an index array is sorted.
 */
export function sortSlots(slots: readonly number[], order: readonly SlotOrder[]): number[] {
  const n = slots.length
  const keys = order.map(({ column }) => sortKeys(slots, column))
  const signs = order.map(({ sign }) => sign)
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
    return (slots[a] as number) - (slots[b] as number)
  })
  const sorted = new Array<number>(n)
  for (let i = 0; i < n; i++) sorted[i] = slots[index[i] as number] as number
  return sorted
}

/** One number per slot that orders like the column's values; null is -Infinity (stored values are finite). */
function sortKeys(slots: readonly number[], column: Column): Float64Array {
  const n = slots.length
  const keys = new Float64Array(n)
  let texts: Set<string> | null = null
  for (let i = 0; i < n; i++) {
    const value = column.get(slots[i] as number)
    if (typeof value === 'string') (texts ??= new Set()).add(value)
  }
  const rank = texts === null ? null : rankOf(texts)
  for (let i = 0; i < n; i++) {
    const value = column.get(slots[i] as number)
    if (value === null) keys[i] = Number.NEGATIVE_INFINITY
    else if (typeof value === 'string') keys[i] = (rank as Map<string, number>).get(value) as number
    else keys[i] = value as number
  }
  return keys
}

function rankOf(texts: Set<string>): Map<string, number> {
  const sorted = [...texts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const rank = new Map<string, number>()
  sorted.forEach((text, i) => rank.set(text, i))
  return rank
}
