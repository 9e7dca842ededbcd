/** POST /__mock/reset and POST /__mock/fixture over HTTP. */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { MINIMAL_FIXTURE } from '../../spec/control-plane.ts'
import { IDS, rowVersion, startTestMock, type TestClient } from '../helpers/http.ts'
import { listAttachments, readMaster, renameCustomer } from './support.ts'

describe('POST /__mock/reset', () => {
  let mock: TestClient
  let token: string
  beforeAll(async () => {
    mock = await startTestMock()
    token = await mock.signIn()
  })
  afterAll(() => mock.close())

  it('restores a changed row and keeps the session', async () => {
    const before = await readMaster(mock, token, 3)
    await renameCustomer(mock, token, 3, 'Changed by a test')
    expect((await readMaster(mock, token, 3)).Customer).toBe('Changed by a test')

    const reply = await mock.request('POST', '/__mock/reset')
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ reset: true, kept: ['sessions', 'clock'], fixture: { applications: 3, masterRows: 38, detailRows: 50 } })

    // Same token: sessions survive a reset.
    const after = await readMaster(mock, token, 3)
    expect(after.Customer).toBe(before.Customer)
    // Row versions keep growing, so a TIMESTAMP read before the reset is stale after it.
    expect(after.TIMESTAMP).not.toBe(before.TIMESTAMP)
  })

  it('removes created rows and uploaded attachments', async () => {
    const created = await mock.post('/ExplorerApi/api/items/save', token, {
      Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'New', Amount: 1, Status: 'Open' }, Details: [] }],
    })
    expect(created.body.IsSaveSuccessfully).toBe(true)
    mock.mock.addAttachment({ parentId: 4, files: [{ name: 'note.txt', content: 'hello' }] })
    expect((await mock.items(token, '$inlinecount=allpages')).body.Items[0]._FieldCount_).toBe(26)
    expect(await listAttachments(mock, token, 4)).toHaveLength(1)

    await mock.request('POST', '/__mock/reset')
    expect((await mock.items(token, '$inlinecount=allpages')).body.Items[0]._FieldCount_).toBe(25)
    expect(await listAttachments(mock, token, 4)).toEqual([])
  })

  it('accepts an empty body sent as JSON, as curl -X POST -H content-type:application/json does', async () => {
    const reply = await mock.request('POST', '/__mock/reset', { body: '', headers: { 'content-type': 'application/json' } })
    expect(reply.status).toBe(200)
    const bad = await mock.request('POST', '/__mock/faults', { body: '{rules', headers: { 'content-type': 'application/json' } })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe('BAD_JSON')
  })

  it('empties the outbox, the fault rules and the journal, and says how much', async () => {
    await mock.request('POST', '/webaggregator/api/v1/email/queue', {
      headers: { authorization: `Bearer ${token}`, WorkspaceId: '6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b70' },
      json: { to: ['x@y.test'], subject: 'one', body: 'b' },
    })
    await mock.request('POST', '/__mock/faults', { json: { rules: [{ operationId: 'runAction', status: 500 }] } })
    const reply = await mock.request('POST', '/__mock/reset')
    expect(reply.body.cleared.emails).toBe(1)
    expect(reply.body.cleared.faults).toBe(1)
    expect(reply.body.cleared.requests).toBeGreaterThan(0)
    expect((await mock.request('GET', '/__mock/emails')).body.count).toBe(0)
    expect((await mock.request('GET', '/__mock/faults')).body.rules).toEqual([])
    expect((await mock.request('GET', '/__mock/requests')).body.entries).toEqual([])
  })
})

