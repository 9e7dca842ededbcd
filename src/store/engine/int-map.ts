/**
 * A map from integer keys to values that keeps dense keys in a plain array. Row Ids and
 * Identity values are mostly dense small integers; an array is about fifteen times faster to
 * fill than a Map at a million rows and iterates in key order for free. A key far beyond the
 * others (or negative, or not an integer) switches the map to a Map for good, which then
 * iterates in insertion order: for rows that is still Id order, since new Ids only grow.
 */
export class IntMap<V> {
  #dense: Array<V | undefined> | null = []
  #sparse: Map<number, V> | null = null
  #size = 0

  get size(): number {
    return this.#size
  }

  get(key: number): V | undefined {
    return this.#dense !== null ? this.#dense[key] : (this.#sparse as Map<number, V>).get(key)
  }

  has(key: number): boolean {
    return this.get(key) !== undefined
  }

  set(key: number, value: V): void {
    if (this.#dense !== null && !(Number.isInteger(key) && key >= 0 && key <= 2 * this.#dense.length + 65_536)) this.#toSparse()
    if (this.#dense !== null) {
      if (this.#dense[key] === undefined) this.#size++
      this.#dense[key] = value
    } else {
      const sparse = this.#sparse as Map<number, V>
      if (!sparse.has(key)) this.#size++
      sparse.set(key, value)
    }
  }

  delete(key: number): boolean {
    if (!this.has(key)) return false
    if (this.#dense !== null) this.#dense[key] = undefined
    else (this.#sparse as Map<number, V>).delete(key)
    this.#size--
    return true
  }

  /** Calls `fn` for each entry, in ascending key order while dense, insertion order after. */
  forEach(fn: (value: V, key: number) => void): void {
    if (this.#dense !== null) {
      const dense = this.#dense
      for (let key = 0; key < dense.length; key++) {
        const value = dense[key]
        if (value !== undefined) fn(value, key)
      }
    } else {
      for (const [key, value] of this.#sparse as Map<number, V>) fn(value, key)
    }
  }

  /** The keys, in the order forEach visits them. */
  keys(): number[] {
    if (this.#dense === null) return [...(this.#sparse as Map<number, V>).keys()]
    const dense = this.#dense
    const keys = new Array<number>(this.#size)
    let k = 0
    for (let key = 0; key < dense.length; key++) if (dense[key] !== undefined) keys[k++] = key
    return keys
  }

  #toSparse(): void {
    const sparse = new Map<number, V>()
    this.forEach((value, key) => sparse.set(key, value))
    this.#sparse = sparse
    this.#dense = null
  }
}
