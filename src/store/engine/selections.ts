import { compareSlots, type SlotOrder } from './order-slots.ts'

/** How many distinct (filter, order) results a table keeps; each may hold a slot per row. */
const SELECTION_CACHE_SIZE = 32

/** A query result: the slots a filter selects in the order asked for, with the test and order that made it. */
export interface Computed {
  slots: number[]
  test: (slot: number) => boolean
  order: readonly SlotOrder[]
}

/** A kept query result. */
interface Selection extends Computed {
  /** Slots written since the slots were last brought up to date. */
  pending: Set<number>
  /** The table's slots when the result was last brought up to date: slots from here on are rows created since. */
  upTo: number
}

/**
 * The results of recent queries of one table, kept across writes: a write marks its row on
 * every result, and the next read of a result moves just those rows (out, and back in at their
 * place by binary search) instead of filtering and sorting the table again. Past one marked row
 * in eight of a result, it is computed again instead. Created rows mark nothing: they are the
 * slots past the ones a result has seen (`upTo`), looked at in one go at its next read, and never
 * searched for in it (a new slot cannot be there yet).
 */
export class Selections {
  readonly #entries = new Map<string, Selection>()

  /**
   * The up-to-date slots of a query; `compute` runs (and makes its test and order) only when the
   * result is not kept or too much of it changed, so a kept result costs a look-up.
   */
  get(key: string, alive: (slot: number) => boolean, count: number, compute: () => Computed): number[] {
    const entry = this.#entries.get(key)
    if (entry !== undefined) {
      // Most recently used last, so the first entry is the one to evict.
      this.#entries.delete(key)
      this.#entries.set(key, entry)
      const changed = entry.pending.size + Math.max(0, count - entry.upTo)
      if (changed === 0) return entry.slots
      if (changed * 8 <= entry.slots.length + 8) {
        patch(entry, alive, count)
        return entry.slots
      }
    }
    const computed = compute()
    this.#entries.delete(key)
    this.#entries.set(key, { ...computed, pending: new Set(), upTo: count })
    if (this.#entries.size > SELECTION_CACHE_SIZE) this.#entries.delete(this.#entries.keys().next().value as string)
    return computed.slots
  }

  /** A row was changed or removed: every kept result looks at it again before its next use (created rows need no call). */
  touched(slot: number): void {
    for (const entry of this.#entries.values()) entry.pending.add(slot)
  }

  clear(): void {
    this.#entries.clear()
  }
}

/** Brings a result up to date: each written slot leaves it, and comes back at its place if it still qualifies. */
function patch(entry: Selection, alive: (slot: number) => boolean, count: number): void {
  const { slots, order, test, upTo } = entry
  for (const slot of entry.pending) {
    // A slot created since is not in the result: it is looked at with the other new ones below.
    if (slot >= upTo) continue
    const at = order.length === 0 ? binarySearch(slots, slot) : slots.indexOf(slot)
    if (at >= 0) slots.splice(at, 1)
    if (alive(slot) && test(slot)) slots.splice(lowerBound(slots, slot, order), 0, slot)
  }
  for (let slot = upTo; slot < count; slot++) {
    if (!alive(slot) || !test(slot)) continue
    // Without an order the result is in slot order, and a new slot comes after every slot in it.
    if (order.length === 0) slots.push(slot)
    else slots.splice(lowerBound(slots, slot, order), 0, slot)
  }
  entry.pending.clear()
  entry.upTo = Math.max(upTo, count)
}

/** Index of `slot` in slots sorted ascending, or -1. */
function binarySearch(slots: readonly number[], slot: number): number {
  let low = 0
  let high = slots.length - 1
  while (low <= high) {
    const mid = (low + high) >>> 1
    const value = slots[mid] as number
    if (value === slot) return mid
    if (value < slot) low = mid + 1
    else high = mid - 1
  }
  return -1
}

/** Where `slot` goes in slots sorted by the order (ties by slot). */
function lowerBound(slots: readonly number[], slot: number, order: readonly SlotOrder[]): number {
  let low = 0
  let high = slots.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (compareSlots(order, slots[mid] as number, slot) < 0) low = mid + 1
    else high = mid
  }
  return low
}