describe('POST /__mock/fixture', () => {
  let mock: TestClient
  beforeAll(async () => {
    mock = await startTestMock()
  })
  afterAll(() => mock.close())
  beforeEach(async () => {
    await mock.request('POST', '/__mock/reset')
  })

  it('serves a loaded fixture until the next reset', async () => {
    const reply = await mock.request('POST', '/__mock/fixture', { json: MINIMAL_FIXTURE })
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({
      loaded: true,
      generatedRows: 0,
      fixture: { organization: 'acme', applications: 1, users: 1, masterRows: 2, detailRows: 0, attachments: 0 },
      // The minimal fixture is written with the older type names: they load, with the start-up warning.
      warnings: [expect.stringMatching(/uses the older field type names string \(now String\), number \(now Numeric\)/)],
    })
    const token = await mock.signIn()
    const rows = await mock.items(token, '$orderby=Id asc')
    expect(rows.body.map((row: { Customer: string }) => row.Customer)).toEqual(['Initech', 'Globex'])

    await mock.request('POST', '/__mock/reset')
    expect((await mock.items(token, '$inlinecount=allpages')).body.Items[0]._FieldCount_).toBe(25)
  })

  it('adds generated rows with ?rows and ?seed, the same for the same seed', async () => {
    const first = await mock.request('POST', '/__mock/fixture?rows=5&seed=9', { json: MINIMAL_FIXTURE })
    expect(first.status).toBe(200)
    expect(first.body.generatedRows).toBe(5)
    expect(first.body.fixture.masterRows).toBe(7)
    const token = await mock.signIn()
    const customers = async () => (await mock.items(token, '$orderby=Id asc')).body.map((row: { Customer: string }) => row.Customer)
    const once = await customers()
    await mock.request('POST', '/__mock/fixture?rows=5&seed=9', { json: MINIMAL_FIXTURE })
    expect(await customers()).toEqual(once)
  })

  it('refuses a bad fixture with 400 BAD_FIXTURE naming the JSON path, and changes nothing', async () => {
    const bad = structuredClone(MINIMAL_FIXTURE) as { applications: Array<{ master: { fields: Array<{ type: string }> } }> }
    const field = bad.applications[0]?.master.fields[1]
    if (field === undefined) throw new Error('the minimal fixture has two master fields')
    field.type = 'money'
    const reply = await mock.request('POST', '/__mock/fixture', { json: bad })
    expect(reply.status).toBe(400)
    expect(reply.body.code).toBe('BAD_FIXTURE')
    expect(reply.body.detail).toContain('/applications/0/master/fields/1/type')
    expect(reply.body.violations).toContainEqual(expect.objectContaining({ pointer: '/applications/0/master/fields/1/type' }))
    const token = await mock.signIn()
    expect((await mock.items(token, '$inlinecount=allpages')).body.Items[0]._FieldCount_).toBe(25)
  })

  it('names a broken reference by its path too', async () => {
    const bad = structuredClone(MINIMAL_FIXTURE)
    bad.organization.users[0]?.workspaceIds.push('00000000-0000-4000-8000-000000000099')
    const reply = await mock.request('POST', '/__mock/fixture', { json: bad })
    expect(reply.status).toBe(400)
    expect(reply.body.violations.map((v: { pointer: string }) => v.pointer).join(' ')).toContain('/organization/users/0/workspaceIds')
  })

  it('refuses payload paths outside the fixture directory', async () => {
    const escaping = {
      ...structuredClone(MINIMAL_FIXTURE),
      attachments: [
        {
          id: 1,
          applicationId: 'a1b2c3d4-0000-4000-8000-000000000001',
          parentId: 1,
          name: 'passwd',
          mediaType: 'text/plain',
          file: '../../../../etc/passwd',
          createdAt: '2024-01-01T00:00:00.000Z',
          userId: 1,
        },
        {
          id: 2,
          applicationId: 'a1b2c3d4-0000-4000-8000-000000000001',
          parentId: 1,
          name: 'hosts',
          mediaType: 'text/plain',
          file: '/etc/hosts',
          createdAt: '2024-01-01T00:00:00.000Z',
          userId: 1,
        },
      ],
    }
    const reply = await mock.request('POST', '/__mock/fixture', { json: escaping })
    expect(reply.status).toBe(400)
    const pointers = reply.body.violations.map((v: { pointer: string }) => v.pointer)
    expect(pointers).toEqual(['/attachments/0/file', '/attachments/1/file'])
  })

  it('accepts payload paths inside the fixture directory', async () => {
    const withFile = {
      ...structuredClone(MINIMAL_FIXTURE),
      attachments: [
        {
          id: 1,
          applicationId: 'a1b2c3d4-0000-4000-8000-000000000001',
          parentId: 1,
          name: 'spec.txt',
          mediaType: 'text/plain',
          file: 'files/spec.txt',
          createdAt: '2024-01-01T00:00:00.000Z',
          userId: 1,
        },
      ],
    }
    const reply = await mock.request('POST', '/__mock/fixture', { json: withFile })
    expect(reply.status).toBe(200)
    expect(reply.body.fixture.attachments).toBe(1)
  })

  it('refuses a body that is not a fixture at all', async () => {
    const reply = await mock.request('POST', '/__mock/fixture', { json: [1, 2] })
    expect(reply.status).toBe(400)
    expect(reply.body.code).toBe('BAD_FIXTURE')
  })

  it('refuses out-of-range query parameters, naming them', async () => {
    const reply = await mock.request('POST', '/__mock/fixture?rows=-1', { json: MINIMAL_FIXTURE })
    expect(reply.status).toBe(400)
    expect(reply.body.violations[0].pointer).toBe('/query/rows')
  })
})

