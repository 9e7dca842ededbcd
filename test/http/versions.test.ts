import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IDS, rowVersion as version, startTestMock, type TestClient } from '../helpers/http.ts'

const form = { client_id: IDS.clientId, username: IDS.admin.username, password: IDS.admin.password, grant_type: 'password', scope: 'openid apiv1 nosession' }
const legacyBody = { userName: IDS.admin.username, password: IDS.admin.password, clientId: IDS.legacyClientId }

describe('release 3.0.18: sign-in without the organization segment', () => {
  let mock: TestClient
  beforeAll(async () => {
    mock = await startTestMock({ productVersion: '3.0.18' })
  })
  afterAll(() => mock.close())

  it('signs in at /identityprovider/connect/token and not with the organization', async () => {
    const reply = await mock.request('POST', '/identityprovider/connect/token', { form })
    expect(reply.status).toBe(200)
    expect(typeof reply.body.access_token).toBe('string')
    expect((await mock.request('POST', `/identityprovider/${IDS.org}/connect/token`, { form })).status).toBe(404)
    const token = reply.body.access_token
    const detail = await mock.items(token, `$top=1&relationKey=${IDS.relationKey}`)
    expect(detail.status).toBe(200)
    const save = await mock.post('/ExplorerApi/api/items/save', token, {
      Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'A' }, Details: [] }],
    })
    expect(save.body.IsSaveSuccessfully).toBe(true)
  })
})

describe('release 2.9: the older forms', () => {
  let mock: TestClient
  let token: string
  beforeAll(async () => {
    mock = await startTestMock({ productVersion: '2.9' })
    token = await mock.signIn()
  })
  afterAll(() => mock.close())

  it('signs in with the legacy form and answers the Domain', async () => {
    const reply = await mock.request('POST', '/IntelligenceUserManagementService/UserManagementService.svc/Token', { json: legacyBody })
    expect(reply.status).toBe(200)
    expect(reply.body.Domain).toMatchObject({ Id: IDS.workspaceId, IsActive: true })
    expect(reply.body.Domain.CreationDate).toMatch(/^\/Date\(\d+\)\/$/)
    const wrong = await mock.request('POST', '/IntelligenceUserManagementService/UserManagementService.svc/Token', { json: { ...legacyBody, clientId: 'x' } })
    expect(wrong.status).toBe(401)
    expect((await mock.request('POST', '/identityprovider/connect/token', { form })).status).toBe(404)
    expect((await mock.request('POST', `/identityprovider/${IDS.org}/connect/token`, { form })).status).toBe(404)
  })

  it('reads with GET and no body, the options in the URL', async () => {
    const headers = { ApplicationId: IDS.applicationId, SessionToken: token }
    const page = await mock.request('GET', `/ExplorerApi/api/items?$top=3&$orderby=${encodeURIComponent('Id desc')}`, { headers })
    expect(page.status).toBe(200)
    expect(page.body.map((r: { Id: number }) => r.Id)).toEqual([25, 24, 23])
    const counted = await mock.request('GET', `/ExplorerApi/api/items?$inlinecount=allpages&$filter=${encodeURIComponent("Status eq 'Open'")}`, { headers })
    expect(counted.body.Items[0]._FieldCount_).toBeGreaterThan(0)
    const details = await mock.request('GET', `/ExplorerApi/api/items?relationKey=${IDS.relationKey}`, { headers })
    expect(details.status).toBe(400)
    const post = await mock.items(token, '$top=1')
    expect(post.status).toBe(405)
    expect(post.headers.get('allow')).toBe('GET, HEAD')
  })

  it('spells the save result IsSaveSuccesfully and takes both delete bodies, the current one with a warning', async () => {
    const save = await mock.post('/ExplorerApi/api/items/save', token, {
      Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Legacy' }, Details: [] }],
    })
    expect(save.body.IsSaveSuccesfully).toBe(true)
    expect(save.body).not.toHaveProperty('IsSaveSuccessfully')
    const id = Number(save.body.ReturnData.PrimaryKeyData['-1'].newKeys.Id)
    const headers = { ApplicationId: IDS.applicationId, SessionToken: token }
    const [row] = (await mock.request('GET', `/ExplorerApi/api/items?$filter=${encodeURIComponent(`Id eq ${id}`)}`, { headers })).body
    const older = await mock.post('/ExplorerApi/api/items/delete', token, [{ Rows: [{ Row: { Id: id, TIMESTAMP: version(row.TIMESTAMP) }, Details: [] }] }])
    expect(older.status).toBe(200)
    expect(older.body).toMatchObject({ IsSaveSuccesfully: true, DeletedItems: 1 })
    expect(older.headers.get('x-mock-warnings')).toBeNull()
    const [other] = (await mock.request('GET', '/ExplorerApi/api/items?$top=1', { headers })).body
    const current = await mock.post('/ExplorerApi/api/items/delete', token, [
      { RelationKey: null, Rows: [{ Row: { Id: other.Id, TIMESTAMP: version(other.TIMESTAMP) } }] },
    ])
    expect(current.status).toBe(200)
    expect(current.body).toMatchObject({ IsSaveSuccesfully: true, DeletedItems: 1 })
    expect(current.headers.get('x-mock-warnings')).toBe('CURRENT_DELETE_BODY')
  })
})
