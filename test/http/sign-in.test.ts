import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IDS, startTestMock, type TestClient } from '../helpers/http.ts'

const form = (overrides: Record<string, string> = {}) => ({
  client_id: IDS.clientId,
  username: IDS.admin.username,
  password: IDS.admin.password,
  grant_type: 'password',
  scope: 'openid apiv1 nosession',
  ...overrides,
})

describe('sign-in, latest release', () => {
  let mock: TestClient
  beforeAll(async () => {
    mock = await startTestMock({ tokenTtl: 120 })
  })
  afterAll(() => mock.close())

  it('answers the token result of the description and the token opens data operations', async () => {
    const reply = await mock.request('POST', `/identityprovider/${IDS.org}/connect/token`, { form: form() })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ expires_in: 120, 'token-type': '', scope: '' })
    expect(reply.body.access_token).toMatch(/^[A-Za-z0-9_-]{40,}$/)
    const items = await mock.items(reply.body.access_token, '$top=1')
    expect(items.status).toBe(200)
  })

  it('issues a different token at each sign-in', async () => {
    const a = await mock.signIn()
    const b = await mock.signIn()
    expect(a).not.toBe(b)
  })

  it.each([
    ['wrong password', { password: 'nope' }, 400, 'INVALID_GRANT'],
    ['unknown user', { username: 'nobody@acme.test' }, 400, 'INVALID_GRANT'],
    ['wrong client id', { client_id: 'other' }, 401, 'INVALID_CLIENT'],
    ['other grant', { grant_type: 'client_credentials' }, 400, 'VALIDATION'],
    ['unknown scope', { scope: 'openid admin' }, 400, 'INVALID_SCOPE'],
  ])('refuses a %s with a clear problem', async (_name, overrides, status, code) => {
    const reply = await mock.request('POST', `/identityprovider/${IDS.org}/connect/token`, { form: form(overrides) })
    expect(reply.status).toBe(status)
    expect(reply.contentType).toMatch(/^application\/problem\+json/)
    expect(reply.body).toMatchObject({ status, code })
    expect(reply.body.detail.length).toBeGreaterThan(10)
  })

  it('refuses an unknown organization with 404', async () => {
    const reply = await mock.request('POST', '/identityprovider/globex/connect/token', { form: form() })
    expect(reply.status).toBe(404)
    expect(reply.body.code).toBe('UNKNOWN_ORGANIZATION')
  })

  it('does not offer the path without organization or the legacy sign-in', async () => {
    expect((await mock.request('POST', '/identityprovider/connect/token', { form: form() })).status).toBe(404)
    const legacy = await mock.request('POST', '/IntelligenceUserManagementService/UserManagementService.svc/Token', {
      json: { userName: IDS.admin.username, password: IDS.admin.password, clientId: IDS.legacyClientId },
    })
    expect(legacy.status).toBe(404)
  })

  it('names the missing form field', async () => {
    const { password: _password, ...rest } = form()
    const reply = await mock.request('POST', `/identityprovider/${IDS.org}/connect/token`, { form: rest })
    expect(reply.status).toBe(400)
    expect(reply.body.violations).toContainEqual(expect.objectContaining({ pointer: '/body/password' }))
  })
})

describe('token lifetime and authorization', () => {
  let mock: TestClient
  beforeAll(async () => {
    mock = await startTestMock({ tokenTtl: 60 })
  })
  afterAll(() => mock.close())

  it('expires a token after --token-ttl seconds on the mock clock', async () => {
    const token = await mock.signIn()
    expect((await mock.items(token, '$top=1')).status).toBe(200)
    mock.mock.app.clock.advance(59_000)
    expect((await mock.items(token, '$top=1')).status).toBe(200)
    mock.mock.app.clock.advance(1_000)
    const expired = await mock.items(token, '$top=1')
    expect(expired.status).toBe(401)
    expect(expired.body.code).toBe('TOKEN_EXPIRED')
  })

  it('answers 401 without a token and with an unknown one', async () => {
    const none = await mock.request('POST', '/ExplorerApi/api/items', {
      json: { query: '$top=1' },
      headers: { ApplicationId: IDS.applicationId, WorkspaceId: IDS.workspaceId },
    })
    expect(none.status).toBe(401)
    expect(none.body.code).toBe('MISSING_TOKEN')
    const unknown = await mock.items('not-a-token', '$top=1')
    expect(unknown.status).toBe(401)
    expect(unknown.body.code).toBe('UNKNOWN_TOKEN')
  })

  it("answers 403 for a workspace that is not the user's", async () => {
    const token = await mock.signIn()
    const reply = await mock.post('/ExplorerApi/api/items', token, { query: '$top=1' }, { headers: { WorkspaceId: '00000000-0000-4000-8000-000000000000' } })
    expect(reply.status).toBe(403)
    expect(reply.body.code).toBe('FOREIGN_WORKSPACE')
  })

  it('answers 404 for an unknown application and 400 for a malformed one', async () => {
    const token = await mock.signIn()
    const unknown = await mock.post(
      '/ExplorerApi/api/items',
      token,
      { query: '$top=1' },
      { headers: { ApplicationId: '00000000-0000-4000-8000-000000000000' } },
    )
    expect(unknown.status).toBe(404)
    expect(unknown.body.code).toBe('UNKNOWN_APPLICATION')
    const malformed = await mock.post('/ExplorerApi/api/items', token, { query: '$top=1' }, { headers: { ApplicationId: 'orders' } })
    expect(malformed.status).toBe(400)
    expect(malformed.body.violations).toContainEqual(expect.objectContaining({ pointer: '/headers/ApplicationId' }))
  })

  it('lets the read-only user read without Amount but not save or delete', async () => {
    const token = await mock.signIn(IDS.viewer)
    const rows = await mock.items(token, '$top=3')
    expect(rows.status).toBe(200)
    expect(rows.body).toHaveLength(3)
    for (const row of rows.body) {
      expect(row).not.toHaveProperty('Amount')
      expect(row).toHaveProperty('Customer')
    }
    const save = await mock.post('/ExplorerApi/api/items/save', token, {
      Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'X' }, Details: [] }],
    })
    expect(save.status).toBe(403)
    expect(save.body.code).toBe('READ_ONLY_USER')
    const del = await mock.post('/ExplorerApi/api/items/delete', token, [{ RelationKey: null, Rows: [{ Row: { Id: 1, TIMESTAMP: 1 } }] }])
    expect(del.status).toBe(403)
  })
})