describe('GET /__mock/state', () => {
  /** Every row of every table of the Orders application as a signed-in admin reads it, in Id order. */
  async function everything(mock: TestClient, token: string): Promise<unknown> {
    const masters = await mock.items(token, '$orderby=Id asc')
    const lines = await mock.items(token, `$orderby=Id asc&relationKey=${IDS.relationKey}`)
    return { masters: masters.body, lines: lines.body }
  }

  it('answers the data as a fixture that a new mock serves unchanged: rows with their versions, saved rows, uploaded files', async () => {
    const mock = await startTestMock()
    const copy = await startTestMock()
    try {
      const token = await mock.signIn()
      await renameCustomer(mock, token, 3, 'Renamed before the export')
      const created = await mock.post('/ExplorerApi/api/items/save', token, {
        Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Exported', Amount: 7, Status: 'New' }, Details: [] }],
      })
      expect(created.body.IsSaveSuccessfully).toBe(true)
      mock.mock.addAttachment({
        parentId: 3,
        folder: 'Scans',
        files: [{ name: 'scan.bin', content: new Uint8Array([0, 1, 2, 255]), mediaType: 'application/octet-stream' }],
      })
      await mock.post('/ExplorerApi/api/items/delete', token, [
        { RelationKey: null, Rows: [{ Row: { Id: 25, TIMESTAMP: rowVersion(String((await readMaster(mock, token, 25)).TIMESTAMP)) } }] },
      ])

      const state = await mock.request('GET', '/__mock/state')
      expect(state.status).toBe(200)
      expect(mock.mock.state()).toEqual(state.body)
      // Self-contained: payloads inline, no paths into the mock's folders.
      expect(JSON.stringify(state.body)).not.toContain('"file"')

      expect((await copy.request('POST', '/__mock/fixture', { json: state.body })).status).toBe(200)
      const copyToken = await copy.signIn()
      expect(await everything(copy, copyToken)).toEqual(await everything(mock, token))
      const scans = (await listAttachments(copy, copyToken, 3)).find((a) => a.Name === 'Scans')
      const [file] = await listAttachments(copy, copyToken, 3, scans?.Id as number)
      const download = await copy.request('POST', '/ExplorerApi/api/attachments/download', {
        headers: copy.dataHeaders(copyToken),
        json: { ids: [file?.Id] },
        unchecked: true,
      })
      expect(Buffer.from(download.raw)).toEqual(Buffer.from([0, 1, 2, 255]))
      // The copy goes on from the largest version it was given: a new write gets a newer one.
      const { masters } = (await everything(mock, token)) as { masters: Array<{ TIMESTAMP: string }> }
      await renameCustomer(copy, copyToken, 1, 'Written in the copy')
      expect(rowVersion(String((await readMaster(copy, copyToken, 1)).TIMESTAMP))).toBeGreaterThan(Math.max(...masters.map((row) => rowVersion(row.TIMESTAMP))))
    } finally {
      await mock.close()
      await copy.close()
    }
  })

  it('refuses a fixture that gives one version to two rows, naming both places', async () => {
    const mock = await startTestMock()
    try {
      const state = structuredClone(mock.mock.state()) as { data: Record<string, { masters: Array<Record<string, unknown>> }> }
      const masters = state.data[IDS.applicationId]?.masters ?? []
      ;(masters[1] as Record<string, unknown>).TIMESTAMP = (masters[0] as Record<string, unknown>).TIMESTAMP
      const refused = await mock.request('POST', '/__mock/fixture', { json: state })
      expect(refused.status).toBe(400)
      expect(refused.body.violations).toContainEqual(
        expect.objectContaining({
          pointer: `/data/${IDS.applicationId}/masters/1/TIMESTAMP`,
          message: expect.stringContaining('is the version of another row'),
        }),
      )
    } finally {
      await mock.close()
    }
  })
})

