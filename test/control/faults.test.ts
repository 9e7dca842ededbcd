/**
 * POST/GET/DELETE /__mock/faults over HTTP: latency, error status, dropped and cut-after-commit
 * connections, limited and probabilistic rules. Timing is asserted from below only.
 */
import { performance } from 'node:perf_hooks'
import { beforeEach, describe, expect, it } from 'vitest'
import { mockPerSuite, type Reply } from '../helpers/http.ts'
import { ProblemError } from '../../src/errors.ts'
import { customerChange, rawPost, readMaster } from './support.ts'

describe('/__mock/faults', () => {
  const ctx = mockPerSuite()
  beforeEach(async () => {
    await ctx.mock.request('POST', '/__mock/reset')
  })

  const setFaults = (body: unknown) => ctx.mock.request('POST', '/__mock/faults', { json: body })

  it('adds latency to the named operation', async () => {
    const latencyMs = 300
    expect((await setFaults({ rules: [{ operationId: 'queryItems', latencyMs }] })).status).toBe(200)
    const started = performance.now()
    const reply = await ctx.mock.items(ctx.token, '$top=1')
    const elapsed = performance.now() - started
    expect(reply.status).toBe(200)
    // Node timers may fire up to a millisecond early against performance.now().
    expect(elapsed).toBeGreaterThanOrEqual(latencyMs - 1)
    const entry = (await ctx.mock.request('GET', '/__mock/requests?operationId=queryItems')).body.entries[0]
    expect(entry.fault).toBe('latency')
    expect(entry.durationMs).toBeGreaterThanOrEqual(latencyMs - 1)
  })

  it('fails with the status of the rule, then no more once cleared', async () => {
    await setFaults({ rules: [{ operationId: 'queryItems', status: 503 }] })
    for (let i = 0; i < 2; i++) {
      const failed = await ctx.mock.request('POST', '/ExplorerApi/api/items', {
        json: { query: '' },
        headers: ctx.mock.dataHeaders(ctx.token),
        unchecked: true,
      })
      expect(failed.status).toBe(503)
      expect(failed.contentType).toMatch(/^application\/problem\+json/)
      expect(failed.body).toMatchObject({ code: 'INJECTED_FAULT', status: 503 })
    }
    // Other operations are untouched.
    expect(
      (
        await ctx.mock.request('GET', `/ExplorerApi/api/storage/5e7d0c1a-1111-4111-8111-000000000001/identity/IdRow/next/1`, {
          headers: ctx.mock.dataHeaders(ctx.token),
        })
      ).status,
    ).toBe(200)
    const listed = await ctx.mock.request('GET', '/__mock/faults')
    expect(listed.body.rules[0]).toMatchObject({ id: 1, operationId: 'queryItems', status: 503, applied: 2, remaining: null })

    expect((await ctx.mock.request('DELETE', '/__mock/faults')).body).toEqual({ cleared: 1 })
    expect((await ctx.mock.items(ctx.token, '$top=1')).status).toBe(200)
  })

  it('applies a rule only `times` times, then removes it', async () => {
    expect((await setFaults({ rules: [{ operationId: '*', status: 502, times: 2 }] })).status).toBe(200)
    const statuses: number[] = []
    for (let i = 0; i < 4; i++)
      statuses.push(
        (await ctx.mock.request('POST', '/ExplorerApi/api/items', { json: { query: '' }, headers: ctx.mock.dataHeaders(ctx.token), unchecked: true })).status,
      )
    expect(statuses).toEqual([502, 502, 200, 200])
    expect((await ctx.mock.request('GET', '/__mock/faults')).body.rules).toEqual([])
  })

  it('drops the connection: the client sees a socket error and the request is not handled', async () => {
    await setFaults({ rules: [{ operationId: 'saveItems', drop: true, times: 1 }] })
    const row = await readMaster(ctx.mock, ctx.token, 7)
    await expect(rawPost(ctx.mock, '/ExplorerApi/api/items/save', ctx.mock.dataHeaders(ctx.token), customerChange(row, 'Dropped'))).rejects.toThrow()
    expect((await readMaster(ctx.mock, ctx.token, 7)).Customer).toBe(row.Customer)
    const entry = (await ctx.mock.request('GET', '/__mock/requests?operationId=saveItems')).body.entries[0]
    expect(entry).toMatchObject({ status: null, fault: 'drop' })
  })

  it('commitThenDrop: the client sees an error, but a re-read shows the write applied', async () => {
    await setFaults({ rules: [{ operationId: 'saveItems', commitThenDrop: true, times: 1 }] })
    const row = await readMaster(ctx.mock, ctx.token, 8)
    await expect(rawPost(ctx.mock, '/ExplorerApi/api/items/save', ctx.mock.dataHeaders(ctx.token), customerChange(row, 'Committed'))).rejects.toThrow()
    const after = await readMaster(ctx.mock, ctx.token, 8)
    expect(after.Customer).toBe('Committed')
    // The client's blind retry now meets a stale TIMESTAMP: the reason clients must re-read.
    const retry = await ctx.mock.post('/ExplorerApi/api/items/save', ctx.token, customerChange(row, 'Committed'))
    expect(retry.body.IsSaveSuccessfully).toBe(false)
    const entries = (await ctx.mock.request('GET', '/__mock/requests?operationId=saveItems')).body.entries
    expect(entries.map((e: { status: number | null; fault: string | null }) => [e.status, e.fault])).toEqual([
      [null, 'commitThenDrop'],
      [200, null],
    ])
  })

  it('applies a rate from a seed, the same way for the same seed', async () => {
    const run = async (): Promise<number[]> => {
      await setFaults({ seed: 42, rules: [{ operationId: 'queryItems', status: 500, rate: 0.5 }] })
      const statuses: number[] = []
      for (let i = 0; i < 20; i++)
        statuses.push(
          (await ctx.mock.request('POST', '/ExplorerApi/api/items', { json: { query: '$top=1' }, headers: ctx.mock.dataHeaders(ctx.token), unchecked: true }))
            .status,
        )
      return statuses
    }
    const first = await run()
    expect(first).toContain(500)
    expect(first).toContain(200)
    expect(await run()).toEqual(first)
    expect((await ctx.mock.request('GET', '/__mock/faults')).body.seed).toBe(42)
  })

  it('never applies to the control plane, even with *', async () => {
    await setFaults({ rules: [{ operationId: '*', status: 503 }] })
    expect((await ctx.mock.request('GET', '/__mock/faults')).status).toBe(200)
    expect((await ctx.mock.request('DELETE', '/__mock/faults')).status).toBe(200)
  })

  it('refuses bad rules with 400 naming the field, and keeps the rules it had', async () => {
    await setFaults({ rules: [{ operationId: 'runAction', latencyMs: 1 }] })
    const cases: Array<[unknown, string]> = [
      [{ rules: [{ operationId: 'saveItem', status: 503 }] }, '/body/rules/0/operationId'],
      [{ rules: [{ operationId: 'saveItems', status: 503, drop: true }] }, '/body/rules/0/drop'],
      [{ rules: [{ operationId: 'saveItems', status: 302 }] }, '/body/rules/0/status'],
      [{ rules: [{ operationId: 'saveItems', status: 503, rate: 1.5 }] }, '/body/rules/0/rate'],
      [{ rules: [{ operationId: 'saveItems' }] }, '/body/rules/0'],
      [{ rules: [{ operationId: 'saveItems', status: 503, colour: 'red' }] }, '/body/rules/0/colour'],
      [{ rule: [] }, '/body/rules'],
    ]
    for (const [body, pointer] of cases) {
      const reply = await setFaults(body)
      expect(reply.status, JSON.stringify(body)).toBe(400)
      expect(
        reply.body.violations.map((v: { pointer: string }) => v.pointer),
        JSON.stringify(body),
      ).toContain(pointer)
    }
    expect((await ctx.mock.request('GET', '/__mock/faults')).body.rules.map((r: { operationId: string }) => r.operationId)).toEqual(['runAction'])
  })

  it('answers a bare array of rules with the body to send instead', async () => {
    const reply = await setFaults([{ operationId: 'saveItems', status: 503 }])
    expect(reply.status).toBe(400)
    expect(reply.body.violations).toEqual([{ pointer: '/body', keyword: 'type', message: 'must be object' }])
    expect(reply.body.hint).toBe(
      'The fault rules go in an object: send { "rules": [...] } (and "seed" for rates drawn the same way each run), not a bare array.',
    )
    // Another body that is no object gets no such hint.
    expect((await setFaults('rules')).body.hint).toBeUndefined()
  })
  const query = (headers: Record<string, string> = {}): Promise<Reply> =>
    ctx.mock.request('POST', '/ExplorerApi/api/items', {
      json: { query: '$top=1' },
      headers: { ...ctx.mock.dataHeaders(ctx.token), ...headers },
      unchecked: true,
    })
  const pointers = (reply: Reply): string[] => reply.body.violations.map((v: { pointer: string }) => v.pointer)

  it("answers a gateway status on any operation with INFRASTRUCTURE_ANSWER and the rule's headers, strict request or not", async () => {
    expect((await setFaults({ rules: [{ operationId: 'queryItems', status: 503, headers: { 'Retry-After': '7', 'X-Served-By': 'lb-2' } }] })).status).toBe(200)
    for (const strict of ['0', '1']) {
      const reply = await query({ 'X-Mock-Strict': strict })
      expect(reply.status).toBe(503)
      expect(reply.body).toMatchObject({ code: 'INJECTED_FAULT', status: 503 })
      expect(reply.contentType).toMatch(/^application\/problem\+json/)
      expect(reply.headers.get('retry-after')).toBe('7')
      expect(reply.headers.get('x-served-by')).toBe('lb-2')
      expect(reply.headers.get('x-mock-warnings')).toBe('INFRASTRUCTURE_ANSWER')
    }
    const entry = ctx.mock.mock.requests({ operationId: 'queryItems' }).at(-1)
    expect(entry).toMatchObject({ status: 503, fault: 'status', warnings: [{ code: 'INFRASTRUCTURE_ANSWER', message: expect.stringContaining('503') }] })
    // Listed with its headers.
    expect((await ctx.mock.request('GET', '/__mock/faults')).body.rules[0]).toMatchObject({ status: 503, headers: { 'Retry-After': '7' } })
  })

  it('answers a status the operation documents with no warning, and another only with offDocument (OFF_DOCUMENT_ANSWER)', async () => {
    await setFaults({ rules: [{ operationId: 'queryItems', status: 401, times: 1 }] })
    const documented = await query()
    expect(documented.status).toBe(401)
    expect(documented.headers.get('x-mock-warnings')).toBeNull()

    const refused = await setFaults({ rules: [{ operationId: 'saveItems', status: 418 }] })
    expect(refused.status).toBe(400)
    expect(refused.body.violations).toEqual([expect.objectContaining({ pointer: '/body/rules/0/status', keyword: 'offDocument' })])
    expect(refused.body.detail).toContain('offDocument')

    expect((await setFaults({ rules: [{ operationId: 'queryItems', status: 429, offDocument: true, headers: { 'Retry-After': '1' } }] })).status).toBe(200)
    const off = await query()
    expect(off.status).toBe(429)
    expect(off.headers.get('x-mock-warnings')).toBe('OFF_DOCUMENT_ANSWER')
    expect(off.headers.get('retry-after')).toBe('1')
    // A request that asks for strict mode gets no answer the description does not promise.
    const strict = await query({ 'X-Mock-Strict': '1' })
    expect(strict.status).toBe(400)
    expect(strict.body).toMatchObject({ code: 'STRICT_MODE', warning: 'OFF_DOCUMENT_ANSWER' })
    expect(strict.headers.get('retry-after')).toBeNull()
  })

  it('takes only gateway statuses, drop, commitThenDrop and latency for every operation (*)', async () => {
    for (const status of [429, 401]) {
      for (const offDocument of [false, true]) {
        const reply = await setFaults({ rules: [{ operationId: '*', status, offDocument }] })
        expect(reply.status, `${status} ${offDocument}`).toBe(400)
        expect(reply.body.violations).toEqual([expect.objectContaining({ pointer: '/body/rules/0/status', keyword: 'everyOperation' })])
      }
    }
    const accepted = await setFaults({
      rules: [
        { operationId: '*', status: 504, times: 1 },
        { operationId: '*', drop: true, rate: 0 },
        { operationId: '*', commitThenDrop: true, rate: 0 },
        { operationId: '*', latencyMs: 1 },
      ],
    })
    expect(accepted.status).toBe(200)
    expect((await query()).status).toBe(504)
  })

  it("refuses headers that are not valid HTTP, that the fault's problem or the connection owns, or that go with no status", async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ status: 503, headers: { 'Retry-After': '1\r\nSet-Cookie: a=1' } }, '/body/rules/0/headers/Retry-After'],
      [{ status: 503, headers: { 'Retry After': '1' } }, '/body/rules/0/headers/Retry After'],
      [{ status: 503, headers: { 'Transfer-Encoding': 'chunked' } }, '/body/rules/0/headers/Transfer-Encoding'],
      [{ status: 503, headers: { 'Access-Control-Allow-Origin': '*' } }, '/body/rules/0/headers/Access-Control-Allow-Origin'],
      [{ status: 503, headers: { 'Content-Type': 'text/html' } }, '/body/rules/0/headers/Content-Type'],
      [{ latencyMs: 5, headers: { 'Retry-After': '1' } }, '/body/rules/0/headers'],
      [{ drop: true, headers: { 'Retry-After': '1' } }, '/body/rules/0/headers'],
    ]
    for (const [rule, pointer] of cases) {
      const reply = await setFaults({ rules: [{ operationId: 'queryItems', ...rule }] })
      expect(reply.status, JSON.stringify(rule)).toBe(400)
      expect(pointers(reply), JSON.stringify(rule)).toEqual([pointer])
    }
  })

  it('bounds times at 2^31 - 1, and refuses in process with the same violations', async () => {
    expect(pointers(await setFaults({ rules: [{ operationId: 'queryItems', latencyMs: 1, times: 2 ** 31 }] }))).toEqual(['/body/rules/0/times'])
    expect((await setFaults({ rules: [{ operationId: 'queryItems', latencyMs: 1, times: 2 ** 31 - 1 }] })).body.rules[0].remaining).toBe(2 ** 31 - 1)
    const rules = [{ operationId: 'saveItems', status: 418 }]
    const http = await setFaults({ rules })
    let thrown: unknown
    try {
      ctx.mock.mock.setFaults(rules)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(ProblemError)
    const error = thrown as ProblemError
    expect({ status: error.status, code: error.code, detail: error.message, violations: error.violations }).toEqual({
      status: 400,
      code: 'VALIDATION',
      detail: http.body.detail,
      violations: http.body.violations,
    })
    expect(error.violations).toHaveLength(1)
  })
})

