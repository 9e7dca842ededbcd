/**
 * A large JSON body read without stopping the mock: a body of `slicing.bodyChars` or more is
 * scanned for its big arrays (a save's or a delete's rows, a list of Ids, at whatever depth) and
 * their element boundaries, and each is parsed a slice of elements at a time, yielding to the event
 * loop between slices, so the small requests beside it keep being answered. A big text (a long
 * query text, a `Rows` that is no array) is read a slice at a time too: without escapes it is the
 * body's own characters, taken without a copy (a 59 MB copy alone holds the loop 30 to 50 ms on
 * two cores); with escapes, each slice is decoded by `JSON.parse` and the slices joined.
 *
 * The value is exactly `JSON.parse(text)`'s: each slice is parsed by `JSON.parse` itself and the
 * elements are put back in order into the value parsed with those arrays and texts empty. Whenever the text is
 * not what the scanner fully understands (not an object or array, a member named with an escape, two
 * big arrays at one place, a slice that does not parse, an empty element, anything after the value),
 * it answers `undefined` and the caller parses the whole text as before: a malformed body gets the
 * same error, with the same position, as it always did.
 */

import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE, isJsonSpace } from '../wire/json-codes.ts'

/**
 * When a big body is read and checked in slices. `bodyChars`: bodies this long (characters) or
 * longer are parsed in slices of about `sliceChars`; `checkRows`: bodies with this many rows or
 * more are checked against the schema `sliceRows` rows at a time (request-check.ts), and a save of
 * this many masters or more is planned by the store in slices of about `planMs` milliseconds
 * (operations/save-items.ts, `Store.saveInSlices`). The tests change them to compare the sliced
 * path's answers with the whole path's on the same bodies.
 */
export const slicing = { bodyChars: 1 << 18, sliceChars: 1 << 18, checkRows: 512, sliceRows: 256, planMs: 8 }

/** One turn of the event loop for everything else waiting (answers, timers, other requests). */
export const yieldTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * Runs work that may pause (a generator that yields where a slice of it may end) to its end, in
 * slices of about `sliceMs` with a turn of the event loop between them: a big save's values and
 * answer (operations/save-items.ts).
 */
export async function runInSlices<T>(work: Generator<void, T, void>, sliceMs = slicing.planMs): Promise<T> {
  for (;;) {
    const until = performance.now() + sliceMs
    for (;;) {
      const step = work.next()
      if (step.done === true) return step.value
      if (performance.now() >= until) break
    }
    await yieldTurn()
  }
}

/** Runs work that may pause to its end at once (a small body: no slice would end). */
export function runAtOnce<T>(work: Generator<void, T, void>): T {
  for (;;) {
    const step = work.next()
    if (step.done === true) return step.value
  }
}

/** The index of the quote that closes the string opened at `open`, or -1. */
export function stringEnd(text: string, open: number): number {
  let at = text.indexOf('"', open + 1)
  while (at !== -1) {
    let slashes = 0
    for (let i = at - 1; text.charCodeAt(i) === BACKSLASH; i--) slashes++
    if (slashes % 2 === 0) return at
    at = text.indexOf('"', at + 1)
  }
  return -1
}

/** A big array of the text: its brackets, the commas cut between its slices, and where it is in the value. */
interface CutArray {
  open: number
  close: number
  cuts: number[]
  path: Array<string | number>
}

/** A big text of the value (a string longer than a slice, not a member's name): its quotes and where it is in the value. */
interface BigText {
  open: number
  close: number
  path: Array<string | number>
}

/** What the scan found to read in slices: the big arrays and the big texts outside them, each in the order of the text. */
interface BigParts {
  arrays: CutArray[]
  texts: BigText[]
}

/** A container open while scanning: an object (the name of its member being read) or an array (its element's index and cuts). */
interface Frame {
  array: boolean
  open: number
  /**
   * The container it is in and its place there: its path is made only for a big part, by walking up
   * (a path copied at every container cost a body nested 150,000 deep, 300 KB, time and memory in
   * the square of its depth: the mock ran out of memory).
   */
  parent: Frame | undefined
  key: string | number
  depth: number
  /** Objects: whether the next string names a member; the name read last. */
  expectName: boolean
  name: string | undefined
  /** Objects: the names of the members that hold a big part, so a member named again after it is seen (JSON.parse keeps the last). */
  bigNames: Set<string> | undefined
  /** Arrays: the index of the element being read, the commas cut so far, where the next cut may fall. */
  index: number
  cuts: number[]
  nextCut: number
}

/**
 * How deep a big part may lie to be read in slices: a save's rows lie at depth 1, a delete group's at
 * 2; an API body nests 64 levels at most (json-limits.ts), so any of its big parts is. A deeper one
 * (a control-plane body) is parsed whole, so no path longer than this is ever made.
 */
