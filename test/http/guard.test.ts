/**
 * A web page the developer visits must not reach the mock: not by pointing a name of its own at
 * 127.0.0.1 (DNS rebinding, refused by the Host check), not by a "simple" cross-site request to the
 * control plane (refused by Origin and by the body's type). Local calls keep working.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { IDS, startTestMock, type TestClient } from '../helpers/http.ts'

const SIGN_IN = `/identityprovider/${IDS.org}/connect/token`
const signInForm = { grant_type: 'password', client_id: IDS.clientId, username: IDS.admin.username, password: IDS.admin.password, scope: 'openid' }

const started: TestClient[] = []
async function mockWith(options: Parameters<typeof startTestMock>[0] = {}): Promise<TestClient> {
  const mock = await startTestMock(options)
  started.push(mock)
  return mock
}
afterAll(async () => {
  for (const mock of started) await mock.close()
})

/** The number of master rows, read over HTTP by a local call. */
async function masterCount(mock: TestClient): Promise<number> {
  return mock.client(await mock.signIn()).count()
}

describe('Host check', () => {
  it('answers a rebound host name with 403 FOREIGN_HOST naming the flag, and no fixture password or token', async () => {
    const mock = await mockWith()
    const host = `rebind.example:${mock.mock.port}`
    const state = await mock.request('GET', '/__mock/state', { headers: { host } })
    expect(state.status).toBe(403)
    expect(state.contentType).toContain('application/problem+json')
    expect(state.body).toMatchObject({ code: 'FOREIGN_HOST', status: 403, host: 'rebind.example' })
    expect(state.body.detail).toContain('--allowed-host rebind.example')
    expect(state.raw.toString()).not.toContain(IDS.admin.password)
    const signIn = await mock.request('POST', SIGN_IN, { headers: { host }, form: signInForm, unchecked: true })
    expect(signIn.status).toBe(403)
    expect(signIn.body.code).toBe('FOREIGN_HOST')
    expect(signIn.raw.toString()).not.toContain('access_token')

    // The same calls by the mock's own names work.
    for (const own of [
      `127.0.0.1:${mock.mock.port}`,
      `localhost:${mock.mock.port}`,
      'app.localhost',
      '127.0.0.2:80',
      `[::1]:${mock.mock.port}`,
      'LOCALHOST.',
    ]) {
      expect((await mock.request('GET', '/__mock/health', { headers: { host: own } })).status, own).toBe(200)
    }
    expect((await mock.request('GET', '/__mock/state')).raw.toString()).toContain(IDS.admin.password)
    expect((await mock.request('POST', SIGN_IN, { form: signInForm })).body.access_token).toEqual(expect.any(String))
  })

  it('answers the names given with --allowed-host (a docker-compose service, a domain with its subdomains), and no other', async () => {
    const mock = await mockWith({ allowedHosts: ['mock', '.sandbox.test'] })
    for (const host of ['mock:4080', 'MOCK', 'sandbox.test', 'team.sandbox.test:8443']) {
      expect((await mock.request('POST', SIGN_IN, { headers: { host }, form: signInForm })).status, host).toBe(200)
    }
    for (const host of ['mock.evil.example', 'notsandbox.test', '10.0.0.5']) {
      expect((await mock.request('POST', SIGN_IN, { headers: { host }, form: signInForm, unchecked: true })).body.code, host).toBe('FOREIGN_HOST')
    }
  })

  it('answers any host on a bind other machines reach, unless names are given', async () => {
    const signIn = (mock: TestClient, host: string) => mock.request('POST', SIGN_IN, { headers: { host }, form: signInForm, unchecked: true })
    const open = await mockWith({ host: '0.0.0.0' })
    expect((await signIn(open, 'sandbox.example.test')).status).toBe(200)
    const listed = await mockWith({ host: '0.0.0.0', allowedHosts: ['sandbox.example.test'] })
    expect((await signIn(listed, 'sandbox.example.test')).status).toBe(200)
    expect((await signIn(listed, `127.0.0.1:${listed.mock.port}`)).status).toBe(200)
    const refused = await signIn(listed, 'other.example.test')
    expect(refused.status).toBe(403)
    expect(refused.body.code).toBe('FOREIGN_HOST')
  })
})

