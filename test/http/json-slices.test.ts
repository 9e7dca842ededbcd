/**
 * A big body parsed a slice of elements at a time (src/http/json-slices.ts) gives exactly what
 * `JSON.parse` gives, for big arrays at any depth, or declines (undefined: the caller parses the
 * text whole, keeping the error and its position). Slices are made tiny here so that every array
 * of the drawn values is "big". A property over JSON values fast-check draws, and the cases that
 * make the scanner decline, each written out.
 */
import fc from 'fast-check'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { parseArraysInSlices, slicing } from '../../src/http/json-slices.ts'

const DEFAULTS = { ...slicing }
beforeEach(() => Object.assign(slicing, { sliceChars: 4 }))
afterEach(() => Object.assign(slicing, DEFAULTS))

describe('parseArraysInSlices', () => {
  it("gives JSON.parse's value for any object or array whose arrays it cuts, or declines", async () => {
    const containers = fc.oneof(
      fc.array(fc.jsonValue({ maxDepth: 4 }), { maxLength: 12 }),
      fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 8 }),
    )
    await fc.assert(
      fc.asyncProperty(containers, fc.constantFrom(0, 1, 2), async (value, indent) => {
        const text = JSON.stringify(value, null, indent)
        const parsed = await parseArraysInSlices(text)
        if (parsed !== undefined) expect(parsed).toEqual(JSON.parse(text))
      }),
    )
  })

  it('cuts the rows of a save and of a delete, at their depths, and what an element holds comes with it', async () => {
    const save = {
      Rows: Array.from({ length: 40 }, (_, i) => ({
        Row: { Id: -(i + 1), Customer: `C,${i}]` },
        Details: [{ RelationKey: 'OrderLines', Rows: [{ Id: -100 - i }, { Id: -200 - i }] }],
      })),
    }
    expect(await parseArraysInSlices(JSON.stringify(save))).toEqual(save)
    const remove = [
      { RelationKey: null, Rows: Array.from({ length: 40 }, (_, i) => ({ Row: { Id: i + 1, TIMESTAMP: 5 } })) },
      { RelationKey: 'OrderLines', Rows: [{ Row: { Id: 1, TIMESTAMP: 1 } }, { Row: { Id: 2, TIMESTAMP: 2 } }] },
    ]
    expect(await parseArraysInSlices(JSON.stringify(remove))).toEqual(remove)
    // Escaped names and texts holding brackets, commas and quotes.
    const tricky = { 'R\u006fws': [1, 2, 3, 4, 5, 6, 7, 8], 'a"b': ['[,]', '{"x":1}', '\\', '"', ',', ']'] }
    expect(await parseArraysInSlices(JSON.stringify(tricky).replace('Rows', 'R\\u006fws'))).toEqual(tricky)
  })

  it('declines what it does not fully read, so the text is parsed whole with its own error', async () => {
    const declined = [
      '"just a text"',
      '12345678901234567890',
      '[1,2,3,4,5,6,7,8] x',
      '{"Rows":[1,2,3,4,5,6,7,8],"Rows":[9,10,11,12,13,14,15,16]}',
      '{"__proto__":[1,2,3,4,5,6,7,8,9,10]}',
      '{"Rows":[1,2,3,4,5,6,,7,8]}',
      '{"Rows":[1,2,3,4,5,6,7,8,]}',
      '{"Rows":[1,2,3,4,5,6,7,8}',
      '{"Rows":[1,2,3,4,5,6,7,8]',
      '{"a":"unterminated',
    ]
    for (const text of declined) expect(await parseArraysInSlices(text), text).toBeUndefined()
    // A member named twice with one big array: JSON.parse keeps the last, and so does the skeleton.
    expect(await parseArraysInSlices('{"Rows":1,"Rows":[1,2,3,4,5,6,7,8,9]}')).toEqual({ Rows: [1, 2, 3, 4, 5, 6, 7, 8, 9] })
    expect(await parseArraysInSlices('{"Rows":[1,2,3,4,5,6,7,8,9],"Rows":1}')).toBeUndefined()
    // Named again after its big part: the skeleton would fill the first's place, so it is parsed whole.
    expect(await parseArraysInSlices('{"Rows":[1,2,3,4,5,6,7,8,9],"Rows":[]}')).toBeUndefined()
    expect(await parseArraysInSlices('{"query":"a long query text","query":""}')).toBeUndefined()
    expect(await parseArraysInSlices('{"query":"","query":"a long query text"}')).toEqual({ query: 'a long query text' })
  })

  it('reads every object it can in slices: declines none that has a big part, wherever white space stands', async () => {
    // Unique member names (a dictionary's), none `__proto__`, and one big text at least: nothing to decline.
    const names = fc.string({ maxLength: 6 }).filter((name) => name !== '__proto__')
    const objects = fc.dictionary(names, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 6 })
    await fc.assert(
      fc.asyncProperty(
        objects,
        fc.constantFrom(0, 2),
        fc.constantFrom('', ' ', '\n\t '),
        fc.constantFrom('', ' \r\n'),
        async (value, indent, after, before) => {
          const body = { ...value, 'a big text': 'longer than a slice' }
          const text = `${before}${JSON.stringify(body, null, indent)}${after}`
          expect(await parseArraysInSlices(text)).toEqual(JSON.parse(text))
        },
      ),
    )
    // A big part nested at any depth, and an array of texts.
    for (const value of [{ a: { b: [1, { c: 'a long enough text' }] } }, ['a long text', 'another one'], [[1, 2, 3, 4, 5], { d: [6, 7, 8, 9, 10] }]])
      expect(await parseArraysInSlices(JSON.stringify(value))).toEqual(value)
  })

  it('walks a body nested deep in time linear in it, and reads in slices only the big parts 64 levels down or less', async () => {
    // A path copied at every container made this square in the depth (out of memory at 40,000).
    const nested = (depth: number, inner: string) => `{"a":${'['.repeat(depth)}${inner}${']'.repeat(depth)}}`
    expect(await parseArraysInSlices(nested(200_000, ''))).toBeUndefined()
    expect(await parseArraysInSlices(nested(200_000, '"a long text"'))).toBeUndefined()
    const shallow = nested(30, '"a long text"')
    expect(await parseArraysInSlices(shallow)).toEqual(JSON.parse(shallow))
    // Declined at 64 levels and deeper (deeper than any body of the API: json-limits.ts): JSON.parse reads it whole, to the same value.
    for (const depth of [63, 64]) {
      const text = nested(depth, '"a long text"')
      const parsed = await parseArraysInSlices(text)
      if (depth === 63) expect(parsed).toEqual(JSON.parse(text))
      else expect(parsed).toBeUndefined()
    }
    const deepRows = nested(72, '1,2,3,4,5,6,7,8,9')
    expect(await parseArraysInSlices(deepRows)).toBeUndefined()
    expect(await parseArraysInSlices(nested(60, '1,2,3,4,5,6,7,8,9'))).toEqual(JSON.parse(nested(60, '1,2,3,4,5,6,7,8,9')))
  })

  it('gives the event loop turns while it reads: other callbacks run between its slices, each about a slice long', async () => {
    Object.assign(slicing, { sliceChars: 64 })
    for (const value of [{ Rows: Array.from({ length: 2000 }, (_, i) => ({ Id: i })) }, { query: 'a'.repeat(64 * 64) }]) {
      let turns = 0
      let counting = true
      const count = () => {
        turns++
        if (counting) setImmediate(count)
      }
      setImmediate(count)
      expect(await parseArraysInSlices(JSON.stringify(value))).toEqual(value)
      counting = false
      // A slice of 64 characters at a time: dozens of slices, each followed by a turn.
      expect(turns).toBeGreaterThan(20)
    }
    // The rows are parsed in slices of about 64 characters: as many JSON.parse calls as slices, give or take a row.
    const rows = JSON.stringify({ Rows: Array.from({ length: 2000 }, (_, i) => ({ Id: i })) })
    const parse = vi.spyOn(JSON, 'parse')
    try {
      await parseArraysInSlices(rows)
      const slices = parse.mock.calls.filter(([text]) => typeof text === 'string' && text.startsWith('[{"Id":')).length
      expect(slices).toBeGreaterThan(rows.length / 64 / 1.5)
      expect(slices).toBeLessThan(rows.length / 64 + 2)
    } finally {
      parse.mockRestore()
    }
  })

  it('reads a big text a slice at a time, cutting no escape, or declines a text JSON.parse refuses', async () => {
    // Every text, escaped as JSON.stringify escapes it (controls, quotes, lone and paired surrogates, backslashes before a u),
    // at every slice length an escape may straddle.
    const texts = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ unit: fc.constantFrom('\\', 'u', '0', 'A', '"', '\n', '\u0001', 'é', '😀', '\ud800'), maxLength: 40 }),
    )
    await fc.assert(
      fc.asyncProperty(texts, fc.integer({ min: 1, max: 7 }), async (text, sliceChars) => {
        slicing.sliceChars = sliceChars
        for (const json of [JSON.stringify({ query: text }), JSON.stringify([1, text, { Rows: text }])]) {
          const parsed = await parseArraysInSlices(json)
          if (text.length > sliceChars) expect(parsed).toEqual(JSON.parse(json))
          else if (parsed !== undefined) expect(parsed).toEqual(JSON.parse(json))
        }
      }),
    )
    // A \u escape or a surrogate pair straddling each cut, written by hand.
    slicing.sliceChars = 3
    const escaped = String.raw`{"query":"a\u00e9\\\ud83d\ude00b\nc\"d"}`
    expect(await parseArraysInSlices(escaped)).toEqual(JSON.parse(escaped))
    // A control character as it is, or an escape JSON does not know: parsed whole, to say where.
    for (const refused of ['{"query":"abc\tdefgh"}', String.raw`{"query":"abcdefgh\x41"}`, String.raw`{"query":"abcdefgh\u00g1"}`]) {
      expect(() => JSON.parse(refused)).toThrow()
      expect(await parseArraysInSlices(refused), refused).toBeUndefined()
    }
    // Not under __proto__, where an assignment would reach the prototype.
    expect(await parseArraysInSlices('{"__proto__":{"query":"a long query text"}}')).toBeUndefined()
  })
})