const MAX_SLICED_DEPTH = 64

/** Where a container is in the value, as keys from the top. */
function pathOf(frame: Frame | undefined): Array<string | number> {
  const path: Array<string | number> = []
  for (let at = frame; at?.parent !== undefined; at = at.parent) path.push(at.key)
  return path.reverse()
}

/**
 * Scans `text` (yielding now and then) for its big arrays: every array longer than a slice, with
 * the commas between its elements cut about `sliceChars` apart, none inside another (the outermost
 * is cut; what an element holds is parsed with it), and its big texts outside them. Undefined when
 * the text is not one JSON object or array the scanner fully reads (a big part under a member named
 * `__proto__`, a member named again after it held a big part, anything after the value) or has no
 * big part: then it is parsed whole.
 */
async function scanBigParts(text: string): Promise<BigParts | undefined> {
  const length = text.length
  const sliceChars = slicing.sliceChars
  let nextYield = sliceChars
  const stack: Frame[] = []
  const found: CutArray[] = []
  const texts: BigText[] = []
  let i = 0
  while (i < length && isJsonSpace(text.charCodeAt(i))) i++
  const first = text.charCodeAt(i)
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) return undefined
  for (; i < length; i++) {
    if (i >= nextYield) {
      nextYield = i + sliceChars
      await yieldTurn()
    }
    const c = text.charCodeAt(i)
    const top = stack[stack.length - 1]
    if (c === QUOTE) {
      const end = stringEnd(text, i)
      if (end === -1) return undefined
      if (top !== undefined && !top.array && top.expectName) {
        let name = text.slice(i + 1, end)
        if (name.includes('\\')) {
          // An escaped name is the name JSON.parse makes of it (or the text is no JSON: parsed whole, to say where).
          try {
            name = JSON.parse(text.slice(i, end + 1)) as string
          } catch {
            return undefined
          }
        }
        // A member named again after its first holds a big part: the skeleton would keep the first's place.
        if (top.bigNames?.has(name) === true) return undefined
        top.name = name
        top.expectName = false
      } else if (top !== undefined && end - i > sliceChars) {
        if (top.depth >= MAX_SLICED_DEPTH) return undefined
        const path = [...pathOf(top), top.array ? top.index : (top.name as string)]
        // `__proto__` names an own member in JSON.parse's value, but an assignment would reach the prototype.
        if (path.includes('__proto__')) return undefined
        texts.push({ open: i, close: end, path })
        if (!top.array) (top.bigNames ??= new Set()).add(top.name as string)
      }
      i = end
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      stack.push({
        array: c === OPEN_ARRAY,
        open: i,
        parent: top,
        key: top === undefined ? '' : top.array ? top.index : (top.name as string),
        depth: top === undefined ? 0 : top.depth + 1,
        expectName: c === OPEN_OBJECT,
        name: undefined,
        bigNames: undefined,
        index: 0,
        cuts: [],
        nextCut: i + sliceChars,
      })
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      const frame = stack.pop()
      if (frame === undefined || frame.array !== (c === CLOSE_ARRAY)) return undefined
      // Inner arrays close first: an outer big array takes the place of those inside it.
      if (frame.array && frame.cuts.length > 0) {
        if (frame.depth > MAX_SLICED_DEPTH) return undefined
        const path = pathOf(frame)
        // `__proto__` names an own member in JSON.parse's value, but an assignment would reach the prototype.
        if (path.includes('__proto__')) return undefined
        while (found.length > 0 && (found[found.length - 1] as CutArray).open > frame.open) found.pop()
        // A text inside a cut array comes with its element's slice.
        while (texts.length > 0 && (texts[texts.length - 1] as BigText).open > frame.open) texts.pop()
        found.push({ open: frame.open, close: i, cuts: frame.cuts, path })
        const parent = stack[stack.length - 1]
        if (parent !== undefined && !parent.array) (parent.bigNames ??= new Set()).add(parent.name as string)
      }
      if (stack.length === 0) {
        // The value's end: nothing but white space may follow.
        for (let j = i + 1; j < length; j++) if (!isJsonSpace(text.charCodeAt(j))) return undefined
        if (found.length + texts.length === 0) return undefined
        return { arrays: found, texts }
      }
    } else if (c === COMMA && top !== undefined) {
      if (!top.array) top.expectName = true
      else {
        top.index++
        if (i >= top.nextCut) {
          top.cuts.push(i)
          top.nextCut = i + sliceChars
        }
      }
    }
  }
  return undefined
}

