/**
 * A fixture's JSON read a piece at a time: a fixture file too big for one text, and the JSON state
 * file of earlier versions (a fixture), to be converted. A snapshot of a million orders was about 760 MB of JSON, longer than the longest string V8 makes
 * (about 512 MB): reading it as one string fails. So the objects near the top (the fixture,
 * `data`, an application's data, its `details`) are opened here, and so is every array reached
 * through them; each element of such an array (a row, an attachment, an application's
 * definition) is one piece, read in batches by `JSON.parse`.
 */
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE, isJsonSpace } from './json-codes.ts'

/** Objects nested less deep than this are opened: root 0, `data` 1, an application's data 2, `details` 3. */
const OPEN_DEPTH = 4

/** Bytes of rows parsed by one JSON.parse. */
const BATCH_BYTES = 8 * 1024 * 1024

/** What JSON.parse makes of UTF-8 `bytes`, parsed a piece at a time; throws SyntaxError naming the byte. */
export function parseJsonPieces(bytes: Uint8Array): unknown {
  const end = bytes.length
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  let at = 0
  const fail = (what: string): never => {
    throw new SyntaxError(`${what} at byte ${at}`)
  }
  const space = (): void => {
    while (at < end) {
      if (!isJsonSpace(bytes[at])) return
      at++
    }
  }
  const skipString = (): void => {
    at++
    while (at < end) {
      const b = bytes[at]
      if (b === BACKSLASH) at += 2
      else if (b === QUOTE) {
        at++
        return
      } else at++
    }
    fail('unterminated string')
  }
  // Past one value, without reading it: JSON.parse of the slice checks it.
  const skipValue = (): void => {
    const b = bytes[at]
    if (b === QUOTE) {
      skipString()
      return
    }
    if (b === OPEN_OBJECT || b === OPEN_ARRAY) {
      let open = 0
      while (at < end) {
        const c = bytes[at]
        if (c === QUOTE) {
          skipString()
          continue
        }
        if (c === OPEN_OBJECT || c === OPEN_ARRAY) open++
        else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
          open--
          if (open === 0) {
            at++
            return
          }
        }
        at++
      }
      fail('unterminated value')
    }
    const start = at
    while (at < end) {
      const c = bytes[at]
      if (c === COMMA || c === CLOSE_OBJECT || c === CLOSE_ARRAY || c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) break
      at++
    }
    if (at === start) fail('a value expected')
  }
  const whole = (): unknown => {
    const start = at
    skipValue()
    return JSON.parse(text.toString('utf8', start, at))
  }
  // An array of pieces (the rows of a table), its '[' read: found one by one, parsed a batch at a time (one JSON.parse per row costs ten times more).
  const pieces = (): unknown[] => {
    const items: unknown[] = []
    if (bytes[at] === CLOSE_ARRAY) {
      at++
      return items
    }
    let batch = at
    const parseBatch = (until: number): void => {
      for (const item of JSON.parse(`[${text.toString('utf8', batch, until)}]`) as unknown[]) items.push(item)
    }
    for (;;) {
      space()
      if (at >= end) fail('a value expected')
      skipValue()
      space()
      if (bytes[at] === COMMA) {
        if (at - batch >= BATCH_BYTES) {
          parseBatch(at)
          batch = at + 1
        }
        at++
      } else if (bytes[at] === CLOSE_ARRAY) {
        parseBatch(at)
        at++
        return items
      } else fail("',' or ']' expected")
    }
  }
  const value = (depth: number): unknown => {
    space()
    if (at >= end) fail('a value expected')
    const b = bytes[at]
    if (b === OPEN_ARRAY) {
      at++
      space()
      return pieces()
    }
    if (b !== OPEN_OBJECT || depth >= OPEN_DEPTH) return whole()
    at++
    space()
    const members: Record<string, unknown> = {}
    if (bytes[at] === CLOSE_OBJECT) {
      at++
      return members
    }
    for (;;) {
      space()
      if (bytes[at] !== QUOTE) fail('a member name expected')
      const key = whole() as string
      space()
      if (bytes[at] !== COLON) fail("':' expected")
      at++
      // As JSON.parse: an own member, `__proto__` included (an assignment would set the prototype).
      Object.defineProperty(members, key, { value: value(depth + 1), enumerable: true, writable: true, configurable: true })
      space()
      if (bytes[at] === COMMA) at++
      else if (bytes[at] === CLOSE_OBJECT) {
        at++
        return members
      } else fail("',' or '}' expected")
    }
  }
  const result = value(0)
  space()
  if (at !== end) fail('unexpected text after the JSON')
  return result
}
