import { isNumericType } from '../model/data-types.ts'
import type { ChunkValues, ColumnKind, FieldType, FieldValue } from '../model/types.ts'

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
  /** grow, a few hundred thousand slots per step (a column of two million is tens of ms of writes at once). */
  growInSteps(capacity: number): Generator<void, void>
  /** Moves the value of slot `from` to slot `to` (compaction). */
  move(from: number, to: number): void
  /** The values of slots `at` to `at + count`, from `values` as a column chunk holds them (see types.ts). */
  setRange(at: number, values: ChunkValues, count: number): void
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
    for (const _step of this.growInSteps(capacity));
  }
  *growInSteps(capacity: number): Generator<void, void> {
    const kept = Math.min(this.values.length, capacity)
    const values = new Float64Array(capacity)
    values.set(this.values.subarray(0, kept))
    // Only the new slots are marked null: filling the copied ones too wrote every slot twice, and a
    // table of a million rows grows ten such columns while one request waits.
    for (let from = kept; from < capacity; from += FILL_STEP) {
      yield
      values.fill(Number.NaN, from, Math.min(capacity, from + FILL_STEP))
    }
    this.values = values
  }
  move(from: number, to: number): void {
    this.values[to] = this.values[from] as number
  }
  setRange(at: number, values: ChunkValues, count: number): void {
    if (!(values instanceof Float64Array)) throw new Error('a number column takes numbers')
    this.values.set(values.subarray(0, count), at)
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
    for (const _step of this.growInSteps(capacity));
  }
  *growInSteps(capacity: number): Generator<void, void> {
    const old = this.values.length
    this.values.length = capacity
    for (let from = old; from < capacity; from += FILL_STEP) {
      yield
      this.values.fill(null, from, Math.min(capacity, from + FILL_STEP))
    }
  }
  move(from: number, to: number): void {
    this.values[to] = this.values[from] ?? null
  }
  setRange(at: number, values: ChunkValues, count: number): void {
    if (values instanceof Float64Array) throw new Error('a column of text or arrays takes references')
    const kept = this.kept
    for (let i = 0; i < count; i++) this.values[at + i] = kept(values[i])
  }
  clear(from: number, to: number): void {
    this.values.fill(null, from, to)
  }
}

/** Slots a growing column fills per step. */
const FILL_STEP = 262_144

/** Text, as the shared string given. */
const keptText = (value: FieldValue | undefined): FieldValue => (typeof value === 'string' ? value : null)
/** An array of any shape (Multiselection), as a frozen copy: the store never changes an array it holds. */
const keptArray = (value: FieldValue | undefined): FieldValue => (Array.isArray(value) ? Object.freeze([...(value as Array<string | number>)]) : null)

/** The column for a field of this type: numbers (Boolean 0/1 and the date types too), arrays, or text. */
export function columnFor(type: FieldType, capacity: number): Column {
  if (isNumericType(type)) return new NumberColumn(capacity)
  return new ReferenceColumn(capacity, type === 'Multiselection' ? keptArray : keptText)
}

/** How a column of this type holds its values. */
export function columnKindOf(type: FieldType): ColumnKind {
  if (isNumericType(type)) return 'number'
  return type === 'Multiselection' ? 'array' : 'text'
}

/** A column's values by slot, as they are held: numbers (NaN for null) or references (null for none). Read only. */
export function valuesOf(column: Column): Float64Array | readonly FieldValue[] {
  return (column as NumberColumn | ReferenceColumn).values
}

/** The numbers of a number column, for code that reads a whole column at once (sorting, Id look-ups). */
export function numbersOf(column: Column): Float64Array | undefined {
  return column instanceof NumberColumn ? column.values : undefined
}