/** The value at `path` in `root`, or undefined. */
function valueAtPath(root: unknown, path: ReadonlyArray<string | number>): unknown {
  let node = root
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined
    node = (node as Record<string | number, unknown>)[key]
  }
  return node
}

/** Characters a JSON text's content may not hold as they are (control characters), or that start an escape. */
const NOT_PLAIN = /[\u0000-\u001f\\]/

/**
 * Where a slice of a text's content that starts at `from` (never inside an escape) may end, near
 * `at`: there, or before an escape that `at` would cut (`\n` is two characters, `\u00e9` six), or
 * after it when it starts the slice. A cut between the two escapes of a surrogate pair is fine:
 * each slice decodes to its half, and the halves join into the same character.
 */
function escapeSafeCut(text: string, from: number, at: number): number {
  for (let start = at - 1; start >= Math.max(from, at - 5); start--) {
    if (text.charCodeAt(start) !== BACKSLASH) continue
    let before = 0
    for (let j = start - 1; j >= from && text.charCodeAt(j) === BACKSLASH; j--) before++
    // An escaped backslash is no escape's start: look further back.
    if (before % 2 === 1) continue
    const length = text.charCodeAt(start + 1) === 0x75 ? 6 : 2
    if (start + length <= at) return at
    return start > from ? start : start + length
  }
  return at
}

/**
 * A big text's value, read a slice at a time with turns of the event loop between: the body's own
 * characters when no slice holds an escape (no copy), else each slice decoded by `JSON.parse` and
 * the slices joined. Undefined when a slice holds a control character or does not decode (the text
 * is then parsed whole, to say where).
 */
async function readBigText(text: string, { open, close }: BigText): Promise<string | undefined> {
  const sliceChars = slicing.sliceChars
  let escaped = false
  for (let at = open + 1; at < close; at += sliceChars) {
    await yieldTurn()
    const slice = text.slice(at, Math.min(close, at + sliceChars))
    const found = NOT_PLAIN.exec(slice)
    if (found === null) continue
    if (found[0] !== '\\' || /[\u0000-\u001f]/.test(slice)) return undefined
    escaped = true
  }
  if (!escaped) return text.slice(open + 1, close)
  const pieces: string[] = []
  for (let at = open + 1; at < close; ) {
    await yieldTurn()
    const end = Math.min(close, escapeSafeCut(text, at, Math.min(close, at + sliceChars)))
    try {
      pieces.push(JSON.parse(`"${text.slice(at, end)}"`) as string)
    } catch {
      return undefined
    }
    at = end
  }
  return pieces.join('')
}

/**
 * `JSON.parse(text)` for a large body with big arrays or big texts (the rows of a save or a delete,
 * the Ids of a row link, a long query text, at whatever depth): the text with every big part
 * emptied is parsed first, then each big array a slice of elements at a time and each big text a
 * slice of characters at a time, with turns of the event loop between slices, and each put back in
 * its place. `undefined` when the text is not that (then parse it whole: the same value or the same
 * error, with its position).
 */
export async function parseArraysInSlices(text: string): Promise<unknown> {
  const parts = await scanBigParts(text)
  if (parts === undefined) return undefined
  const emptied = [...parts.arrays, ...parts.texts].sort((a, b) => a.open - b.open)
  const skeleton: string[] = []
  let from = 0
  for (const { open, close } of emptied) {
    skeleton.push(text.slice(from, open + 1))
    from = close
  }
  skeleton.push(text.slice(from))
  let root: unknown
  try {
    root = JSON.parse(skeleton.join(''))
  } catch {
    return undefined
  }
  for (const big of parts.texts) {
    const parent = valueAtPath(root, big.path.slice(0, -1)) as Record<string | number, unknown> | undefined
    const key = big.path[big.path.length - 1] as string | number
    if (parent === null || typeof parent !== 'object' || !Object.hasOwn(parent, key) || parent[key] !== '') return undefined
    const value = await readBigText(text, big)
    if (value === undefined) return undefined
    parent[key] = value
  }
  for (const { open, close, cuts, path } of parts.arrays) {
    const target = valueAtPath(root, path)
    if (!Array.isArray(target) || target.length !== 0) return undefined
    const bounds = [open, ...cuts, close]
    for (let k = 0; k + 1 < bounds.length; k++) {
      await yieldTurn()
      let slice: unknown[]
      try {
        slice = JSON.parse(`[${text.slice((bounds[k] as number) + 1, bounds[k + 1])}]`) as unknown[]
      } catch {
        return undefined
      }
      // `[a,,b]` or `[a,]` cut at a comma would leave a slice with nothing in it.
      if (slice.length === 0) return undefined
      for (const element of slice) target.push(element)
    }
  }
  return root
}
