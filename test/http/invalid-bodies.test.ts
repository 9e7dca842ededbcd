/**
 * Invalid bodies at any size within the limits: the mock answers 400 with a short list (the same
 * fault in many rows once, with `*` and a count; one finding per wrong member; at most 100, the
 * rest counted), in time linear in the body, and never holds the other clients. Over HTTP against
 * a mock started in this process, so the loop's longest block (`monitorEventLoopDelay`) is the
 * mock's; bodies are serialised before the monitor starts. A save of 8,000 such rows once took 21 s
 * and answered 500 (RangeError: Maximum call stack size exceeded).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { describe, expect, it } from 'vitest'
import { LISTED_VIOLATIONS } from '../../src/document/violations.ts'
import { slicing } from '../../src/http/json-slices.ts'
import { mockPerSuite } from '../helpers/http.ts'

const SAVE = '/ExplorerApi/api/items/save'
/** Far above a loaded machine's worst (tens of ms), far below the seconds the quadratic check took. */
const LONGEST_BLOCK_MS = 500

/** A save of `n` master rows that fit no schema: a text Id, a text TIMESTAMP, a text where Details' array goes. */
function invalidSave(n: number, extra: (i: number) => Record<string, unknown> = () => ({})): string {
  return JSON.stringify({
    Rows: Array.from({ length: n }, (_, i) => ({ Row: { Id: `x${i}`, TIMESTAMP: 'AAAA', Customer: 'C' }, Details: 'none', ...extra(i) })),
  })
}

