/**
 * A huge `query` is refused at the first limit its text reaches, reading no further: the `$filter`
 * limits (nesting, conditions) apply while it is tokenised and the `$orderby` item limit while it is
 * split, so one such request does not hold up the mock for everyone else. Sizes as sent in the
 * hardening issue, under the 60 MB body limit; how fast is measured by the benchmarks, not here. A
 * long text that is read whole (millions of options, megabytes of `+`) is read in slices: the loop's
 * longest block is read from `monitorEventLoopDelay` in the mock's own process (the test's).
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MAX_FILTER_NESTING } from '../../src/store/filter-parser.ts'
import { MAX_ORDERBY_ITEMS } from '../../src/wire/query-string.ts'
import { mockPerSuite, type Reply } from '../helpers/http.ts'

describe('huge $filter and $orderby texts', () => {
  const ctx = mockPerSuite()

  /** Sends a Get Items body given as text with a health call beside it; both answers, and which came first. */
  async function withHealth(body: string): Promise<{ big: Reply; health: Reply; order: string[] }> {
    const order: string[] = []
    const bigPending = ctx.mock
      .request('POST', '/ExplorerApi/api/items', { body, headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json' } })
      .then((reply) => {
        order.push('big')
        return reply
      })
    const healthPending = ctx.mock.request('GET', '/__mock/health', { unchecked: true }).then((reply) => {
      order.push('health')
      return reply
    })
    const [big, health] = await Promise.all([bigPending, healthPending])
    return { big, health, order }
  }

  it('refuses 50 MB of ( at the nesting limit, before reading the character that ends it, while health answers', async () => {
    // A character no token starts with at the very end: a filter tokenised whole is refused for it instead.
    const body = `{"query":"$filter=${'('.repeat(50 * 1024 * 1024)}$"}`
    const { big, health, order } = await withHealth(body)
    expect(big.status).toBe(400)
    expect(big.body.code).toBe('BAD_FILTER')
    expect(big.body.detail).toBe(`$filter, character ${MAX_FILTER_NESTING + 1}: parentheses and 'not' nest more than ${MAX_FILTER_NESTING} deep`)
    expect(health.status).toBe(200)
    expect(order).toEqual(['health', 'big'])
  })

  it('refuses 50 MB of conditions at the condition limit, quoting no more than a short piece of the text', async () => {
    const body = `{"query":"$filter=${'Amount gt 1 and '.repeat((50 * 1024 * 1024) / 16)}$"}`
    const { big } = await withHealth(body)
    expect(big.status).toBe(400)
    expect(big.body.code).toBe('BAD_FILTER')
    expect(big.body.detail).toMatch(/^\$filter, character \d+: more than 256 conditions joined by 'and' \/ 'or'$/)
    const unknown = await ctx.mock.items(ctx.token, `$filter=${'A'.repeat(1024 * 1024)} eq 1`)
    expect(unknown.body.code).toBe('UNKNOWN_FIELD')
    expect(unknown.raw.length).toBeLessThan(2048)
  })

  it(`refuses a 12 MB $orderby of 4 million items past ${MAX_ORDERBY_ITEMS} items, while health answers`, async () => {
    const items = new Array<string>(4_000_000).fill('Id')
    const body = `{"query":"$orderby=${items.join(',')}"}`
    expect(body.length).toBeGreaterThan(12_000_000)
    const { big, health, order } = await withHealth(body)
    expect(big.status).toBe(400)
    expect(big.body.code).toBe('BAD_QUERY')
    expect(big.body.detail).toBe(`$orderby names more than ${MAX_ORDERBY_ITEMS} items`)
    expect(health.status).toBe(200)
    expect(order).toEqual(['health', 'big'])
    // The limit itself is an order a client may send.
    const most = await ctx.mock.items(ctx.token, `$orderby=${items.slice(0, MAX_ORDERBY_ITEMS).join(',')}&$top=1`)
    expect(most.status).toBe(200)
  })
})

describe('a long query text is read in slices: other clients are answered meanwhile', () => {
  const ctx = mockPerSuite()
  /** Far above this machine's worst (tens of ms), far below the seconds these texts held the mock. */
  const LONGEST_BLOCK_MS = 500
  let loop: IntervalHistogram
  beforeEach(() => {
    loop = monitorEventLoopDelay({ resolution: 10 })
    loop.enable()
  })
  afterEach(() => loop.disable())
  const items = (query: string) => ctx.mock.request('POST', '/ExplorerApi/api/items', { json: { query }, headers: ctx.mock.dataHeaders(ctx.token) })

  it('two million unknown options: answered with the warning, the loop free', async () => {
    const answer = await items(`${'a&'.repeat(2 * 1024 * 1024)}$top=1`)
    expect(answer.status).toBe(200)
    expect(answer.body).toHaveLength(1)
    expect(answer.headers.get('x-mock-warnings')).toContain('UNSUPPORTED_QUERY_OPTION')
    expect(loop.max / 1e6).toBeLessThan(LONGEST_BLOCK_MS)
  })

  it('a quoted $filter text of three million doubled quotes: answered, the loop free', async () => {
    const answer = await items(`$top=1&$filter=Customer eq '${"''x".repeat(3_000_000)}' or Amount ge 0`)
    expect(answer.status).toBe(200)
    expect(answer.body).toHaveLength(1)
    expect(loop.max / 1e6).toBeLessThan(LONGEST_BLOCK_MS)
  })

  it('4 MB of + in a quoted $filter text (each a space): answered, the loop free', async () => {
    const answer = await items(`$top=1&$filter=Customer eq '${'+'.repeat(4 * 1024 * 1024)}' or Amount ge 0`)
    expect(answer.status).toBe(200)
    expect(answer.body).toHaveLength(1)
    expect(loop.max / 1e6).toBeLessThan(LONGEST_BLOCK_MS)
  })
})
