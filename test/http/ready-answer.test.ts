/**
 * Pages written as ready bytes (src/http/ready-answer.ts) skip Fastify's onSend hooks, so they must
 * do what those hooks do, and go through them whenever a hook that needs the payload is on.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { injectTransport } from '../../src/wire/transport.ts'
import { startTestMock, type TestClient } from '../helpers/http.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'

/** The app-level onSend hooks of a started mock (Fastify keeps them behind a symbol). */
function onSendHooks(mock: TestClient): Array<(...args: unknown[]) => unknown> {
  const app = mock.mock.app as unknown as Record<symbol, { onSend: Array<(...args: unknown[]) => unknown> }>
  const hooks = Object.getOwnPropertySymbols(app).find((s) => s.description === 'fastify.hooks')
  if (hooks === undefined) throw new Error('Fastify keeps its hooks elsewhere now: update this test')
  return app[hooks]!.onSend
}

describe('a page written as ready bytes', () => {
  let mock: TestClient
  let token: string
  beforeAll(async () => {
    mock = await startTestMock({ journalLimit: 10, journalBodyLimit: 1 << 20 })
    token = await mock.signIn()
  })
  afterAll(() => mock.close())

  it('is written past the onSend hooks only when every always-on hook is one it does itself', () => {
    // Warnings header and journal body are payload taps, which sendReady runs itself; a change an
    // answer needs (a rule's patch, a fault's cut: changeAnswer) makes it go through the hook.
    // Any other onSend hook must be added as a tap or an answer's change (src/http/ready-answer.ts)
    // or turn readyWrites off before this list changes.
    const app = mock.mock.app as unknown as { readyWrites: boolean; payloadTaps: Array<{ name: string }> }
    const sources = onSendHooks(mock).map((hook) => hook.toString())
    expect(app.payloadTaps.map((tap) => tap.name)).toEqual(['setWarningsHeader', 'keepJournalPayload'])
    expect(sources).toHaveLength(1)
    expect(sources[0]).toContain('reply.answerChange')
    expect(sources[0]).toContain('tap(request, reply, sent)')
    expect(app.readyWrites).toBe(true)
  })

  it('goes through the hook when an answer rule patches it, and the journal keeps the patched page', async () => {
    const stub = (
      await mock.request('POST', '/__mock/stubs', { json: { operationId: 'queryItems', answer: { patch: [{ Id: 99 }] }, times: 1, offDocument: true } })
    ).body
    try {
      const reply = await mock.request('POST', '/ExplorerApi/api/items', { headers: mock.dataHeaders(token), json: { query: '$top=3' }, unchecked: true })
      expect(reply.body).toEqual([{ Id: 99 }])
      const entry = (await mock.request('GET', '/__mock/requests?bodies=true')).body.entries.at(-1)
      expect(entry).toMatchObject({ operationId: 'queryItems', stub: stub.id })
      expect(entry.response.body).toEqual([{ Id: 99 }])
    } finally {
      await mock.request('DELETE', '/__mock/stubs')
    }
  })

  it('carries its length, the warnings header, and lands in the journal with its body', async () => {
    const reply = await mock.request('POST', '/ExplorerApi/api/items', { headers: mock.dataHeaders(token), json: { query: '$top=3&$format=json' } })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('content-length')).toBe(String(reply.raw.length))
    expect(reply.headers.get('content-type')).toBe('application/json; charset=utf-8')
    expect(reply.headers.get('x-mock-warnings')).toBe('UNSUPPORTED_QUERY_OPTION')
    expect(reply.headers.get('x-appdata-kit-mock')).toBe(mock.mock.config.productVersion)
    expect(reply.body).toHaveLength(3)
    const entry = (await mock.request('GET', '/__mock/requests?bodies=true')).body.entries.at(-1)
    expect(entry).toMatchObject({ operationId: 'queryItems', status: 200, warnings: [{ code: 'UNSUPPORTED_QUERY_OPTION' }] })
    expect(entry.response.body).toEqual(reply.body)
  })

  it('is the same answer in process (inject) as over HTTP', async () => {
    const headers = { ...mock.dataHeaders(token), 'content-type': 'application/json' }
    const body = JSON.stringify({ query: '$top=4&$skip=2' })
    const overHttp = await mock.transport.send({ method: 'POST', path: '/ExplorerApi/api/items', headers, body })
    const inProcess = await injectTransport(mock.mock.app).send({ method: 'POST', path: '/ExplorerApi/api/items', headers, body })
    expect(inProcess.status).toBe(200)
    expect(Buffer.from(inProcess.body).toString('utf8')).toBe(Buffer.from(overHttp.body).toString('utf8'))
    expect(JSON.parse(Buffer.from(inProcess.body).toString('utf8'))).toHaveLength(4)
  })
})

describe('with a hook that needs the payload on, pages go through the hooks', () => {
  const dir = sharedTempDir('appdata-kit-ready-')

  it('usage recording sees the page (readyWrites off)', async () => {
    const mock = await startTestMock({ recordUsage: join(dir, 'usage.json') })
    try {
      expect((mock.mock.app as unknown as { readyWrites: boolean }).readyWrites).toBe(false)
      // The answers' one hook (taps and changes) and the usage recorder's own, which needs every page whole.
      expect(onSendHooks(mock)).toHaveLength(2)
      const token = await mock.signIn()
      expect((await mock.items(token, '$top=2')).body).toHaveLength(2)
      const usage = (await mock.request('GET', '/__mock/usage')).body
      expect(JSON.stringify(usage)).toContain('queryItems')
    } finally {
      await mock.close()
    }
  })
})
