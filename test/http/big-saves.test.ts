/**
 * Big saves read and checked in slices (src/http/json-slices.ts, src/http/request-check.ts) answer
 * exactly as the whole path does: the same bodies sent over HTTP to a mock that slices them and to
 * one that does not (`slicing` switched off) get the same status, body and warnings, valid or not
 * (malformed JSON at various places, schema violations deep in the rows, unknown members, 413), and
 * leave the same rows. A save is all or nothing: reads beside a sliced save see none of it or all.
 */
import { afterEach, describe, expect, it, vi } from 'vitest'
import { slicing } from '../../src/http/json-slices.ts'
import { startTestMock, type TestClient } from '../helpers/http.ts'
import { pair, type Pair } from './sliced-pair.ts'

const SAVE = '/ExplorerApi/api/items/save'
const DEFAULTS = { ...slicing }
const OFF = { bodyChars: Infinity, sliceChars: Infinity, checkRows: Infinity, sliceRows: Infinity }
/** Small slices, so a body of a few thousand rows is cut into many. */
const SMALL = { bodyChars: 1000, sliceChars: 8192, checkRows: 100, sliceRows: 64 }

const order = (i: number, lines = 2) => ({
  Row: { Id: -(i + 1), IdRow: null, TIMESTAMP: null, Customer: `Customer "${i}" \\ é ${'x'.repeat(i % 7)}`, Amount: i + 0.5, Status: 'New' },
  Details:
    lines === 0
      ? []
      : [
          {
            RelationKey: 'OrderLines',
            Rows: Array.from({ length: lines }, (_, j) => ({
              Id: -(i * lines + j + 1),
              IdRow: null,
              TIMESTAMP: null,
              Product: `Line ${j}`,
              Quantity: j + 1,
              UnitPrice: 1.5,
            })),
          },
        ],
})
const orders = (count: number, lines = 2) => Array.from({ length: count }, (_, i) => order(i, lines))

interface Answer {
  status: number
  warnings: string | null
  body: unknown
}

async function send(mock: TestClient, token: string, body: string): Promise<Answer> {
  const reply = await mock.request('POST', SAVE, { body, headers: { ...mock.dataHeaders(token), 'content-type': 'application/json' }, unchecked: true })
  // Row links name the mock's own address: the one thing two mocks answer differently.
  return { status: reply.status, warnings: reply.headers.get('x-mock-warnings'), body: JSON.parse(JSON.stringify(reply.body).replaceAll(mock.url, 'MOCK')) }
}

afterEach(() => Object.assign(slicing, DEFAULTS))

/** The same body to both mocks, sliced with `settings` and whole; both answers. */
async function both(ctx: Pair, body: string, settings: typeof SMALL = SMALL): Promise<{ sliced: Answer; whole: Answer }> {
  Object.assign(slicing, settings)
  const sliced = await send(ctx.sliced, ctx.tokens.sliced, body)
  Object.assign(slicing, OFF)
  const whole = await send(ctx.whole, ctx.tokens.whole, body)
  return { sliced, whole }
}