describe('a save of rows that fit no schema', () => {
  const ctx = mockPerSuite()
  const send = (body: string) => ctx.mock.request('POST', SAVE, { headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json' }, body })

  it('of 8,000 rows answers 400 with each fault once, a * pointer, its count and first row', async () => {
    const reply = await send(invalidSave(8_000))
    expect(reply.status).toBe(400)
    expect(reply.body.code).toBe('VALIDATION')
    expect(reply.body.violations).toEqual([
      { pointer: '/body/Rows/*/Row/Id', keyword: 'type', message: 'must be integer', count: 8_000, first: '/body/Rows/0/Row/Id' },
      { pointer: '/body/Rows/*/Row/TIMESTAMP', keyword: 'type', message: 'must be integer,null', count: 8_000, first: '/body/Rows/0/Row/TIMESTAMP' },
      { pointer: '/body/Rows/*/Details', keyword: 'type', message: 'must be array', count: 8_000, first: '/body/Rows/0/Details' },
    ])
    expect(reply.body).not.toHaveProperty('unlisted')
    expect(reply.body.detail).toBe(
      '/body/Rows/*/Row/Id must be integer (8000 times, first at /body/Rows/0/Row/Id); /body/Rows/*/Row/TIMESTAMP must be integer,null (8000 times, first at /body/Rows/0/Row/TIMESTAMP); /body/Rows/*/Details must be array (8000 times, first at /body/Rows/0/Details)',
    )
    // The TIMESTAMP sent back as read: the hint names the first row's number, and the others.
    expect(reply.body.hint).toMatch(/at \/Rows\/0\/Row\/TIMESTAMP \(and the same in 7999 more rows\)\.$/)
  })

  it('lists at most 100 violations, the telling ones first, and counts the rest', async () => {
    // Each row misses its Row (a missing member, ranked after wrong values) and has a member of its own name.
    const body = JSON.stringify({
      Rows: Array.from({ length: 3_000 }, (_, i) => ({ Details: [], [`Extra${i}`]: 1, ...(i === 2_999 ? { Row: { Id: 'last' } } : {}) })),
    })
    const reply = await send(body)
    expect(reply.status).toBe(400)
    expect(reply.body.violations).toHaveLength(LISTED_VIOLATIONS)
    // The one wrong value, found in the last row, comes first.
    expect(reply.body.violations[0]).toEqual({ pointer: '/body/Rows/2999/Row/Id', keyword: 'type', message: 'must be integer' })
    // Then each row's own unknown member (3,000 distinct), then what is missing: the Row of 2,999 rows (one
    // violation) and the last row's TIMESTAMP.
    expect(reply.body.violations[1]).toEqual({
      pointer: '/body/Rows/0/Extra0',
      keyword: 'additionalProperties',
      message: 'must NOT have additional properties',
    })
    expect(reply.body.violations[99]).toMatchObject({ pointer: '/body/Rows/98/Extra98' })
    expect(reply.body.unlisted).toBe(1 + 3_000 + 2 - LISTED_VIOLATIONS)
    expect(reply.body.detail).toMatch(/\(and 3000 more\)$/)
  })

  it('takes 8 times the rows in at most 10 times the time (medians of three, taken in turns)', async () => {
    const small = invalidSave(8_000)
    const large = invalidSave(64_000)
    const timed = async (body: string): Promise<number> => {
      const start = performance.now()
      expect((await send(body)).status).toBe(400)
      return performance.now() - start
    }
    await timed(small)
    await timed(large)
    // In turns, so a busy spell of a shared machine falls on both sizes alike.
    const n: number[] = []
    const n8: number[] = []
    for (let round = 0; round < 3; round++) {
      n.push(await timed(small))
      n8.push(await timed(large))
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[1] as number
    expect(median(n8) / median(n)).toBeLessThanOrEqual(10)
  })

  it('of 64,000 rows (4.5 MB) holds the other clients no longer than the bound', async () => {
    const body = invalidSave(64_000, (i) => (i % 2 === 0 ? { Odd: i } : {}))
    const loop = monitorEventLoopDelay({ resolution: 10 })
    loop.enable()
    try {
      const reply = await send(body)
      expect(reply.status).toBe(400)
      expect(reply.body.violations[0]).toMatchObject({ pointer: '/body/Rows/*/Row/Id', count: 64_000 })
      expect(reply.body.violations.find((v: { pointer: string }) => v.pointer === '/body/Rows/*/Odd')).toMatchObject({
        count: 32_000,
        first: '/body/Rows/0/Odd',
      })
    } finally {
      loop.disable()
    }
    expect(loop.max / 1e6).toBeLessThan(LONGEST_BLOCK_MS)
  })

  it("is told the same in slices and whole: a row that fits and one that does not, around a slice's edge", async () => {
    // 600 rows (checked a slice of 256 at a time) with faults in rows 255, 256 and 599 only.
    const rows = Array.from({ length: 600 }, (_, i) => ({ Row: { Id: -(i + 1), TIMESTAMP: null, IdRow: null, Customer: `C${i}` }, Details: [] as unknown[] }))
    ;(rows[255] as { Row: Record<string, unknown> }).Row.Id = 'a'
    ;(rows[256] as { Row: Record<string, unknown> }).Row.Id = 'b'
    ;(rows[599] as Record<string, unknown>).Details = 7
    const reply = await send(JSON.stringify({ Rows: rows }))
    expect(reply.status).toBe(400)
    expect(reply.body.violations).toEqual([
      { pointer: '/body/Rows/*/Row/Id', keyword: 'type', message: 'must be integer', count: 2, first: '/body/Rows/255/Row/Id' },
      { pointer: '/body/Rows/599/Details', keyword: 'type', message: 'must be array' },
    ])
  })
})

describe('a delete of many rows, current or older body', () => {
  const ctx = mockPerSuite()
  const send = (body: string) =>
    ctx.mock.request('POST', '/ExplorerApi/api/items/delete', { headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json' }, body })

  it('of 100,000 rows that fit no schema answers 400 with each fault once, told against the body it is closest to, and holds the others no longer than the bound', async () => {
    const body = JSON.stringify([{ RelationKey: null, Rows: Array.from({ length: 100_000 }, (_, i) => ({ Row: { Id: `x${i}`, TIMESTAMP: 5 } })) }])
    const loop = monitorEventLoopDelay({ resolution: 10 })
    loop.enable()
    let reply
    try {
      reply = await send(body)
    } finally {
      loop.disable()
    }
    expect(reply.status).toBe(400)
    expect(reply.body.violations).toEqual([
      { pointer: '/body/0/Rows/*/Row/Id', keyword: 'type', message: 'must be integer', count: 100_000, first: '/body/0/Rows/0/Row/Id' },
    ])
    expect(loop.max / 1e6).toBeLessThan(LONGEST_BLOCK_MS)
  })

  /** The same body checked in slices and whole (slices off): the status, the violations and the warnings of each. */
  async function bothWays(body: string) {
    const answer = async () => {
      const reply = await send(body)
      return { status: reply.status, violations: reply.body.violations, warnings: reply.headers.get('x-mock-warnings') }
    }
    const sliced = await answer()
    const saved = { ...slicing }
    Object.assign(slicing, { checkRows: Infinity })
    try {
      return { sliced, whole: await answer() }
    } finally {
      Object.assign(slicing, saved)
    }
  }

  it('in the older body, faults past the first slice: told at their rows, as checking it whole tells them', async () => {
    const rows: Array<Record<string, unknown>> = Array.from({ length: 1_000 }, (_, i) => ({ Row: { Id: i + 1, TIMESTAMP: 5 }, Details: [] }))
    rows[900] = { Details: [] }
    rows[950] = { Row: { Id: 'x', TIMESTAMP: 5 }, Details: [] }
    const { sliced, whole } = await bothWays(JSON.stringify([{ Rows: rows }]))
    expect(sliced.status).toBe(400)
    expect(sliced.violations).toEqual([
      { pointer: '/body/0/Rows/950/Row/Id', keyword: 'type', message: 'must be integer' },
      { pointer: '/body/0/Rows/900/Row', keyword: 'required', message: "must have required property 'Row'" },
    ])
    expect(sliced).toEqual(whole)
  })

  it('of two groups, one of each shape, with a stray member past the first slice: the same answer in slices as whole', async () => {
    const current = Array.from({ length: 1_000 }, (_, i) => ({ Row: { Id: i + 1, TIMESTAMP: 5 } }))
    const older = Array.from({ length: 1_000 }, (_, i) => ({ Row: { Id: i + 1, TIMESTAMP: 5 }, ...(i === 999 ? { Details: [] } : {}) }))
    const { sliced, whole } = await bothWays(
      JSON.stringify([
        { RelationKey: null, Rows: current },
        { RelationKey: 'OrderLines', Rows: older },
      ]),
    )
    expect(sliced.status).toBe(200)
    expect(sliced.warnings).toContain('UNKNOWN_MEMBER')
    expect(sliced).toEqual(whole)
  })
})

describe('one finding per wrong member', () => {
  const ctx = mockPerSuite()

  it('generaterowlink {"values":["1"],"valueType":"Id"}: one violation for values, one for valueType', async () => {
    const reply = await ctx.mock.post('/ExplorerApi/api/metadata/generaterowlink', ctx.token, { relationKey: null, values: ['1'], valueType: 'Id' })
    expect(reply.status).toBe(400)
    expect(reply.body.violations).toEqual([
      { pointer: '/body/values/0', keyword: 'type', message: 'must be integer' },
      { pointer: '/body/valueType', keyword: 'const', message: 'must be 1' },
    ])
  })

  it('a misspelt member is named beside the missing one, once for every row that has it', async () => {
    const rows = Array.from({ length: 3 }, (_, i) => ({ Row: { Id: -(i + 1), TIMESTAMP: null, IdRow: null, Customer: 'C' }, Detials: [] }))
    const reply = await ctx.mock.post('/ExplorerApi/api/items/save', ctx.token, { Rows: rows })
    expect(reply.status).toBe(400)
    expect(reply.body.violations).toEqual([
      { pointer: '/body/Rows/*/Details', keyword: 'required', message: '`Detials` came where `Details` was expected', count: 3, first: '/body/Rows/0/Details' },
    ])
  })

  it("a value of no alternative's type is told once with every type it may take", async () => {
    const reply = await ctx.mock.post('/ExplorerApi/api/metadata/generaterowlink', ctx.token, { relationKey: null, values: 'all', valueType: 1 })
    expect(reply.status).toBe(400)
    expect(reply.body.violations).toEqual([{ pointer: '/body/values', keyword: 'type', message: 'must be integer or array' }])
  })
})
