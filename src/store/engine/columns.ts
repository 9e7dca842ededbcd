import { isNumericType } from '../data-types.ts'
import type { FieldType, FieldValue } from '../types.ts'

/**
 * One field of every row of a table, by slot. Numbers live in a Float64Array (NaN for null: no
 * stored value is NaN; Booleans are 0/1 and dates numbers too), Multiselection arrays in a plain array, text in a plain array of shared strings. Three
 * million rows this way take a fraction of the memory that three million row objects do, and
 * load without allocating an object per row.
 */
export interface Column {
  get(slot: number): FieldValue
  set(slot: number, value: FieldValue | undefined): void
  /** Room for `capacity` slots, keeping the values held. */
  grow(capacity: number): void
  /** Moves the value of slot `from` to slot `to` (compaction). */
  move(from: number, to: number): void
  /** Sets slots `from` to `to` (exclusive) to null in one pass (the slots compaction left behind). */
  clear(from: number, to: number): void
}

class NumberColumn implements Column {
  values: Float64Array
  constructor(capacity: number) {
    this.values = new Float64Array(capacity).fill(Number.NaN)
  }
  get(slot: number): FieldValue {
    const value = this.values[slot] as number
    // NaN is the only value not equal to itself: the null marker.
    return value !== value ? null : value
  }
  set(slot: number, value: FieldValue | undefined): void {
    this.values[slot] = typeof value === 'number' ? value : Number.NaN
  }
  grow(capacity: number): void {
    const kept = Math.min(this.values.length, capacity)
    const values = new Float64Array(capacity)
    values.set(this.values.subarray(0, kept))
    // Only the new slots are marked null: filling the copied ones too wrote every slot twice, and a
    // table of a million rows grows ten such columns while one request waits.
    values.fill(Number.NaN, kept)
    this.values = values
  }
  move(from: number, to: number): void {
    this.values[to] = this.values[from] as number
  }
  clear(from: number, to: number): void {
    this.values.fill(Number.NaN, from, to)
  }
}

/**
 * A column of references, one per slot (null for none): text as shared strings, or Multiselection
 * arrays. The two kinds differ only in what `set` keeps.
 */
class ReferenceColumn implements Column {
  values: FieldValue[]
  constructor(
    capacity: number,
    /** The value a slot keeps for one given: null for a value not of the column's kind. */
    readonly kept: (value: FieldValue | undefined) => FieldValue,
  ) {
    this.values = new Array<FieldValue>(capacity).fill(null)
  }
  get(slot: number): FieldValue {
    return this.values[slot] ?? null
  }
  set(slot: number, value: FieldValue | undefined): void {
    this.values[slot] = this.kept(value)
  }
  grow(capacity: number): void {
    const old = this.values.length
    this.values.length = capacity
    if (capacity > old) this.values.fill(null, old)
  }
  move(from: number, to: number): void {
    this.values[to] = this.values[from] ?? null
  }
  clear(from: number, to: number): void {
    this.values.fill(null, from, to)
  }
}

/** Text, as the shared string given. */
const keptText = (value: FieldValue | undefined): FieldValue => (typeof value === 'string' ? value : null)
/** An array of any shape (Multiselection), as a frozen copy: the store never changes an array it holds. */
const keptArray = (value: FieldValue | undefined): FieldValue => (Array.isArray(value) ? Object.freeze([...(value as Array<string | number>)]) : null)

/** The column for a field of this type: numbers (Boolean 0/1 and the date types too), arrays, or text. */
export function columnFor(type: FieldType, capacity: number): Column {
  if (isNumericType(type)) return new NumberColumn(capacity)
  return new ReferenceColumn(capacity, type === 'Multiselection' ? keptArray : keptText)
}

/** The numbers of a number column, for code that reads a whole column at once (sorting, Id look-ups). */
export function numbersOf(column: Column): Float64Array | undefined {
  return column instanceof NumberColumn ? column.values : undefined
}
