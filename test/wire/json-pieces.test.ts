/**
 * The JSON state file of earlier versions, read a piece at a time (src/wire/json-pieces.ts): it
 * reads what JSON.parse reads, for any JSON value and for text that is not JSON.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseJsonPieces } from '../../src/wire/json-pieces.ts'
import { runs } from '../helpers/property-runs.ts'

describe('state file JSON, a piece at a time', () => {
  it('reads back what JSON.parse reads, written compact or spaced, nested deeper than its pieces too', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
        for (const text of [JSON.stringify(value), JSON.stringify(value, null, 2)]) expect(parseJsonPieces(Buffer.from(text))).toEqual(JSON.parse(text))
      }),
      { numRuns: runs(300) },
    )
  })

  it('keeps a member named __proto__ as an own member, as JSON.parse does', () => {
    const parsed = parseJsonPieces(Buffer.from('{"a":{"__proto__":{"x":1}}}')) as { a: object }
    expect(Object.getPrototypeOf(parsed.a)).toBe(Object.prototype)
    expect(Object.keys(parsed.a)).toEqual(['__proto__'])
  })

  it.each(['', '{', '{"a":1', '{"a" 1}', '[1,,2]', '{"a":1}x', '"open', '{"a":[1,2}'])('refuses %j as JSON.parse does', (text) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError)
    expect(() => parseJsonPieces(Buffer.from(text))).toThrow(SyntaxError)
  })
})
