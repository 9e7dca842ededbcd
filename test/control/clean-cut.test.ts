/**
 * A reset or fixture load is a clean cut: nothing received before it writes into the data loaded
 * by it. A request still held by a rule's wait (an answer rule's `delayMs`, a fault's latency) is
 * answered at once with 503 DATA_REPLACED; a big save being planned in slices is refused the same
 * way; nothing of either is written.
 */
import { readFileSync } from 'node:fs'
import { connect } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { IDS, mockPerSuite, type Reply } from '../helpers/http.ts'
import { until } from '../helpers/until.ts'
import { slicing } from '../../src/http/json-slices.ts'
import type { Store } from '../../src/store/store.ts'

const SAVE = '/ExplorerApi/api/items/save'
const order = (customer: string, i = 0) => ({ Row: { Id: -(i + 1), IdRow: null, TIMESTAMP: null, Customer: customer, Status: 'New' }, Details: [] })
const DEFAULT_FIXTURE = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8')) as unknown

describe('a reset or fixture load is a clean cut for requests held across it', () => {
  const ctx = mockPerSuite()
  beforeEach(async () => {
    expect((await ctx.mock.request('POST', '/__mock/reset')).status).toBe(200)
  })

  /** A save the client sends and does not wait for; the 503 is outside the operation's document (a gateway status), so unchecked. */
  const send = (path: string, json: unknown): Promise<Reply> =>
    ctx.mock.request('POST', path, { json, headers: ctx.mock.dataHeaders(ctx.token), unchecked: true })
  const customers = async (name: string): Promise<unknown[]> => (await ctx.mock.items(ctx.token, `$filter=Customer eq '${name}'`)).body as unknown[]
  const masters = async (): Promise<number> => ((await ctx.mock.items(ctx.token, '$top=1000')).body as unknown[]).length
  const ruleHits = async (): Promise<number> => (await ctx.mock.request('GET', '/__mock/stubs')).body.rules[0]?.hits ?? 0
  const faultsApplied = async (): Promise<number> => (await ctx.mock.request('GET', '/__mock/faults')).body.rules[0]?.applied ?? 0

  function refused(reply: Reply): void {
    expect(reply.status).toBe(503)
    expect(reply.contentType).toMatch(/^application\/problem\+json/)
    expect(reply.body).toMatchObject({ code: 'DATA_REPLACED', status: 503 })
  }

  it("a save held by an answer rule's delay, then a reset: answered 503 DATA_REPLACED at once, nothing written, nothing journaled", async () => {
    expect((await ctx.mock.request('POST', '/__mock/stubs', { json: { operationId: 'saveItems', answer: {}, delayMs: 60_000 } })).status).toBe(201)
    const held = send(SAVE, { Rows: [order('Held over a reset')] })
    await until(async () => (await ruleHits()) === 1, 'the save to be held by the rule')
    expect((await ctx.mock.request('POST', '/__mock/reset')).status).toBe(200)
    refused(await held)
    expect(await customers('Held over a reset')).toEqual([])
    expect(await masters()).toBe(25)
    // Received before the reset: it belongs to the journal the reset emptied.
    expect((await ctx.mock.request('GET', '/__mock/requests?operationId=saveItems')).body.entries).toEqual([])
  })

  it("a save held by a patching rule's delay, then a fixture load: answered 503, and the loaded data holds none of it", async () => {
    await ctx.mock.request('POST', '/__mock/stubs', { json: { operationId: 'saveItems', answer: { patch: { LockedItems: 0 } }, delayMs: 60_000 } })
    const held = send(SAVE, { Rows: [order('Held over a load')] })
    await until(async () => (await ruleHits()) === 1, 'the save to be held by the rule')
    expect((await ctx.mock.request('POST', '/__mock/fixture', { json: DEFAULT_FIXTURE })).status).toBe(200)
    refused(await held)
    expect(await customers('Held over a load')).toEqual([])
    expect(await masters()).toBe(25)
    // A load keeps the journal: the refusal is in it.
    const entries = (await ctx.mock.request('GET', '/__mock/requests?operationId=saveItems')).body.entries
    expect(entries.map((entry: { status: number; abandoned: boolean }) => [entry.status, entry.abandoned])).toEqual([[503, false]])
  })

  it("a save and an e-mail held by a fault's latency, then a reset: both answered 503, no row written, no e-mail queued", async () => {
    await ctx.mock.request('POST', '/__mock/faults', {
      json: {
        rules: [
          { operationId: 'saveItems', latencyMs: 60_000 },
          { operationId: 'sendEmail', latencyMs: 60_000 },
        ],
      },
    })
    const heldSave = send(SAVE, { Rows: [order('Held by latency')] })
    const heldEmail = ctx.mock.request('POST', '/webaggregator/api/v1/email/queue', {
      json: { to: ['someone@example.test'], subject: 'held', body: 'held' },
      headers: { Authorization: `Bearer ${ctx.token}`, WorkspaceId: IDS.workspaceId },
      unchecked: true,
    })
    await until(async () => {
      const rules = (await ctx.mock.request('GET', '/__mock/faults')).body.rules as Array<{ applied: number }>
      return rules.every((rule) => rule.applied === 1)
    }, 'both requests to be held by the faults')
    expect((await ctx.mock.request('POST', '/__mock/reset')).status).toBe(200)
    refused(await heldSave)
    refused(await heldEmail)
    expect(await customers('Held by latency')).toEqual([])
    expect((await ctx.mock.request('GET', '/__mock/emails')).body.count).toBe(0)
    expect(await faultsApplied()).toBe(0)
  })

  it('a save whose body was still arriving when a reset came: refused 503 (it is stamped on arrival, not when handled)', async () => {
    const body = JSON.stringify({ Rows: [order('Sent across a reset')] })
    const { port } = new URL(ctx.mock.url)
    const headers = Object.entries({
      ...ctx.mock.dataHeaders(ctx.token),
      'Content-Type': 'application/json',
      'Content-Length': String(Buffer.byteLength(body)),
      Connection: 'close',
    })
    const socket = connect(Number(port), '127.0.0.1')
    const answer = new Promise<string>((resolve, reject) => {
      let text = ''
      socket.on('data', (chunk) => (text += chunk.toString('utf8')))
      socket.on('end', () => resolve(text))
      socket.on('error', reject)
    })
    socket.write(
      `POST ${SAVE} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body.slice(0, 20)}`,
    )
    const journal = ctx.mock.mock.app.journal
    await until(() => journal.inFlight === 1, 'the save to arrive')
    expect((await ctx.mock.request('POST', '/__mock/reset')).status).toBe(200)
    // The rest without a FIN: a half-closed connection would race the answer (the mock closes it, `Connection: close`).
    socket.write(body.slice(20))
    const text = await answer
    expect(text).toMatch(/^HTTP\/1\.1 503 /)
    expect(text).toContain('"code":"DATA_REPLACED"')
    expect(await customers('Sent across a reset')).toEqual([])
  })

  describe('a big save planned in slices', () => {
    const defaults = { ...slicing }
    beforeEach(() => Object.assign(slicing, { planMs: 0 }))
    afterEach(() => Object.assign(slicing, defaults))

    it('a reset between its slices: answered 503 DATA_REPLACED, nothing of it written', async () => {
      const store = (ctx.mock.mock.app as unknown as { store: Store }).store
      const original = store.saveInSlices
      let pauses = 0
      // The reset is sent while the plan waits between its first two slices.
      store.saveInSlices = (cmd, pause, sliceMs) =>
        original(
          cmd,
          async () => {
            if (pauses++ === 0) expect((await ctx.mock.request('POST', '/__mock/reset')).status).toBe(200)
            await pause()
          },
          sliceMs,
        )
      try {
        const rows = Array.from({ length: slicing.checkRows + 10 }, (_, i) => order(`Sliced ${i}`, i))
        refused(await send(SAVE, { Rows: rows }))
      } finally {
        store.saveInSlices = original
      }
      // The reset ends the plan at its next turn: nothing more of it is planned.
      expect(pauses).toBe(1)
      expect(await customers('Sliced 0')).toEqual([])
      expect(await masters()).toBe(25)
    }, 60_000)
  })
})
