/**
 * The state file's piecewise JSON (src/mock/state-json.ts) writes what JSON.stringify writes and
 * reads what JSON.parse reads, for any JSON value and for text that is not JSON.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseJsonPieces, writeJsonPieces } from '../../src/mock/state-json.ts'
import { runs } from '../helpers/property-runs.ts'

const written = (value: unknown): string => {
  const pieces: string[] = []
  writeJsonPieces(value, (text) => pieces.push(text))
  return pieces.join('')
}

describe('state file JSON, a piece at a time', () => {
  it('writes what JSON.stringify writes and reads back what JSON.parse reads, nested deeper than its pieces too', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), (value) => {
        const text = JSON.stringify(value)
        expect(written(value)).toBe(text)
        const spaced = JSON.stringify(value, null, 2)
        expect(parseJsonPieces(Buffer.from(spaced))).toEqual(JSON.parse(spaced))
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