describe('a big save read in slices answers as the whole path does', () => {
  const ctx = pair()
  const rows = orders(3000)
  const valid = JSON.stringify({ Rows: rows })

  it('saves the same rows, with the same answer, and both mocks hold the same data after', async () => {
    // The sliced mock parses the rows a slice at a time (some 75 slices of 8 KB here), the other in one go.
    const parse = vi.spyOn(JSON, 'parse')
    const { sliced, whole } = await both(ctx, valid)
    const slices = parse.mock.calls.filter(([text]) => typeof text === 'string' && text.startsWith('[{"Row":')).length
    parse.mockRestore()
    expect(slices).toBeGreaterThan(50)
    expect(sliced.status).toBe(200)
    expect((sliced.body as { IsSaveSuccessfully: boolean; CreatedItems: number }).IsSaveSuccessfully).toBe(true)
    expect((sliced.body as { CreatedItems: number }).CreatedItems).toBe(9000)
    expect(sliced).toEqual(whole)
    const read = async (mock: TestClient, token: string) =>
      (
        await mock.request('POST', '/ExplorerApi/api/items', {
          json: { query: '$top=5000&$orderby=Id desc' },
          headers: mock.dataHeaders(token),
          unchecked: true,
        })
      ).body
    const [a, b] = [await read(ctx.sliced, ctx.tokens.sliced), await read(ctx.whole, ctx.tokens.whole)]
    expect(a).toHaveLength(3025)
    expect(a).toEqual(b)
  })

  it.each([
    ['a stray character at the start', (text: string) => `{x${text.slice(1)}`],
    ['two commas between rows, in the middle', (text: string) => text.replace('},{"Row":{"Id":-1501,', '},,{"Row":{"Id":-1501,')],
    ['a bad escape deep in a row', (text: string) => text.replace('"Customer":"Customer \\"2000\\"', '"Customer":"Customer \\q2000')],
    ['a body cut short', (text: string) => text.slice(0, -5)],
    ['something after the object', (text: string) => `${text} x`],
    ['a comma after the last row', (text: string) => `${text.slice(0, -2)},]}`],
    ['a missing colon after a member name in a row', (text: string) => text.replace('"Amount":2500.5', '"Amount" 2500.5')],
  ])('refuses malformed JSON (%s) with the same 400, position included', async (_name, spoil) => {
    const body = spoil(valid)
    expect(body).not.toBe(valid)
    expect(() => JSON.parse(body)).toThrow()
    const { sliced, whole } = await both(ctx, body)
    expect(sliced.status).toBe(400)
    expect((sliced.body as { code?: string }).code ?? JSON.stringify(sliced.body)).toMatch(/BAD_JSON/)
    expect(sliced).toEqual(whole)
  })

  it('decodes a character of four bytes that a slice of bytes cuts, and refuses a byte that is not UTF-8 with the same 400, offset included', async () => {
    // The emoji's bytes straddle the first cut (SMALL.sliceChars bytes in), inside a long Customer text, so the body stays valid.
    const long = orders(3000)
    long[20]!.Row.Customer = 'x'.repeat(20_000)
    const bytes = Buffer.from(JSON.stringify({ Rows: long }))
    const at = SMALL.sliceChars - 2
    expect(bytes.subarray(at - 10, at + 10).toString()).toBe('x'.repeat(20))
    const emoji = Buffer.concat([bytes.subarray(0, at), Buffer.from('😀'), bytes.subarray(at)])
    const parse = vi.spyOn(JSON, 'parse')
    const decoded = await both(ctx, emoji as unknown as string)
    // Decoded in slices (a slice that cut the emoji would not be UTF-8, and the body would be read whole): parsed in slices of rows.
    const slices = parse.mock.calls.filter(([text]) => typeof text === 'string' && text.startsWith('[{"Row":')).length
    parse.mockRestore()
    expect(slices).toBeGreaterThan(10)
    expect(decoded.sliced.status).toBe(200)
    expect(decoded.sliced).toEqual(decoded.whole)
    // A lone continuation byte two slices further: refused saying where, as the whole body read says it.
    const broken = Buffer.concat([emoji.subarray(0, 3 * SMALL.sliceChars + 5), Buffer.from([0x80]), emoji.subarray(3 * SMALL.sliceChars + 5)])
    const refused = await both(ctx, broken as unknown as string)
    expect(refused.sliced.status).toBe(400)
    expect(JSON.stringify(refused.sliced.body)).toMatch(/not UTF-8/)
    expect(refused.sliced).toEqual(refused.whole)
  })

  it.each([
    ['a wrong type deep in the rows', (text: string) => text.replace('"Amount":2500.5', '"Amount":"2500.5"')],
    [
      'a missing Row deep in the rows',
      (text: string) =>
        text.replace('{"Row":{"Id":-2701,"IdRow":null,"TIMESTAMP":null,"Customer":"Customer \\"2700\\" \\\\ é xxxxx","Amount":2700.5,"Status":"New"},', '{'),
    ],
    ['an unknown member in a row', (text: string) => text.replace('"Amount":2800.5', '"Amount":2800.5,"Colour":"red"')],
    ['an unknown member at the top', (text: string) => `{"Extra":1,${text.slice(1)}`],
    ['Rows that are not an array, after a long member', () => JSON.stringify({ Note: 'n'.repeat(5000), Rows: 5 })],
    ['no rows at all, after a long member', () => JSON.stringify({ Note: 'n'.repeat(5000), Rows: [] })],
    ['Rows twice (the last one counts)', (text: string) => `${text.slice(0, -1)},"Rows":[${JSON.stringify(order(9999))}]}`],
    ['an array at the top', (text: string) => `[${text}]`],
    [
      'Details that are not an array, deep in the rows',
      (text: string) => text.replace('"Amount":2600.5,"Status":"New"},"Details":[', '"Amount":2600.5,"Status":"New"},"Details":7,"Was":['),
    ],
    ['Rows spelled with an escape', (text: string) => text.replace('"Rows"', '"R\\u006fws"')],
  ])('answers %s the same way', async (_name, change) => {
    const body = change(valid)
    expect(body).not.toBe(valid)
    const { sliced, whole } = await both(ctx, body)
    expect(sliced).toEqual(whole)
  })
})

