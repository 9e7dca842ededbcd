/**
 * POST/GET/DELETE /__mock/faults over HTTP: latency, error status, dropped and cut-after-commit
 * connections, limited and probabilistic rules. Timing is asserted from below only.
 */
import { performance } from 'node:perf_hooks'
import { beforeEach, describe, expect, it } from 'vitest'
import { mockPerSuite } from '../helpers/http.ts'
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
      const failed = await ctx.mock.request('POST', '/ExplorerApi/api/items', { json: { query: '' }, headers: ctx.mock.dataHeaders(ctx.token), unchecked: true })
      expect(failed.status).toBe(503)
      expect(failed.contentType).toMatch(/^application\/problem\+json/)
      expect(failed.body).toMatchObject({ code: 'INJECTED_FAULT', status: 503 })
    }
    // Other operations are untouched.
    expect((await ctx.mock.request('GET', `/ExplorerApi/api/storage/5e7d0c1a-1111-4111-8111-000000000001/identity/IdRow/next/1`, { headers: ctx.mock.dataHeaders(ctx.token) })).status).toBe(200)
    const listed = await ctx.mock.request('GET', '/__mock/faults')
    expect(listed.body.rules[0]).toMatchObject({ id: 1, operationId: 'queryItems', status: 503, applied: 2, remaining: null })

    expect((await ctx.mock.request('DELETE', '/__mock/faults')).body).toEqual({ cleared: 1 })
    expect((await ctx.mock.items(ctx.token, '$top=1')).status).toBe(200)
  })

  it('applies a rule only `times` times, then removes it', async () => {
    await setFaults({ rules: [{ operationId: '*', status: 429, times: 2 }] })
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) statuses.push((await ctx.mock.request('POST', '/ExplorerApi/api/items', { json: { query: '' }, headers: ctx.mock.dataHeaders(ctx.token), unchecked: true })).status)
    expect(statuses).toEqual([429, 429, 200, 200])
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
    expect(entries.map((e: { status: number | null; fault: string | null }) => [e.status, e.fault])).toEqual([[null, 'commitThenDrop'], [200, null]])
  })

  it('applies a rate from a seed, the same way for the same seed', async () => {
    const run = async (): Promise<number[]> => {
      await setFaults({ seed: 42, rules: [{ operationId: 'queryItems', status: 500, rate: 0.5 }] })
      const statuses: number[] = []
      for (let i = 0; i < 20; i++) statuses.push((await ctx.mock.request('POST', '/ExplorerApi/api/items', { json: { query: '$top=1' }, headers: ctx.mock.dataHeaders(ctx.token), unchecked: true })).status)
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
      expect(reply.body.violations.map((v: { pointer: string }) => v.pointer), JSON.stringify(body)).toContain(pointer)
    }
    expect((await ctx.mock.request('GET', '/__mock/faults')).body.rules.map((r: { operationId: string }) => r.operationId)).toEqual(['runAction'])
  })
})
