/**
 * A small bounded map that forgets the least recently used entry, for caches keyed by request
 * text (filters, orders): clients can send endless distinct texts, memory must stay bounded.
 */
export class Lru<K, V> {
  readonly #max: number
  readonly #entries = new Map<K, V>()

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`LRU size must be a positive integer, got ${max}`)
    this.#max = max
  }

  get size(): number {
    return this.#entries.size
  }

  get(key: K): V | undefined {
    const value = this.#entries.get(key)
    if (value === undefined) return undefined
    // Map keeps insertion order: re-inserting marks the entry as the most recently used.
    this.#entries.delete(key)
    this.#entries.set(key, value)
    return value
  }

  set(key: K, value: V): void {
    this.#entries.delete(key)
    this.#entries.set(key, value)
    if (this.#entries.size > this.#max) {
      const oldest = this.#entries.keys().next()
      if (oldest.done !== true) this.#entries.delete(oldest.value)
    }
  }

  clear(): void {
    this.#entries.clear()
  }
}