describe('a big save at the default slices', () => {
  const ctx = pair()

  it('refuses a violation in row 40,000 with the same pointer, and changes nothing', async () => {
    const rows = orders(45_000, 0)
    ;(rows[40_000] as unknown as { Details: unknown }).Details = 'none'
    const body = JSON.stringify({ Rows: rows })
    expect(body.length).toBeGreaterThan(DEFAULTS.bodyChars)
    const { sliced, whole } = await both(ctx, body, DEFAULTS)
    expect(sliced.status).toBe(400)
    expect(JSON.stringify(sliced.body)).toContain('/Rows/40000/Details')
    expect(sliced).toEqual(whole)
    const count = (await ctx.sliced.items(ctx.tokens.sliced, '$inlinecount=allpages&$top=1')).body
    expect(count).toEqual((await ctx.whole.items(ctx.tokens.whole, '$inlinecount=allpages&$top=1')).body)
  }, 120_000)

  it('is all or nothing for reads beside it: each read sees none of its rows or all of them', async () => {
    const body = JSON.stringify({ Rows: orders(20_000) })
    const before = (await ctx.sliced.items(ctx.tokens.sliced, '$inlinecount=allpages&$top=0')).body
    let saved = false
    const saving = send(ctx.sliced, ctx.tokens.sliced, body).then((answer) => {
      saved = true
      return answer
    })
    const seen: unknown[] = []
    while (!saved) seen.push((await ctx.sliced.items(ctx.tokens.sliced, '$inlinecount=allpages&$top=0')).body)
    const answer = await saving
    expect(answer.status).toBe(200)
    const after = (await ctx.sliced.items(ctx.tokens.sliced, '$inlinecount=allpages&$top=0')).body
    expect(after).not.toEqual(before)
    for (const read of seen) expect([before, after]).toContainEqual(read)
  }, 120_000)
})

describe('a save over the body limit', () => {
  it('answers 413 whether it would be sliced or not', async () => {
    const sliced = await startTestMock({ bodyLimit: 1024 * 1024 })
    const whole = await startTestMock({ bodyLimit: 1024 * 1024 })
    try {
      const body = JSON.stringify({ Rows: orders(6000) })
      expect(body.length).toBeGreaterThan(1024 * 1024)
      Object.assign(slicing, SMALL)
      const a = await send(sliced, await sliced.signIn(), body)
      Object.assign(slicing, OFF)
      const b = await send(whole, await whole.signIn(), body)
      expect(a.status).toBe(413)
      expect(a).toEqual(b)
    } finally {
      await sliced.close()
      await whole.close()
    }
  })
})