describe('no cross-site control', () => {
  it('refuses a cross-origin text/plain POST to reset, keeping the data, while the own origin and scripts reset', async () => {
    // --cors lets that origin call the API; it never opens the control plane.
    const mock = await mockWith({ cors: ['http://evil.example'] })
    const token = await mock.signIn()
    const saved = await mock
      .client(token)
      .save({ Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Before the attack', Amount: 1, Status: 'Open' }, Details: [] }] })
    expect(saved.ok).toBe(true)
    const attack = await mock.request('POST', '/__mock/reset', { headers: { origin: 'http://evil.example', 'content-type': 'text/plain' }, body: '{}' })
    expect(attack.status).toBe(403)
    expect(attack.body.code).toBe('CROSS_ORIGIN')
    // A page of the same site on another port is another origin too.
    const sameSite = await mock.request('POST', '/__mock/reset', { headers: { origin: 'http://127.0.0.1:5173' } })
    expect(sameSite.body.code).toBe('CROSS_ORIGIN')
    // A link or an image carries no Origin, but Sec-Fetch-Site says who sent it.
    const navigated = await mock.request('GET', '/__mock/state', { headers: { 'sec-fetch-site': 'cross-site' } })
    expect(navigated.body.code).toBe('CROSS_ORIGIN')
    expect(navigated.raw.toString()).not.toContain(IDS.admin.password)
    expect(await masterCount(mock)).toBe(26)
    // The API still answers that origin as --cors says.
    const api = await fetch(`${mock.url}${SIGN_IN}`, {
      method: 'POST',
      headers: { origin: 'http://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(signInForm),
    })
    expect(api.status).toBe(200)
    expect(api.headers.get('access-control-allow-origin')).toBe('http://evil.example')

    // A text body without Origin (a script) is refused too: only JSON reaches a handler.
    const text = await mock.request('POST', '/__mock/reset', { headers: { 'content-type': 'text/plain' }, body: '' })
    expect(text.status).toBe(415)
    expect(text.body.code).toBe('UNSUPPORTED_MEDIA_TYPE')
    expect(await masterCount(mock)).toBe(26)
    // The mock's own page (same origin), a script with JSON and one with no body at all reset.
    expect((await mock.request('POST', '/__mock/reset', { headers: { origin: mock.url }, json: {} })).status).toBe(200)
    expect((await mock.request('POST', '/__mock/reset', { json: {} })).status).toBe(200)
    expect((await mock.request('POST', '/__mock/reset')).status).toBe(200)
    expect(await masterCount(mock)).toBe(25)
  })

  it('refuses a URL-encoded fixture load and a multipart body outside the upload, while JSON loads and the upload takes its file', async () => {
    const mock = await mockWith()
    const fixture = (await mock.request('GET', '/__mock/state')).body
    fixture.data[IDS.applicationId].masters[0].Customer = 'Loaded by the fixture'
    const loaded = async () => (await mock.client(await mock.signIn()).rows({ filter: 'Id eq 1' }))[0]?.Customer === 'Loaded by the fixture'
    const encoded = await mock.request('POST', '/__mock/fixture', { form: { fixture: JSON.stringify(fixture) } })
    expect(encoded.status).toBe(415)
    expect(encoded.body).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE', status: 415 })
    const form = new FormData()
    form.set('fixture', JSON.stringify(fixture))
    const multipart = await fetch(`${mock.url}/__mock/fixture`, { method: 'POST', body: form })
    expect(multipart.status).toBe(415)
    expect(await loaded()).toBe(false)

    const upload = new FormData()
    upload.set('parentId', '2')
    upload.set('file', new Blob(['scan']), 'scan.txt')
    expect((await fetch(`${mock.url}/__mock/attachments`, { method: 'POST', body: upload })).status).toBe(201)
    expect((await mock.request('POST', '/__mock/fixture', { json: fixture })).status).toBe(200)
    expect(await loaded()).toBe(true)
    // The API's own routes keep their bodies: sign-in takes its form.
    expect((await mock.request('POST', SIGN_IN, { form: signInForm })).status).toBe(200)
  })
})
