import { SegmentedMap } from './segmented-map.ts'

/**
 * PrimaryKeyData as a save plans it: each master's new keys kept as JSON text (`"Id":"26",
 * "IdRow":"1026","OrderLines[0]":"51"`) from the moment they are known. Built as objects, every
 * master's keys were an object with a property per new detail row, names V8 had not met before
 * (temporary Ids), which it keeps as a slow dictionary; making them and serializing them again
 * cost more than planning the rows did.
 *
 * `text()` is exactly what `JSON.stringify` writes for the object form (`toObject()`): the keys
 * of existing masters (array indexes, `"3"`) first in ascending order, then the temporary ones
 * (`"-1"`) as they came; a master named again keeps its place and takes the later keys, as a
 * property assigned twice does.
 */
export class PrimaryKeys {
  /** Master key (an Id as text) to the JSON text of its new keys, without braces; segmented, as a big save fills it row by row. */
  readonly #masters = new SegmentedMap<string, string>()
  /** Whether some master key is an array index (an existing master): a save of new rows only has none to sort first. */
  #indexed = false

  /** Records a master's new keys, `keys` being the members' JSON text (not empty). */
  add(master: number, keys: string): void {
    const key = String(master)
    if (!this.#indexed && isArrayIndex(master, key)) this.#indexed = true
    this.#masters.set(key, keys)
  }

  /** This save's keys, then `later`'s (a later one replaces the keys of a master both name). */
  merged(later: PrimaryKeys): PrimaryKeys {
    const merged = new PrimaryKeys()
    for (const [master, keys] of this.#masters) merged.#masters.set(master, keys)
    for (const [master, keys] of later.#masters) merged.#masters.set(master, keys)
    merged.#indexed = this.#indexed || later.#indexed
    return merged
  }

  /** The `PrimaryKeyData` member's JSON text. */
  text(): string {
    let named = ''
    let indexes: Array<[number, string]> | undefined
    for (const [master, keys] of this.#masters) {
      // A master key is an integer's text: nothing in it to escape.
      const entry = `"${master}":{"newKeys":{${keys}}}`
      const id = Number(master)
      if (isArrayIndex(id, master)) (indexes ??= []).push([id, entry])
      else named += named === '' ? entry : `,${entry}`
    }
    if (indexes === undefined) return `{${named}}`
    indexes.sort((a, b) => a[0] - b[0])
    const first = indexes.map(([, entry]) => entry).join(',')
    return `{${first}${first !== '' && named !== '' ? ',' : ''}${named}}`
  }

  /**
   * `text()` in pieces, for a save of many masters to write a slice at a time: the pieces joined are
   * `text()` exactly. (Existing masters' keys still come sorted first, sorted in one go.)
   */
  *pieces(): Generator<string, void, void> {
    yield '{'
    let first = true
    if (this.#indexed) {
      const indexes: Array<[number, string]> = []
      let sorted = true
      for (const [master, keys] of this.#masters) {
        const id = Number(master)
        if (!isArrayIndex(id, master)) continue
        if (indexes.length > 0 && (indexes[indexes.length - 1] as [number, string])[0] > id) sorted = false
        indexes.push([id, keys])
        // An empty piece now and then: the writer may end a slice there (results.ts).
        if (indexes.length % PIECES_BETWEEN_PAUSES === 0) yield ''
      }
      // Masters updated in Id order (as clients mostly send them) need no sort.
      if (!sorted) indexes.sort((a, b) => a[0] - b[0])
      for (const [id, keys] of indexes) {
        yield `${first ? '' : ','}"${id}":{"newKeys":{${keys}}}`
        first = false
      }
    }
    let read = 0
    for (const [master, keys] of this.#masters) {
      if (this.#indexed && isArrayIndex(Number(master), master)) {
        // The existing masters, written above, are passed over: a pause now and then here too.
        if (++read % PIECES_BETWEEN_PAUSES === 0) yield ''
        continue
      }
      yield `${first ? '' : ','}"${master}":{"newKeys":{${keys}}}`
      first = false
    }
    yield '}'
  }

  /** The object form the description shows: `{ "-1": { newKeys: { Id: "26", ... } } }`. */
  toObject(): Record<string, { newKeys: Record<string, string> }> {
    return JSON.parse(this.text()) as Record<string, { newKeys: Record<string, string> }>
  }
}

/** Masters read between two empty pieces of `pieces()`. */
const PIECES_BETWEEN_PAUSES = 4096

/** Whether a property key is an array index, which objects order before every other key. */
function isArrayIndex(value: number, text: string): boolean {
  return text.charCodeAt(0) !== 45 /* - */ && Number.isInteger(value) && value <= 4294967294 && String(value) === text
}
