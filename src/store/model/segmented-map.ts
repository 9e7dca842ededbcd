/**
 * A Map (and a Set) that a big save can fill without holding the loop: its entries are kept in
 * Maps of at most `segment` entries, filled one after another. A JS Map doubles its table when it
 * fills, copying every entry in one call; a save plans each of its rows into several maps at once
 * (the plan's rows, their temporary Ids, PrimaryKeyData), so at 262,144 rows they all doubled in
 * the same step, one copy after another: 104 ms in one slice on two cores. Split, no step copies
 * more than one segment's entries per map.
 *
 * It behaves as a Map, order included: entries iterate in insertion order (a segment is filled
 * before the next is begun), a key set again keeps its place, a key deleted and set again goes to
 * the end. A key is looked for in every segment, newest first: a few lookups where a Map makes one,
 * and one for a map that never outgrew its first segment (every save but the biggest).
 */

/** Entries a segment holds before the next is begun: a copy of this many entries takes about a millisecond. */
export const SEGMENT = 65_536

export class SegmentedMap<K, V> {
  readonly #segment: number
  readonly #segments: Array<Map<K, V>> = [new Map()]
  #size = 0

  constructor(segment = SEGMENT) {
    this.#segment = segment
  }

  get size(): number {
    return this.#size
  }

  /** How many Maps hold the entries: one per `segment` entries set, none larger (what the tests look at). */
  get segments(): number {
    return this.#segments.length
  }

  /** The segment that holds `key`, or undefined. */
  #holder(key: K): Map<K, V> | undefined {
    const segments = this.#segments
    for (let i = segments.length - 1; i >= 0; i--) if ((segments[i] as Map<K, V>).has(key)) return segments[i]
    return undefined
  }

  get(key: K): V | undefined {
    const segments = this.#segments
    if (segments.length === 1) return (segments[0] as Map<K, V>).get(key)
    return this.#holder(key)?.get(key)
  }

  has(key: K): boolean {
    return this.#holder(key) !== undefined
  }

  set(key: K, value: V): this {
    const holder = this.#holder(key)
    if (holder !== undefined) {
      holder.set(key, value)
      return this
    }
    let last = this.#segments[this.#segments.length - 1] as Map<K, V>
    if (last.size >= this.#segment) this.#segments.push((last = new Map()))
    last.set(key, value)
    this.#size++
    return this
  }

  delete(key: K): boolean {
    const holder = this.#holder(key)
    if (holder === undefined) return false
    holder.delete(key)
    this.#size--
    return true
  }

  *entries(): IterableIterator<[K, V]> {
    for (const segment of this.#segments) yield* segment.entries()
  }

  *keys(): IterableIterator<K> {
    for (const segment of this.#segments) yield* segment.keys()
  }

  *values(): IterableIterator<V> {
    for (const segment of this.#segments) yield* segment.values()
  }

  [Symbol.iterator](): IterableIterator<[K, V]> {
    return this.entries()
  }
}

/** A Set kept as a SegmentedMap's keys: the same order, and no step copies more than a segment. */
export class SegmentedSet<K> {
  readonly #map: SegmentedMap<K, true>

  constructor(segment = SEGMENT) {
    this.#map = new SegmentedMap(segment)
  }

  get size(): number {
    return this.#map.size
  }

  has(key: K): boolean {
    return this.#map.has(key)
  }

  add(key: K): this {
    this.#map.set(key, true)
    return this
  }

  delete(key: K): boolean {
    return this.#map.delete(key)
  }

  [Symbol.iterator](): IterableIterator<K> {
    return this.#map.keys()
  }
}
