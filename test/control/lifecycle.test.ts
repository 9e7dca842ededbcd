/**
 * The mock's lifecycle with clients that misbehave: `close()` resolves whatever state the mock is in
 * (a dropped save, a slow query its client gave up on, a client that keeps its connection open with
 * no end to its request), an exchange the client abandoned is journaled with `abandoned: true`, and
 * the journal's set of exchanges in flight cannot grow. Each test starts a mock of its own and ends
 * by closing it: a close that hangs fails the test at vitest's timeout, the only clock here.
 */
import { connect, type Socket } from 'node:net'
import { describe, expect, it, onTestFinished } from 'vitest'
import { startMock, type LaunchedMock } from '../../src/mock/mock.ts'
import { fixedDeps } from '../../src/deps.ts'
import { IDS } from '../helpers/http.ts'
import { until } from '../helpers/until.ts'

const SAVE = '/ExplorerApi/api/items/save'
const QUERY = '/ExplorerApi/api/items'
const newOrder = (customer: string) => ({ Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: customer, Status: 'New' }, Details: [] }] })

async function started(): Promise<{ mock: LaunchedMock; headers: Record<string, string> }> {
  const mock = await startMock({ logLevel: 'silent', deps: fixedDeps('2026-11-01T09:00:00.000Z') })
  // Closed by the test itself; this one is for a test that failed before it got there.
  onTestFinished(() => mock.close().catch(() => {}))
  const { token } = await mock.client.signIn(IDS.admin)
  const headers = { 'content-type': 'application/json', SessionToken: token, WorkspaceId: IDS.workspaceId, ApplicationId: IDS.applicationId }
  return { mock, headers }
}

/** A request written on a socket of its own: all of its headers and `body` (maybe only part of what Content-Length says); the socket stays open until the caller ends it. */
function rawRequest(mock: LaunchedMock, path: string, headers: Record<string, string>, body: string, length = Buffer.byteLength(body)): Socket {
  const socket = connect(mock.port, '127.0.0.1')
  socket.on('error', () => {})
  const lines = Object.entries({ ...headers, Host: `127.0.0.1:${mock.port}`, 'Content-Length': String(length), Connection: 'close' }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  )
  socket.write(`POST ${path} HTTP/1.1\r\n${lines.join('')}\r\n${body}`)
  return socket
}

/** Everything the server writes on a socket until it closes it (the requests above ask it to: `Connection: close`). */
function answerOf(socket: Socket): Promise<string> {
  return new Promise((resolve) => {
    let text = ''
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')))
    socket.on('close', () => resolve(text))
  })
}

const statuses = (mock: LaunchedMock, operationId: string) => mock.requests({ operationId }).map((entry) => [entry.status, entry.abandoned])

describe('mock.close()', () => {
  it('resolves after a dropped save, then a slow query whose client gave up without closing its connection', async () => {
    const { mock, headers } = await started()
    mock.setFaults([
      { operationId: 'saveItems', drop: true, times: 1 },
      { operationId: 'queryItems', latencyMs: 60_000 },
    ])
    await expect(fetch(`${mock.url}${SAVE}`, { method: 'POST', headers, body: JSON.stringify(newOrder('Dropped')) })).rejects.toThrow()
    // Sent, then never read nor closed: the client went on without it.
    const idle = rawRequest(mock, QUERY, headers, JSON.stringify({ query: '$top=1' }))
    await until(() => mock.faults().rules.find((rule) => rule.operationId === 'queryItems')?.applied === 1, 'the query to be held by the latency fault')
    await mock.close()
    idle.destroy()
    expect(statuses(mock, 'saveItems')).toEqual([[null, false]])
    // The held query was cut at the close, its timer with it: nothing of the mock outlives it. The
    // mock cut it, its client did not abandon it: it is not journaled as abandoned.
    expect(mock.app.holds.size).toBe(0)
    expect(statuses(mock, 'queryItems')).toEqual([])
  })

  it('resolves after a slow query whose client aborted, and journals it as abandoned first', async () => {
    const { mock, headers } = await started()
    mock.setFaults([
      { operationId: 'saveItems', drop: true, times: 1 },
      { operationId: 'queryItems', latencyMs: 60_000 },
    ])
    await expect(fetch(`${mock.url}${SAVE}`, { method: 'POST', headers, body: JSON.stringify(newOrder('Dropped')) })).rejects.toThrow()
    const gaveUp = new AbortController()
    const slow = fetch(`${mock.url}${QUERY}`, { method: 'POST', headers, body: JSON.stringify({ query: '$top=1' }), signal: gaveUp.signal }).catch(
      (error: unknown) => error,
    )
    await until(() => mock.faults().rules.find((rule) => rule.operationId === 'queryItems')?.applied === 1, 'the query to be held by the latency fault')
    gaveUp.abort()
    await slow
    await until(() => mock.requests({ operationId: 'queryItems' }).length === 1, 'the abandoned query to be journaled')
    expect(mock.requests({ operationId: 'queryItems' })[0]).toMatchObject({ status: null, abandoned: true, fault: 'latency' })
    await mock.close()
  })

  it('resolves while a client keeps a request open with half its body sent, and while a rule holds another', async () => {
    const { mock, headers } = await started()
    mock.stub({ operationId: 'queryItems', answer: {}, delayMs: 60_000 })
    const body = JSON.stringify(newOrder('Half sent'))
    const half = rawRequest(mock, SAVE, headers, body.slice(0, 10), Buffer.byteLength(body))
    const held = rawRequest(mock, QUERY, headers, JSON.stringify({ query: '$top=1' }))
    await until(() => mock.stubs().rules[0]?.hits === 1 && mock.app.journal.inFlight === 2, 'the save to arrive and the query to be held')
    await mock.close()
    expect(mock.app.holds.size).toBe(0)
    half.destroy()
    held.destroy()
  })
})

