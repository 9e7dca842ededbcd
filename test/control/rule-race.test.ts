/**
 * Two requests racing for a rule of one use (`times: 1`), over HTTP against a started mock: the
 * rules' `decide` (src/rules/decide.ts) and the commit of its updates happen in one step, so exactly
 * one request takes the rule and the other meets what comes after it, for answer rules (matched at
 * once, or in slices with turns of the event loop between them) and for fault rules.
 */
import { beforeEach, describe, expect, it } from 'vitest'
import { mockPerSuite, type Reply } from '../helpers/http.ts'

const ITEMS = '/ExplorerApi/api/items'

describe('two requests racing for a rule of one use', () => {
  const ctx = mockPerSuite()
  beforeEach(async () => {
    await ctx.mock.request('POST', '/__mock/reset')
  })

  const control = (method: string, path: string, json?: unknown): Promise<Reply> =>
    ctx.mock.request(method, path, json === undefined ? { unchecked: true } : { json, unchecked: true })
  const query = (text: string): Promise<Reply> =>
    ctx.mock.request('POST', ITEMS, { headers: ctx.mock.dataHeaders(ctx.token), json: { query: text }, unchecked: true })
  /** The journal's queries, by status, with the rule each names. */
  const journaled = async () =>
    ((await control('GET', '/__mock/requests?operationId=queryItems')).body.entries as Array<{ status: number; stub: number | null; fault: string | null }>)
      .map(({ status, stub, fault }) => ({ status, stub, fault }))
      .sort((a, b) => a.status - b.status)

  it("an answer rule matched at once: exactly one takes it, the other gets the operation's own answer", async () => {
    const rule = (await control('POST', '/__mock/stubs', { operationId: 'queryItems', times: 1, answer: { status: 503, body: { gone: true } } })).body
    const answers = await Promise.all([query('$top=1'), query('$top=1')])
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 503])
    expect((await control('GET', '/__mock/stubs')).body.rules).toEqual([expect.objectContaining({ id: rule.id, hits: 1, remaining: 0 })])
    expect(await journaled()).toEqual([
      { status: 200, stub: null, fault: null },
      { status: 503, stub: rule.id, fault: null },
    ])
  })

  it('an answer rule with a body pattern, both matches long enough to pause: exactly one takes it', async () => {
    // Rules tried first that do not match make each match run over several slices, so the two
    // requests' matches take turns; both end with the one-use rule matched.
    for (let i = 0; i < 20; i++)
      expect(
        (await control('POST', '/__mock/stubs', { operationId: 'queryItems', match: { body: { query: { $regex: `never-${i}$` } } }, answer: { body: [] } }))
          .status,
      ).toBe(201)
    const rule = (
      await control('POST', '/__mock/stubs', {
        operationId: 'queryItems',
        priority: 8,
        times: 1,
        match: { body: { query: { $contains: 'aaaa' } } },
        answer: { status: 503, body: { gone: true } },
      })
    ).body
    const text = `$top=1&$filter=Customer eq '${'a'.repeat(1 << 19)}'`
    const answers = await Promise.all([query(text), query(text)])
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 503])
    const listed = (await control('GET', '/__mock/stubs')).body.rules as Array<{ id: number; hits: number; remaining: number | null }>
    expect(listed.find((held) => held.id === rule.id)).toMatchObject({ hits: 1, remaining: 0 })
    expect(await journaled()).toEqual([
      { status: 200, stub: null, fault: null },
      { status: 503, stub: rule.id, fault: null },
    ])
  })

  it('a fault rule: exactly one request meets it on arrival, the other is answered', async () => {
    expect((await control('POST', '/__mock/faults', { rules: [{ operationId: 'queryItems', status: 503, times: 1 }] })).status).toBe(200)
    const answers = await Promise.all([query('$top=1'), query('$top=1')])
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 503])
    // Used up, a fault rule leaves the list.
    expect((await control('GET', '/__mock/faults')).body.rules).toEqual([])
    expect(await journaled()).toEqual([
      { status: 200, stub: null, fault: null },
      { status: 503, stub: null, fault: 'status' },
    ])
  })

  it('a fault rule that delays, then an answer rule of one use: each taken once, their delays apart', async () => {
    expect((await control('POST', '/__mock/faults', { rules: [{ operationId: 'queryItems', latencyMs: 5, times: 1 }] })).status).toBe(200)
    const rule = (await control('POST', '/__mock/stubs', { operationId: 'queryItems', times: 1, delayMs: 5, answer: { status: 503, body: { gone: true } } }))
      .body
    const answers = await Promise.all([query('$top=1'), query('$top=1')])
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 503])
    expect((await control('GET', '/__mock/stubs')).body.rules).toEqual([expect.objectContaining({ id: rule.id, hits: 1, remaining: 0 })])
    const entries = await journaled()
    expect(entries.map((entry) => entry.stub)).toEqual([null, rule.id])
    // The fault delayed one request of the two, whichever the answer rule took.
    expect(entries.filter((entry) => entry.fault === 'latency')).toHaveLength(1)
  })
})