describe('sessions: a way out when they are full', () => {
  const form = { grant_type: 'password', username: IDS.admin.username, password: IDS.admin.password, client_id: IDS.clientId, scope: 'openid apiv1' }
  const signInReply = (mock: TestClient) => mock.request('POST', `/identityprovider/${IDS.org}/connect/token`, { form })
  const DEFAULT_FIXTURE = readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8')

  it('keeps sessions through a plain reset and ends them all with ?sessions=true, which frees sign-ins', async () => {
    const mock = await startTestMock({ maxSessions: 3 })
    try {
      const first = await mock.signIn()
      await mock.signIn()
      await mock.signIn()
      const full = await signInReply(mock)
      expect(full.status).toBe(503)
      expect(full.body.code).toBe('TOO_MANY_SESSIONS')
      expect(full.body.detail).toContain('POST /__mock/reset?sessions=true')

      const plain = await mock.request('POST', '/__mock/reset')
      expect(plain.body).toMatchObject({ cleared: { sessions: 0 }, kept: ['sessions', 'clock'] })
      expect((await signInReply(mock)).status).toBe(503)
      expect((await mock.items(first, '$top=1')).status).toBe(200)

      const ended = await mock.request('POST', '/__mock/reset?sessions=true')
      expect(ended.status).toBe(200)
      expect(ended.body).toMatchObject({ reset: true, cleared: { sessions: 3 }, kept: ['clock'] })
      expect((await mock.items(first, '$top=1')).body.code).toBe('UNKNOWN_TOKEN')
      expect((await signInReply(mock)).status).toBe(200)
      // In-process, the same.
      expect(mock.mock.reset({ sessions: true }).cleared.sessions).toBe(1)
    } finally {
      await mock.close()
    }
  })

  it('ends the sessions of users a loaded fixture lacks, so they stop taking room, and keeps the others', async () => {
    const mock = await startTestMock({ maxSessions: 2 })
    try {
      const admin = await mock.signIn(IDS.admin)
      const viewer = await mock.signIn(IDS.viewer)
      expect((await signInReply(mock)).status).toBe(503)

      const fixture = JSON.parse(DEFAULT_FIXTURE) as Record<string, any>
      fixture.organization.users = fixture.organization.users.filter((user: { email: string }) => user.email !== IDS.viewer.username)
      expect((await mock.request('POST', '/__mock/fixture', { json: fixture })).status).toBe(200)
      expect((await mock.items(viewer, '$top=1')).body.code).toBe('UNKNOWN_TOKEN')
      expect((await mock.items(admin, '$top=1')).status).toBe(200)
      expect((await signInReply(mock)).status).toBe(200)
    } finally {
      await mock.close()
    }
  })
})