describe('/__mock/faults in a mock started with --strict', () => {
  const ctx = mockPerSuite({ strict: true })

  it('refuses an off-document status even with offDocument, naming offDocument, over HTTP and in process; gateway statuses pass', async () => {
    const rules = [{ operationId: 'queryItems', status: 429, offDocument: true }]
    const refused = await ctx.mock.request('POST', '/__mock/faults', { json: { rules } })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ code: 'STRICT_MODE', warning: 'OFF_DOCUMENT_ANSWER' })
    expect(refused.body.violations.map((v: { pointer: string }) => v.pointer)).toEqual(['/body/rules/0/offDocument', '/body/rules/0/status'])
    expect(() => ctx.mock.mock.setFaults(rules)).toThrow(refused.body.detail)
    expect(ctx.mock.mock.faults().rules).toEqual([])
    expect((await ctx.mock.request('POST', '/__mock/faults', { json: { rules: [{ operationId: 'queryItems', status: 503, times: 1 }] } })).status).toBe(200)
    const reply = await ctx.mock.request('POST', '/ExplorerApi/api/items', {
      json: { query: '$top=1' },
      headers: ctx.mock.dataHeaders(ctx.token),
      unchecked: true,
    })
    expect(reply.status).toBe(503)
    expect(reply.headers.get('x-mock-warnings')).toBe('INFRASTRUCTURE_ANSWER')
  })
})
