/**
 * A large JSON body read without stopping the mock: a body of `slicing.bodyChars` or more whose
 * top level is an object with a `Rows` array (a save or delete of many rows) is scanned for the
 * array's element boundaries and parsed a slice of elements at a time, yielding to the event loop
 * between slices, so the small requests beside it keep being answered.
 *
 * The value is exactly `JSON.parse(text)`'s: each slice is parsed by `JSON.parse` itself and the
 * elements are put back in order under the object parsed with an empty `Rows`. Whenever the text is
 * not what the scanner fully understands (not an object, `Rows` twice or spelled with an escape, a
 * slice that does not parse, an empty element, anything after the object), it answers `undefined`
 * and the caller parses the whole text as before: a malformed body gets the same error, with the
 * same position, as it always did.
 */

import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE, isJsonSpace } from '../wire/json-codes.ts'

/**
 * When a big body is read and checked in slices. `bodyChars`: bodies this long (characters) or
 * longer are parsed in slices of about `sliceChars`; `checkRows`: bodies with this many rows or
 * more are checked against the schema `sliceRows` rows at a time (request-check.ts), and a save of
 * this many masters or more is planned by the store in slices of about `planMs` milliseconds
 * (operations/save-items.ts, `Store.saveInSlices`). The tests change them to compare the sliced
 * path's answers with the whole path's on the same bodies.
 */
export const slicing = { bodyChars: 1 << 18, sliceChars: 1 << 20, checkRows: 512, sliceRows: 256, planMs: 8 }

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
function stringEnd(text: string, open: number): number {
  let at = text.indexOf('"', open + 1)
  while (at !== -1) {
    let slashes = 0
    for (let i = at - 1; text.charCodeAt(i) === BACKSLASH; i--) slashes++
    if (slashes % 2 === 0) return at
    at = text.indexOf('"', at + 1)
  }
  return -1
}

/** Where the top-level `Rows` array lies: its brackets and the commas cut between its slices. */
interface RowsLayout {
  open: number
  close: number
  cuts: number[]
}

/** Scans `text` (yielding now and then) for the top-level `Rows` array; undefined when the text is not a plain object with one. */
async function scanRows(text: string): Promise<RowsLayout | undefined> {
  const length = text.length
  let i = 0
  while (i < length && isJsonSpace(text.charCodeAt(i))) i++
  if (text.charCodeAt(i) !== OPEN_OBJECT) return undefined
  let depth = 0
  // Whether the next string at depth 1 names a member (after the object's `{` or a `,` between members).
  let expectName = false
  let open = -1
  let close = -1
  const cuts: number[] = []
  let nextCut = 0
  const sliceChars = slicing.sliceChars
  let nextYield = sliceChars
  for (; i < length; i++) {
    if (i >= nextYield) {
      nextYield = i + sliceChars
      await yieldTurn()
    }
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const end = stringEnd(text, i)
      if (end === -1) return undefined
      if (depth === 1 && expectName) {
        // A member name of the top-level object.
        expectName = false
        let after = end + 1
        while (after < length && isJsonSpace(text.charCodeAt(after))) after++
        if (text.charCodeAt(after) !== COLON) return undefined
        const name = text.slice(i + 1, end)
        if (name.includes('\\')) return undefined
        if (name === 'Rows') {
          if (open !== -1) return undefined
          let value = after + 1
          while (value < length && isJsonSpace(text.charCodeAt(value))) value++
          if (text.charCodeAt(value) !== OPEN_ARRAY) return undefined
          open = value
          nextCut = open + sliceChars
          depth = 2
          i = value
          continue
        }
        i = after
        continue
      }
      i = end
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      depth++
      if (depth === 1) expectName = true
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      depth--
      if (depth === 1 && open !== -1 && close === -1) {
        if (c !== CLOSE_ARRAY) return undefined
        close = i
      } else if (depth === 0) {
        // The object's end: nothing but white space may follow.
        for (let j = i + 1; j < length; j++) if (!isJsonSpace(text.charCodeAt(j))) return undefined
        return open !== -1 && close !== -1 ? { open, close, cuts } : undefined
      } else if (depth < 0) return undefined
    } else if (c === COMMA && depth === 1) {
      expectName = true
    } else if (c === COMMA && depth === 2 && close === -1 && open !== -1 && i >= nextCut) {
      cuts.push(i)
      nextCut = i + sliceChars
    }
  }
  return undefined
}

/**
 * `JSON.parse(text)` for a large body whose top level is an object with a `Rows` array, a slice of
 * rows at a time with a turn of the event loop between slices; `undefined` when the text is not
 * that (then parse it whole: the same value or the same error).
 */
export async function parseRowsInSlices(text: string): Promise<unknown> {
  const layout = await scanRows(text)
  if (layout === undefined) return undefined
  const { open, close, cuts } = layout
  let outer: { Rows?: unknown }
  try {
    outer = JSON.parse(`${text.slice(0, open + 1)}${text.slice(close)}`) as { Rows?: unknown }
  } catch {
    return undefined
  }
  if (outer === null || typeof outer !== 'object' || !Array.isArray(outer.Rows) || outer.Rows.length !== 0) return undefined
  const rows: unknown[] = []
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
    for (const row of slice) rows.push(row)
  }
  outer.Rows = rows
  return outer
}
