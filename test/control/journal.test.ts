/** GET and DELETE /__mock/requests: the request journal over HTTP. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startTestMock, type TestClient } from '../helpers/http.ts'
import { IDS } from './support.ts'

describe('/__mock/requests', () => {
  let mock: TestClient
  beforeAll(async () => {
    mock = await startTestMock({ journalLimit: 50 })
  })
  afterAll(() => mock.close())
  beforeEach(async () => {
    await mock.request('DELETE', '/__mock/requests')
  })

  it('records method, path, operationId, status and duration, oldest first', async () => {
    const token = await mock.signIn()
    await mock.items(token, '$top=2')
    await mock.request('GET', '/no/such/path')
    const reply = await mock.request('GET', '/__mock/requests')
    expect(reply.status).toBe(200)
    expect(
      reply.body.entries.map((e: { method: string; path: string; operationId: string | null; status: number }) => [e.method, e.path, e.operationId, e.status]),
    ).toEqual([
      ['POST', `/identityprovider/${IDS.org}/connect/token`, 'signIn', 200],
      ['POST', '/ExplorerApi/api/items', 'queryItems', 200],
      ['GET', '/no/such/path', null, 404],
    ])
    for (const entry of reply.body.entries) {
      expect(entry.durationMs).toBeGreaterThanOrEqual(0)
      expect(entry.time).toBe('2026-11-01T09:00:00.000Z')
      // Bodies only when asked.
      expect(entry.request).toBeUndefined()
    }
  })

  it('records an over-long URL cut short, so one entry cannot hold a megabyte', async () => {
    const long = `/ExplorerApi/api/attachments?$filter=${'x'.repeat(100_000)}`
    expect((await mock.request('GET', long)).status).toBe(414)
    const entry = (await mock.request('GET', '/__mock/requests')).body.entries[0]
    expect(entry.status).toBe(414)
    expect(entry.url.length).toBeLessThan(5000)
    expect(entry.url).toMatch(/\[100037 characters\]$/)
  })

  it('does not record control-plane calls', async () => {
    await mock.request('GET', '/__mock/clock')
    await mock.request('GET', '/__mock/emails')
    expect((await mock.request('GET', '/__mock/requests')).body).toMatchObject({ recorded: 0, entries: [] })
  })

  it('stays bounded: keeps the newest entries and counts the evicted ones', async () => {
    const token = await mock.signIn()
    const sent = 200
    for (let i = 0; i < sent - 1; i++) {
      const reply = await mock.request('GET', `/ExplorerApi/api/storage/${IDS.masterStorageId}/identity/IdRow/next/1`, { headers: mock.dataHeaders(token) })
      expect(reply.status).toBe(200)
    }
    const page = (await mock.request('GET', '/__mock/requests')).body
    expect(page.capacity).toBe(50)
    expect(page.recorded).toBe(sent)
    expect(page.evicted).toBe(sent - 50)
    expect(page.entries).toHaveLength(50)
    const seqs = page.entries.map((e: { seq: number }) => e.seq)
    expect(seqs).toEqual([...seqs].sort((a: number, b: number) => a - b))
    expect(seqs[49] - seqs[0]).toBe(49)
    expect(page.entries.every((e: { operationId: string }) => e.operationId === 'getIdentities')).toBe(true)
  })

  it('filters by operationId and limit', async () => {
    const token = await mock.signIn()
    for (let i = 0; i < 3; i++) await mock.items(token, `$skip=${i}`)
    const filtered = (await mock.request('GET', '/__mock/requests?operationId=queryItems&limit=2&bodies=true')).body.entries
    expect(filtered).toHaveLength(2)
    expect(filtered.map((e: { request: { body: { query: string } } }) => e.request.body.query)).toEqual(['$skip=1', '$skip=2'])
    expect((await mock.request('GET', '/__mock/requests?operationId=signIn')).body.entries).toHaveLength(1)
    const badLimit = await mock.request('GET', '/__mock/requests?limit=0')
    expect(badLimit.status).toBe(400)
    expect(badLimit.body.violations[0].pointer).toBe('/query/limit')
  })

  it('shows bodies with passwords, tokens and the session header redacted', async () => {
    const token = await mock.signIn()
    await mock.items(token, '$top=1')
    const legacyLike = await mock.request('GET', '/__mock/requests?bodies=true')
    const text = legacyLike.raw.toString('utf8')
    expect(text).not.toContain(IDS.admin.password)
    expect(text).not.toContain(token)
    const [signIn, query] = legacyLike.body.entries
    expect(signIn.request.body).toMatchObject({ username: IDS.admin.username, password: '[redacted]' })
    expect(signIn.response.body).toMatchObject({ access_token: '[redacted]', expires_in: 3600 })
    expect(query.request.headers.sessiontoken).toBe('[redacted]')
    expect(query.request.headers.applicationid).toBe(IDS.applicationId)
    expect(query.response.body).toHaveLength(1)
  })

  it('redacts a bearer token and the control token header', async () => {
    const token = await mock.signIn()
    await mock.request('POST', '/webaggregator/api/v1/email/queue', {
      headers: { authorization: `Bearer ${token}`, WorkspaceId: IDS.workspaceId, 'x-mock-control-token': 'not-for-the-api' },
      json: { to: ['x@y.test'], subject: 'Hi', body: 'there' },
    })
    const entry = (await mock.request('GET', '/__mock/requests?operationId=sendEmail&bodies=true')).body.entries[0]
    expect(entry.request.headers.authorization).toBe('[redacted]')
    expect(entry.request.headers['x-mock-control-token']).toBe('[redacted]')
    expect(entry.request.body).toEqual({ to: ['x@y.test'], subject: 'Hi', body: 'there' })
  })

  it('empties on DELETE', async () => {
    await mock.signIn()
    const cleared = await mock.request('DELETE', '/__mock/requests')
    expect(cleared.body).toEqual({ cleared: 1 })
    expect((await mock.request('GET', '/__mock/requests')).body.entries).toEqual([])
  })
})

describe('journal body limit', () => {
  let mock: TestClient
  beforeAll(async () => {
    mock = await startTestMock({ journalBodyLimit: 100 })
  })
  afterAll(() => mock.close())

  it('keeps a note instead of a body over the limit', async () => {
    const token = await mock.signIn()
    await mock.items(token, '$top=5')
    const entry = (await mock.request('GET', '/__mock/requests?operationId=queryItems&bodies=true')).body.entries[0]
    expect(entry.request.body).toEqual({ query: '$top=5' })
    expect(entry.response.body).toMatch(/^\[\d+ (bytes|characters), over the journal's 100-byte limit\]$/)
  })
})

describe('journal without bodies', () => {
  let mock: TestClient
  beforeAll(async () => {
    mock = await startTestMock({ journalBodyLimit: 0 })
  })
  afterAll(() => mock.close())

  it('records the exchange but no body', async () => {
    await mock.signIn()
    const entry = (await mock.request('GET', '/__mock/requests?bodies=true')).body.entries[0]
    expect(entry.status).toBe(200)
    expect(entry.request).toEqual({ headers: {}, body: null })
    expect(entry.response).toEqual({ contentType: null, body: null })
  })
})