describe('an exchange the client abandoned', () => {
  it('is journaled with abandoned: true and performed not at all, so "timed out, then retried" can be asserted', async () => {
    const { mock, headers } = await started()
    try {
      mock.stub({ operationId: 'saveItems', answer: {}, delayMs: 60_000, times: 1 })
      const timedOut = new AbortController()
      const first = fetch(`${mock.url}${SAVE}`, { method: 'POST', headers, body: JSON.stringify(newOrder('Retried')), signal: timedOut.signal }).catch(
        (error: unknown) => error,
      )
      await until(() => mock.stubs().rules[0]?.hits === 1, 'the save to be held by the rule')
      timedOut.abort()
      expect(await first).toBeInstanceOf(Error)
      await until(() => mock.requests({ operationId: 'saveItems' }).length === 1, 'the abandoned save to be journaled')
      const retry = await fetch(`${mock.url}${SAVE}`, { method: 'POST', headers, body: JSON.stringify(newOrder('Retried')) })
      expect(retry.status).toBe(200)
      expect(((await retry.json()) as { IsSaveSuccessfully: boolean }).IsSaveSuccessfully).toBe(true)
      const saves = await mock.assertRequested({ operationId: 'saveItems', match: { body: { Rows: [{ Row: { Customer: 'Retried' } }] } } }, { times: 2 })
      expect(saves.map((entry) => [entry.status, entry.abandoned, entry.stub])).toEqual([
        [null, true, 1],
        [200, false, null],
      ])
      // Written once: by the retry, not by the request its client gave up on.
      expect(await mock.client.rows({ filter: "Customer eq 'Retried'" })).toHaveLength(1)
    } finally {
      await mock.close()
    }
  })
})

describe("the journal's exchanges in flight", () => {
  it('are emptied by clearRequests() and by a reset, and none begun before is recorded after', async () => {
    const { mock, headers } = await started()
    try {
      const journal = mock.app.journal
      const body = JSON.stringify(newOrder('Never finished'))
      // Bodies never finished: requests the mock cannot end on its own, with no rule to hold them.
      const open = [0, 1, 2].map(() => rawRequest(mock, SAVE, headers, body.slice(0, 5), Buffer.byteLength(body)))
      await until(() => journal.inFlight === 3, 'three saves in flight')
      expect(mock.clearRequests()).toBeGreaterThan(0)
      expect(journal.inFlight).toBe(0)
      const more = [0, 1].map(() => rawRequest(mock, SAVE, headers, body.slice(0, 5), Buffer.byteLength(body)))
      await until(() => journal.inFlight === 2, 'two more saves in flight')
      mock.reset()
      expect(journal.inFlight).toBe(0)
      // Their clients finish them now: answered (503: received before the reset), and not recorded in the journal the reset emptied.
      const answers = [...open, ...more].map((socket) => answerOf(socket))
      // The rest without a FIN, as a client that waits for its answer sends it (see answerOf).
      for (const socket of [...open, ...more]) socket.write(body.slice(5))
      for (const answer of await Promise.all(answers)) expect(answer).toMatch(/^HTTP\/1\.1 503 /)
      expect(mock.requests()).toEqual([])
    } finally {
      await mock.close()
    }
  })

  it('a request with no rule adds no listener to its answer; one a rule holds adds one, and only while held', async () => {
    const { mock, headers } = await started()
    try {
      const listeners: Array<{ url: string; close: number }> = []
      mock.app.server.on('request', (request: { url?: string }, response: NodeJS.EventEmitter) =>
        listeners.push({ url: request.url ?? '', close: response.listenerCount('close') }),
      )
      expect((await fetch(`${mock.url}${QUERY}`, { method: 'POST', headers, body: JSON.stringify({ query: '$top=1' }) })).status).toBe(200)
      mock.setFaults([{ operationId: 'queryItems', latencyMs: 1, times: 1 }])
      expect((await fetch(`${mock.url}${QUERY}`, { method: 'POST', headers, body: JSON.stringify({ query: '$top=1' }) })).status).toBe(200)
      expect(listeners.map((seen) => seen.close)).toEqual([0, 1])
      expect(mock.app.holds.size).toBe(0)
    } finally {
      await mock.close()
    }
  })
})
