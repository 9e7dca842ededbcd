/** Bytes of one arena: rows' JSON texts are packed into buffers of this size, outside the V8 heap. */
const ARENA_SIZE = 1024 * 1024

/**
 * The UTF-8 JSON texts of a table's rows in one projection, by slot, kept as bytes in large
 * buffers (arenas) so a page is made of ready bytes: no string building, no re-encoding, no copy
 * per request. Each text is followed by a comma in its arena, so rows stored one after the other
 * (a first read of a page stores them so) go out as one view of the arena, separators included.
 * A write forgets the row's bytes (they are written again at its next read). Memory is bounded:
 * past `limit` bytes the oldest arena is dropped and the rows in it serialize again when next read.
 */
export class RowBytes {
  readonly #limit: number
  /** Arena of each slot's bytes, 0 for none (arena ids start at 1). */
  #arenaOf: Uint32Array
  #offset: Uint32Array
  #length: Uint32Array
  readonly #arenas = new Map<number, Buffer>()
  #nextArena = 1
  /**
   * The oldest arena still held: arenas are numbered in the order they are made and dropped
   * oldest first, so the held ones are exactly those from this one on. A page asks whether each
   * of its rows is held; a comparison answers that where a lookup in `#arenas` per row was 4 % of
   * a W1 page's instructions (9 k of 214 k, callgrind, docs/performance.md).
   */
  #oldestHeld = 1
  #current: Buffer | undefined
  #currentId = 0
  #used = 0
  #held = 0

  constructor(capacity: number, limit: number) {
    this.#limit = limit
    this.#arenaOf = new Uint32Array(capacity)
    this.#offset = new Uint32Array(capacity)
    this.#length = new Uint32Array(capacity)
  }

  grow(capacity: number): void {
    const grown = (old: Uint32Array) => {
      const array = new Uint32Array(capacity)
      array.set(old.subarray(0, Math.min(old.length, capacity)))
      return array
    }
    this.#arenaOf = grown(this.#arenaOf)
    this.#offset = grown(this.#offset)
    this.#length = grown(this.#length)
  }

  /** Bytes held in arenas (live and forgotten rows alike). */
  get held(): number {
    return this.#held
  }

  /** The byte length of the slot's text, or -1 when it is not held. */
  lengthOf(slot: number): number {
    const arena = this.#arenaOf[slot] as number
    return arena !== 0 && arena >= this.#oldestHeld ? (this.#length[slot] as number) : -1
  }

  /**
   * Whether slot `next`'s text follows slot `slot`'s in the same held arena, one comma between:
   * then one view holds both (and the comma).
   */
  follows(slot: number, next: number): boolean {
    const arena = this.#arenaOf[slot] as number
    return arena !== 0 && this.#arenaOf[next] === arena && this.#offset[next] === (this.#offset[slot] as number) + (this.#length[slot] as number) + 1
  }

  /**
   * The texts from `first` to `last`, with the commas between, as a view of the arena: no copy.
   * An arena is never written where it already holds text, so the view stays as it is while an
   * answer that holds it is still being written, whatever the store does meanwhile. Call only for
   * held slots where each follows the one before.
   */
  run(first: number, last: number): Buffer {
    const arena = this.#arenas.get(this.#arenaOf[first] as number) as Buffer
    return arena.subarray(this.#offset[first] as number, (this.#offset[last] as number) + (this.#length[last] as number))
  }

  /** Keeps the slot's text (and a comma after it); returns the text's byte length. */
  store(slot: number, text: string): number {
    const length = Buffer.byteLength(text)
    if (this.#current === undefined || this.#used + length + 1 > this.#current.length) this.#newArena(Math.max(ARENA_SIZE, length + 1))
    const current = this.#current as Buffer
    current.write(text, this.#used, 'utf8')
    current[this.#used + length] = 0x2c
    this.#arenaOf[slot] = this.#currentId
    this.#offset[slot] = this.#used
    this.#length[slot] = length
    this.#used += length + 1
    return length
  }

  forget(slot: number): void {
    this.#arenaOf[slot] = 0
  }

  /** Forgets the texts of slots `from` to `to` (exclusive) in one pass (the slots compaction left behind). */
  clear(from: number, to: number): void {
    this.#arenaOf.fill(0, from, to)
  }

  /** Moves what slot `from` holds to slot `to` (compaction). */
  move(from: number, to: number): void {
    this.#arenaOf[to] = this.#arenaOf[from] as number
    this.#offset[to] = this.#offset[from] as number
    this.#length[to] = this.#length[from] as number
    this.#arenaOf[from] = 0
  }

  #newArena(size: number): void {
    // Past the limit the oldest arena goes: its rows are serialized again when next read.
    while (this.#held + size > this.#limit && this.#arenas.size > 0) {
      const [oldest, buffer] = this.#arenas.entries().next().value as [number, Buffer]
      this.#arenas.delete(oldest)
      this.#oldestHeld = oldest + 1
      this.#held -= buffer.length
    }
    this.#current = Buffer.allocUnsafeSlow(size)
    this.#currentId = this.#nextArena++
    this.#arenas.set(this.#currentId, this.#current)
    this.#held += size
    this.#used = 0
  }
}
