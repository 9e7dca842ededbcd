/**
 * Fidelity: what the API's description shows or allows, the mock accepts. Each block drives the
 * exact request a client sends, over HTTP, for one place where the mock used to refuse what the
 * description allows (or show what it should not), and checks the answer and what was written.
 */
import { readFileSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { buildDocument } from '../../spec/index.ts'
import { freshMockPerTest, IDS, mockPerSuite, rowVersion as version, startTestMock } from '../helpers/http.ts'

const SAVE = '/ExplorerApi/api/items/save'
const DELETE = '/ExplorerApi/api/items/delete'
const SUPPLIERS = { workspaceId: '6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b71', applicationId: 'a1b2c3d4-0000-4000-8000-000000000002' }
const form = {
  client_id: IDS.clientId,
  username: IDS.admin.username,
  password: IDS.admin.password,
  grant_type: 'password',
  scope: 'openid apiv1 nosession',
}

/** The default fixture file as JSON, to change and load. */
function defaultFixture(): any {
  return JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8'))
}

/** A request with any method (fetch refuses TRACE), answered as status, headers and parsed body. */
function raw(url: string, method: string, path: string): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8')
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text === '' ? '' : JSON.parse(text) })
      })
    })
    req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')))
    req.on('error', reject)
    req.end()
  })
}

describe('1. new detail rows all sent with Id -1, as the description shows them', () => {
  const ctx = freshMockPerTest()

  it('saves a new master with two -1 detail rows, reports both keys, and reads both rows back', async () => {
    const saved = await ctx.mock.post(SAVE, ctx.token, {
      Rows: [
        {
          Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Initech', Amount: 12, Status: 'Open' },
          Details: [
            {
              RelationKey: IDS.relationKey,
              Rows: [
                { Id: -1, IdRow: null, TIMESTAMP: null, Product: 'Stapler', Quantity: 2, UnitPrice: 6 },
                { Id: -1, IdRow: null, TIMESTAMP: null, Product: 'Paper', Quantity: 1, UnitPrice: 3 },
              ],
            },
          ],
        },
      ],
    })
    expect(saved.body).toMatchObject({ IsSaveSuccessfully: true, ReturnStates: [], CreatedItems: 3 })
    const keys = saved.body.ReturnData.PrimaryKeyData['-1'].newKeys
    expect(Object.keys(keys).sort()).toEqual(['Id', 'IdRow', 'OrderLines[0]', 'OrderLines[1]'])
    const lines = (await ctx.mock.items(ctx.token, `$filter=MasterId eq ${keys.Id}&$orderby=Id&relationKey=${IDS.relationKey}`)).body
    expect(lines.map((l: { Id: number; Product: string }) => [String(l.Id), l.Product])).toEqual([
      [keys['OrderLines[0]'], 'Stapler'],
      [keys['OrderLines[1]'], 'Paper'],
    ])
  })

  it('adds two -1 detail rows to an existing master, sent with its TIMESTAMP only', async () => {
    const [three] = (await ctx.mock.items(ctx.token, '$filter=Id eq 3')).body
    const saved = await ctx.mock.post(SAVE, ctx.token, {
      Rows: [
        {
          Row: { Id: 3, TIMESTAMP: version(three.TIMESTAMP) },
          Details: [
            {
              RelationKey: IDS.relationKey,
              Rows: [
                { Id: -1, IdRow: null, TIMESTAMP: null, Product: 'A' },
                { Id: -1, IdRow: null, TIMESTAMP: null, Product: 'B' },
              ],
            },
          ],
        },
      ],
    })
    expect(saved.body).toMatchObject({ IsSaveSuccessfully: true, CreatedItems: 2, UpdatedItems: 0 })
    expect(Object.keys(saved.body.ReturnData.PrimaryKeyData['3'].newKeys)).toEqual(['OrderLines[0]', 'OrderLines[1]'])
    const count = await ctx.mock.items(ctx.token, `$inlinecount=allpages&$filter=MasterId eq 3&relationKey=${IDS.relationKey}`)
    expect(count.body.Items[0]._FieldCount_).toBe(4)
  })
})

describe('2. GUIDs in any case', () => {
  const ctx = mockPerSuite()
  const upper = (id: string) => id.toUpperCase()

  it('reads with ApplicationId and WorkspaceId in upper case', async () => {
    const reply = await ctx.mock.post(
      '/ExplorerApi/api/items',
      ctx.token,
      { query: '$top=1' },
      {
        headers: { ApplicationId: upper(IDS.applicationId), WorkspaceId: upper(IDS.workspaceId) },
      },
    )
    expect(reply.status).toBe(200)
    expect(reply.body).toHaveLength(1)
  })

  it('reserves identities of an upper-case storage id, runs an upper-case action, queues through an upper-case provider', async () => {
    const reserved = await ctx.mock.request('GET', `/ExplorerApi/api/storage/${upper(IDS.masterStorageId)}/identity/IdRow/next/2`, {
      headers: ctx.mock.dataHeaders(ctx.token),
    })
    expect(reserved.status).toBe(200)
    const action = await ctx.mock.post('/ExplorerApi/api/action/run', ctx.token, { actionId: upper(IDS.actionFails), parametersMap: [] })
    expect(action.status).toBe(200)
    const mail = await ctx.mock.request('POST', '/webaggregator/api/v1/email/queue', {
      headers: { Authorization: `Bearer ${ctx.token}`, WorkspaceId: upper(IDS.workspaceId) },
      json: { providerId: upper(IDS.providerId), to: ['a@example.test'], subject: 's', body: 'b' },
    })
    expect(mail.status).toBe(200)
  })

  it('opens a row link whose application id is in upper case', async () => {
    const opened = await fetch(`${ctx.mock.url}/rowlink/${upper(IDS.applicationId)}/1`, { headers: { SessionToken: ctx.token } })
    expect(opened.status).toBe(200)
  })

  it('reads a fixture object given to startMock with upper-case ids, and uploads to an upper-case application id', async () => {
    const upperGuids = (_key: string, value: unknown) => (typeof value === 'string' && /^[0-9a-f-]{36}$/.test(value) ? value.toUpperCase() : value)
    const loaded = JSON.parse(JSON.stringify(defaultFixture(), upperGuids))
    const upper = await startTestMock({ fixtureData: loaded })
    try {
      const token = await upper.signIn()
      expect((await upper.items(token, '$top=1')).status).toBe(200)
      const added = upper.mock.addAttachment({
        parentId: 2,
        applicationId: IDS.applicationId.toUpperCase(),
        files: [{ name: 'a.txt', content: Buffer.from('a') }],
      })
      expect(added).toHaveLength(1)
    } finally {
      await upper.close()
    }
  })

  it('reads a fixture whose references use another case than its ids', async () => {
    const fixture = defaultFixture()
    fixture.organization.workspaces[0].applicationIds = [upper(IDS.applicationId)]
    fixture.organization.users.forEach((u: { workspaceIds: string[] }) => (u.workspaceIds = u.workspaceIds.map(upper)))
    delete fixture.attachments
    const mock = await startTestMock()
    try {
      mock.mock.loadFixture(fixture)
      const token = await mock.signIn()
      expect((await mock.items(token, '$top=1')).status).toBe(200)
    } finally {
      await mock.close()
    }
  })
})

describe('3. Generate Row Link: relationKey null, or left out', () => {
  const ctx = mockPerSuite()

  it('takes relationKey null, and without it reads null with a warning', async () => {
    const sent = await ctx.mock.post('/ExplorerApi/api/metadata/generaterowlink', ctx.token, { relationKey: null, values: 2, valueType: 1 })
    expect(sent.status).toBe(200)
    expect(sent.headers.get('x-mock-warnings')).toBeNull()
    const left = await ctx.mock.post('/ExplorerApi/api/metadata/generaterowlink', ctx.token, { values: 2, valueType: 1 })
    expect(left.status).toBe(200)
    expect(left.body).toBe(sent.body)
    expect(left.headers.get('x-mock-warnings')).toBe('ROW_LINK_WITHOUT_RELATION_KEY')
  })

  it('describes relationKey as const null, which generated clients can send; left out only in the lenient document', () => {
    const schema = buildDocument().components?.schemas?.RowLinkRequest as {
      required: string[]
      properties: { relationKey: Record<string, unknown> }
      'x-mock-strict': { required: string[] }
    }
    expect(schema.properties.relationKey.const).toBeNull()
    expect(schema.properties.relationKey.type).toBeUndefined()
    expect(schema.required).not.toContain('relationKey')
    expect(schema['x-mock-strict'].required).toContain('relationKey')
  })
})

describe('4 and 5. Run Action: the action is the one actionId names', () => {
  const ctx = freshMockPerTest()
  const run = (parametersMap: unknown[]) => ctx.mock.post('/ExplorerApi/api/action/run', ctx.token, { actionId: IDS.actionOk, parametersMap })
  const status = async (id: number) => (await ctx.mock.items(ctx.token, `$filter=Id eq ${id}`)).body[0].Status

  it.each(['usp_RecalculateTotals', 'USP_RECALCULATETOTALS', 'dbo.usp_RecalculateTotals', '[dbo].[usp_RecalculateTotals]'])(
    'runs with ProcedureName %s and no warning',
    async (name) => {
      const reply = await run([
        { Name: 'ProcedureName', Value: name },
        { Name: 'Parameters', Value: [{ key: 'Ids', value: '7' }] },
      ])
      expect(reply.status).toBe(200)
      expect(reply.headers.get('x-mock-warnings')).toBeNull()
      expect(await status(7)).toBe('Recalculated')
    },
  )

  it('runs with another ProcedureName, with a warning', async () => {
    const reply = await run([
      { Name: 'ProcedureName', Value: 'usp_SomethingElse' },
      { Name: 'Parameters', Value: [{ key: 'Ids', value: '8' }] },
    ])
    expect(reply.status).toBe(200)
    expect(reply.body.IsSuccessful).toBe(true)
    expect(reply.headers.get('x-mock-warnings')).toBe('PROCEDURE_NAME_MISMATCH')
    expect(await status(8)).toBe('Recalculated')
  })

  it('ignores entries other than ProcedureName and Parameters, and takes a null parameter value as empty text', async () => {
    const reply = await run([
      { Name: 'Timeout', Value: 30 },
      { Name: 'Culture', Value: 'de-DE' },
      {
        Name: 'Parameters',
        Value: [
          { key: 'Ids', value: '9' },
          { key: 'Note', value: null },
        ],
      },
    ])
    expect(reply.status).toBe(200)
    expect(reply.headers.get('x-mock-warnings')).toBe('UNKNOWN_ACTION_PARAMETER, NULL_PARAMETER_VALUE')
    expect(await status(9)).toBe('Recalculated')
  })
})

describe('6 and 7. Delete: both bodies on every release, a group without RelationKey, TIMESTAMP null', () => {
  const ctx = freshMockPerTest()
  const versionOf = async (id: number) => version((await ctx.mock.items(ctx.token, `$filter=Id eq ${id}`)).body[0].TIMESTAMP)
  const count = async () => (await ctx.mock.items(ctx.token, '$inlinecount=allpages')).body.Items[0]._FieldCount_

  it('takes the older body on 3.0.19, with a warning', async () => {
    const reply = await ctx.mock.post(DELETE, ctx.token, [{ Rows: [{ Row: { Id: 4, TIMESTAMP: await versionOf(4) }, Details: [] }] }])
    expect(reply.body).toMatchObject({ IsSaveSuccessfully: true, DeletedItems: 1 })
    expect(reply.headers.get('x-mock-warnings')).toBe('LEGACY_DELETE_BODY')
    expect(await count()).toBe(24)
  })

  it('deletes master rows for a group that leaves RelationKey out, with a warning', async () => {
    const reply = await ctx.mock.post(DELETE, ctx.token, [{ Rows: [{ Row: { Id: 5, TIMESTAMP: await versionOf(5) } }] }])
    expect(reply.body).toMatchObject({ IsSaveSuccessfully: true, DeletedItems: 1 })
    expect(reply.headers.get('x-mock-warnings')).toBe('DELETE_GROUP_WITHOUT_RELATION_KEY')
  })

  it('reads RelationKey sent empty as master rows, and deletes nothing for a group without rows, with warnings', async () => {
    const reply = await ctx.mock.post(DELETE, ctx.token, [
      { RelationKey: '', Rows: [{ Row: { Id: 8, TIMESTAMP: await versionOf(8) } }] },
      { RelationKey: IDS.relationKey, Rows: [] },
    ])
    expect(reply.body).toMatchObject({ IsSaveSuccessfully: true, DeletedItems: 1 })
    expect(reply.headers.get('x-mock-warnings')).toBe('EMPTY_RELATION_KEY, EMPTY_DELETE_GROUP')
    expect(await count()).toBe(24)
  })

  it('refuses TIMESTAMP null as a business failure (200, flag false), deleting nothing of the request', async () => {
    const reply = await ctx.mock.post(DELETE, ctx.token, [
      { RelationKey: null, Rows: [{ Row: { Id: 6, TIMESTAMP: await versionOf(6) } }, { Row: { Id: 7, TIMESTAMP: null } }] },
    ])
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({ IsSaveSuccessfully: false, DeletedItems: 0 })
    expect(reply.body.ReturnStates).toEqual([expect.objectContaining({ Code: 'CONCURRENCY', Id: 7, Field: 'TIMESTAMP' })])
    expect(await count()).toBe(25)
  })
})

describe('8. Get Items options the description does not list', () => {
  const ctx = mockPerSuite()

  it.each(['$select=Id,Customer', '$expand=OrderLines', '$count=true', 'constructor=x'])(
    'ignores %s with a warning and answers the same rows',
    async (option) => {
      const plain = await ctx.mock.items(ctx.token, '$top=3&$orderby=Id desc')
      const reply = await ctx.mock.items(ctx.token, `$top=3&${option}&$orderby=Id desc`)
      expect(reply.status).toBe(200)
      expect(reply.body).toEqual(plain.body)
      expect(reply.headers.get('x-mock-warnings')).toBe('UNSUPPORTED_QUERY_OPTION')
    },
  )

  it("refuses them in the older GET form, in both modes: its URL parameters are the mock's own reading, exactly the five its document lists", async () => {
    for (const strict of [false, true]) {
      const mock = await startTestMock({ productVersion: '2.9', strict })
      try {
        const token = await mock.signIn()
        const headers = { ApplicationId: IDS.applicationId, SessionToken: token }
        for (const query of ['$top=2&$select=Id', '$top=2&x-unknown=42', '$TOP=2&culture=de-DE']) {
          const reply = await mock.request('GET', `/ExplorerApi/api/items?${query}`, { headers })
          expect(reply.status, query).toBe(400)
          expect(reply.body).toMatchObject({ code: 'BAD_QUERY', detail: expect.stringMatching(/is not one of them/) })
        }
        // The five it lists, in any letter case, still answer.
        const listed = await mock.request('GET', `/ExplorerApi/api/items?$top=2&$Skip=1&$orderby=${encodeURIComponent('Id desc')}`, { headers })
        expect(listed.status).toBe(200)
        expect(listed.body).toHaveLength(2)
        expect(listed.headers.get('x-mock-warnings')).toBeNull()
      } finally {
        await mock.close()
      }
    }
  })
})

describe('members and parameters the document does not name', () => {
  const ctx = mockPerSuite()

  it('ignores an unknown body member, with a warning, where the body is otherwise valid', async () => {
    const reply = await ctx.mock.post('/ExplorerApi/api/attachments/download', ctx.token, { ids: [1], rk: '', format: 'zip' })
    expect(reply.status).toBe(200)
    expect(reply.contentType).toBe('application/pdf')
    expect(reply.headers.get('x-mock-warnings')).toBe('UNKNOWN_MEMBER')
    const query = await ctx.mock.post('/ExplorerApi/api/items', ctx.token, { query: '$top=2', culture: 'de-DE' })
    expect(query.status).toBe(200)
    expect(query.body).toHaveLength(2)
    expect(query.headers.get('x-mock-warnings')).toBe('UNKNOWN_MEMBER')
  })

  it('still refuses a body that is wrong beyond its unknown members', async () => {
    const reply = await ctx.mock.post('/ExplorerApi/api/attachments/download', ctx.token, { ids: 'one', format: 'zip' })
    expect(reply.status).toBe(400)
    expect(reply.body.violations.map((v: { pointer: string }) => v.pointer).sort()).toEqual(['/body/format', '/body/ids'])
  })

  it('ignores an undeclared URL parameter, with a warning', async () => {
    const reply = await ctx.mock.request('GET', `/ExplorerApi/api/attachments?$filter=${encodeURIComponent('ParentId eq 1')}&culture=de-DE`, {
      headers: ctx.mock.dataHeaders(ctx.token),
    })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('x-mock-warnings')).toBe('UNKNOWN_PARAMETER')
  })
})

describe('9. sign-in as an OAuth 2.0 password grant', () => {
  const ctx = mockPerSuite()
  const path = `/identityprovider/${IDS.org}/connect/token`

  it('ignores a form field it does not know, with a warning', async () => {
    const reply = await ctx.mock.request('POST', path, { form: { ...form, client_secret: 'anything' } })
    expect(reply.status).toBe(200)
    expect(typeof reply.body.access_token).toBe('string')
    expect(reply.headers.get('x-mock-warnings')).toBe('SIGN_IN_EXTRA_PARAMETER')
  })

  it('takes client_id from HTTP Basic client authentication, with a warning', async () => {
    const { client_id: _clientId, ...rest } = form
    const basic = (id: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:secret`).toString('base64')}`
    const reply = await ctx.mock.request('POST', path, { form: rest, headers: { Authorization: basic(IDS.clientId) } })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('x-mock-warnings')).toBe('CLIENT_ID_BY_BASIC_AUTH')
    const wrong = await ctx.mock.request('POST', path, { form: rest, headers: { Authorization: basic('someone-else') } })
    expect(wrong.status).toBe(401)
    expect(wrong.body.code).toBe('INVALID_CLIENT')
    // The journal shows the form as the client sent it, without a client_id.
    const [entry] = ctx.mock.mock.requests({ operationId: 'signIn', limit: 1, bodies: true })
    expect(entry?.request?.body).toEqual({ ...rest, password: '[redacted]' })
  })
})

describe('10. the attachments list reads its $filter like Get Items', () => {
  const ctx = mockPerSuite()
  const list = (filter: string, relationKey?: string) =>
    ctx.mock.request(
      'GET',
      `/ExplorerApi/api/attachments?$filter=${encodeURIComponent(filter)}${relationKey === undefined ? '' : `&relationKey=${relationKey}`}`,
      {
        headers: ctx.mock.dataHeaders(ctx.token),
      },
    )

  it.each(["ParentId eq '1'", 'ParentId  eq  1', 'parentid EQ 1', ' ParentId eq 1 ', 'ParentId eq 1 and FolderId eq null', '(ParentId eq 1)'])(
    'lists the top level of master row 1 for %j',
    async (filter) => {
      const reply = await list(filter)
      expect(reply.status).toBe(200)
      expect(reply.body.map((a: { Name: string }) => a.Name)).toEqual(['invoice.pdf', 'Photos'])
    },
  )

  it("lists a folder with FolderId quoted, and a folder's TypeImage is empty", async () => {
    const [, photos] = (await list('ParentId eq 1')).body
    expect(photos).toMatchObject({ IsFolder: true, TypeImage: '' })
    const inside = await list(`ParentId eq 1 and FolderId eq '${photos.Id}'`)
    expect(inside.body.map((a: { Name: string }) => a.Name)).toEqual(['front.jpg', 'back.jpg'])
  })

  it('reads relationKey= sent empty as absent, with a warning, in the list and in Get Items', async () => {
    const reply = await list('ParentId eq 1', '')
    expect(reply.status).toBe(200)
    expect(reply.body).toHaveLength(2)
    expect(reply.headers.get('x-mock-warnings')).toBe('EMPTY_RELATION_KEY')
    const items = await ctx.mock.items(ctx.token, '$top=1&relationKey=')
    expect(items.status).toBe(200)
    expect(items.body[0]).toHaveProperty('Customer')
    expect(items.headers.get('x-mock-warnings')).toBe('EMPTY_RELATION_KEY')
  })
})

describe('11. optional members sent as null, and e-mail addresses as RFC 5322 allows them', () => {
  const ctx = mockPerSuite()
  const send = (body: unknown) =>
    ctx.mock.request('POST', '/webaggregator/api/v1/email/queue', {
      json: body,
      headers: { Authorization: `Bearer ${ctx.token}`, WorkspaceId: IDS.workspaceId },
    })

  it('downloads with rk null as with rk left out, with a warning', async () => {
    const reply = await ctx.mock.post('/ExplorerApi/api/attachments/download', ctx.token, { ids: [1], rk: null })
    expect(reply.status).toBe(200)
    expect(reply.contentType).toBe('application/pdf')
    expect(reply.headers.get('x-mock-warnings')).toBe('NULL_OPTIONAL_MEMBER')
  })

  it('queues with providerId null through the default provider, with a warning', async () => {
    const reply = await send({ providerId: null, to: ['a@example.test'], subject: 's', body: 'b' })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('x-mock-warnings')).toBe('NULL_OPTIONAL_MEMBER')
    expect(ctx.mock.mock.app.outbox.list().at(-1)?.providerId).toBe(IDS.providerId)
  })

  it('queues to a display-name address and to a dotless domain', async () => {
    const reply = await send({ to: ['Jane Doe <jane@northwind.example>', 'ops@localhost'], subject: 's', body: 'b' })
    expect(reply.status).toBe(200)
    expect(ctx.mock.mock.app.outbox.list().at(-1)?.to).toEqual(['Jane Doe <jane@northwind.example>', 'ops@localhost'])
  })

  it('signs in a fixture user whose address has a dotless domain', async () => {
    const fixture = defaultFixture()
    fixture.organization.users[0].email = 'admin@localhost'
    delete fixture.attachments
    const mock = await startTestMock()
    try {
      mock.mock.loadFixture(fixture)
      expect(await mock.signIn({ username: 'admin@localhost', password: IDS.admin.password })).toMatch(/./)
    } finally {
      await mock.close()
    }
  })
})

describe('12 and 13. Save: an empty detail group, and a member named __proto__', () => {
  const ctx = freshMockPerTest()

  it('saves a master with an empty detail group, with a warning', async () => {
    const reply = await ctx.mock.post(SAVE, ctx.token, {
      Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Empty' }, Details: [{ RelationKey: IDS.relationKey, Rows: [] }] }],
    })
    expect(reply.body).toMatchObject({ IsSaveSuccessfully: true, CreatedItems: 1 })
    expect(reply.headers.get('x-mock-warnings')).toBe('EMPTY_DETAIL_GROUP')
  })

  it('refuses a constructor member as any unknown field', async () => {
    const body = '{"Rows":[{"Row":{"Id":-1,"IdRow":null,"TIMESTAMP":null,"Customer":"X","constructor":{"prototype":{}}},"Details":[]}]}'
    const reply = await ctx.mock.request('POST', SAVE, { body, headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json' } })
    expect(reply.status).toBe(400)
    expect(reply.body.code).toBe('VALIDATION')
    const scalar = '{"Rows":[{"Row":{"Id":-1,"IdRow":null,"TIMESTAMP":null,"Customer":"X","constructor":"x"},"Details":[]}]}'
    const refused = await ctx.mock.request('POST', SAVE, { body: scalar, headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json' } })
    expect(refused.body.ReturnStates).toEqual([expect.objectContaining({ Code: 'UNKNOWN_FIELD', Field: 'constructor' })])
  })

  it('refuses TIMESTAMP null on an update as it does in a delete: it matches no row version', async () => {
    const reply = await ctx.mock.post(SAVE, ctx.token, { Rows: [{ Row: { Id: 2, TIMESTAMP: null, Status: 'x' }, Details: [] }] })
    expect(reply.body.IsSaveSuccessfully).toBe(false)
    expect(reply.body.ReturnStates).toEqual([expect.objectContaining({ Code: 'CONCURRENCY', Id: 2, Field: 'TIMESTAMP' })])
  })

  it('names new rows of two groups of one relation key by their positions across both groups', async () => {
    const line = (product: string) => ({ Id: -1, IdRow: null, TIMESTAMP: null, Product: product })
    const reply = await ctx.mock.post(SAVE, ctx.token, {
      Rows: [
        {
          Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Two groups' },
          Details: [
            { RelationKey: IDS.relationKey, Rows: [line('A')] },
            { RelationKey: IDS.relationKey, Rows: [line('B')] },
          ],
        },
      ],
    })
    const keys = reply.body.ReturnData.PrimaryKeyData['-1'].newKeys
    expect(Object.keys(keys).sort()).toEqual(['Id', 'IdRow', 'OrderLines[0]', 'OrderLines[1]'])
    const lines = (await ctx.mock.items(ctx.token, `$filter=MasterId eq ${keys.Id}&$orderby=Id&relationKey=${IDS.relationKey}`)).body
    expect(lines.map((l: { Id: number; Product: string }) => [String(l.Id), l.Product])).toEqual([
      [keys['OrderLines[0]'], 'A'],
      [keys['OrderLines[1]'], 'B'],
    ])
  })

  it('refuses a __proto__ member as any unknown field, with nothing written and no prototype changed', async () => {
    const body = '{"Rows":[{"Row":{"Id":-1,"IdRow":null,"TIMESTAMP":null,"Customer":"X","__proto__":"polluted"},"Details":[]}]}'
    const reply = await ctx.mock.request('POST', SAVE, { body, headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json' } })
    expect(reply.status).toBe(200)
    expect(reply.body.IsSaveSuccessfully).toBe(false)
    expect(reply.body.ReturnStates).toEqual([expect.objectContaining({ Code: 'UNKNOWN_FIELD', Field: '__proto__' })])
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    expect((await ctx.mock.items(ctx.token, '$inlinecount=allpages')).body.Items[0]._FieldCount_).toBe(25)
  })
})

describe('14 and 15. methods a path does not take, and problems that name what is wrong', () => {
  const ctx = mockPerSuite()

  it.each([
    ['TRACE', '/ExplorerApi/api/items', 'POST'],
    ['GET', SAVE, 'POST'],
    ['DELETE', '/ExplorerApi/api/attachments', 'GET, HEAD'],
    ['POST', '/ExplorerApi/api/storage/x/identity/IdRow/next/3', 'GET, HEAD'],
  ])('answers %s %s with 405 and Allow: %s', async (method, path, allow) => {
    const reply = await raw(ctx.mock.url, method, path)
    expect(reply.status).toBe(405)
    expect(reply.headers.allow).toBe(allow)
    expect(reply.body).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED' })
  })

  it('still answers 404 for a path no route has', async () => {
    expect((await raw(ctx.mock.url, 'GET', '/ExplorerApi/api/nothing')).status).toBe(404)
  })

  it.each([
    ['constructor', 200],
    ['constructor=x&toString=y', 200],
    ['$top', 400],
    ['$top=x', 400],
    ['$orderby=', 400],
    ['relationKey=Nope', 404],
  ])('answers the query %j with %i, and a refusal names what was wrong', async (query, status) => {
    const reply = await ctx.mock.items(ctx.token, query)
    expect(reply.status).toBe(status)
    if (status === 200) expect(reply.headers.get('x-mock-warnings')).toBe('UNSUPPORTED_QUERY_OPTION')
    else expect(reply.body.detail).toMatch(/\w{3,}/)
  })

  it('matches paths in any case, as the product routes them', async () => {
    const reply = await ctx.mock.post('/explorerapi/API/Items', ctx.token, { query: '$top=1' })
    expect(reply.status).toBe(200)
    expect(reply.body).toHaveLength(1)
  })
})

describe('16. a row link opens rows only for a session allowed to read them', () => {
  const ctx = mockPerSuite()
  const open = (path: string, headers: Record<string, string> = {}) => fetch(`${ctx.mock.url}${path}`, { headers })

  it('needs a session token', async () => {
    const reply = await open(`/rowlink/${IDS.applicationId}/1`)
    expect(reply.status).toBe(401)
    expect(((await reply.json()) as { code: string }).code).toBe('MISSING_TOKEN')
  })

  it('never shows a field hidden from the user', async () => {
    const viewer = await ctx.mock.signIn(IDS.viewer)
    const rows = (await (await open(`/rowlink/${IDS.applicationId}/1`, { SessionToken: viewer })).json()) as Array<Record<string, unknown>>
    expect(rows[0]).toHaveProperty('Customer')
    expect(rows[0]).not.toHaveProperty('Amount')
    const admin = (await (await open(`/rowlink/${IDS.applicationId}/1`, { SessionToken: ctx.token })).json()) as Array<Record<string, unknown>>
    expect(admin[0]).toHaveProperty('Amount')
  })

  it("opens no application outside the user's workspaces", async () => {
    const viewer = await ctx.mock.signIn(IDS.viewer)
    expect((await open(`/rowlink/${SUPPLIERS.applicationId}/1`, { SessionToken: viewer })).status).toBe(404)
    expect((await open(`/rowlink/${SUPPLIERS.applicationId}/1`, { SessionToken: ctx.token })).status).toBe(200)
  })
})

describe('17. secrets in the URL are shown nowhere', () => {
  it('redacts ?SessionToken= and ?password= in the journal and in the log', async () => {
    let log = ''
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        log += chunk.toString()
        done()
      },
    })
    const mock = await startTestMock({ logLevel: 'debug', logStream })
    try {
      const token = await mock.signIn()
      await mock.request('GET', `/ExplorerApi/api/attachments?$filter=ParentId%20eq%201&SessionToken=${token}&password=hunter2`, {
        headers: mock.dataHeaders(token),
      })
      const [entry] = mock.mock.requests({ operationId: 'listAttachments' })
      expect(entry?.url).toBe('/ExplorerApi/api/attachments?$filter=ParentId%20eq%201&SessionToken=[redacted]&password=[redacted]')
      expect(log).toContain('SessionToken=[redacted]&password=[redacted]')
      expect(log).not.toContain(token)
      expect(log).not.toContain('hunter2')
      // A request that raised a warning is logged at warn, its line naming the warning's code.
      await mock.post('/ExplorerApi/api/items', token, { query: '$top=1&$select=Id' })
      const line = log.split('\n').find((text) => text.includes('UNSUPPORTED_QUERY_OPTION'))
      expect(JSON.parse(line ?? '{}')).toMatchObject({
        level: 40,
        msg: expect.stringMatching(/^POST \/ExplorerApi\/api\/items(\?\S*)? queryItems 200 [\d.]+ ms warnings UNSUPPORTED_QUERY_OPTION$/),
      })
    } finally {
      await mock.close()
    }
  })
})

describe('18. a live token works until it expires', () => {
  it('refuses a sign-in past --max-sessions rather than ending a live session, and makes room as sessions expire', async () => {
    const mock = await startTestMock({ maxSessions: 3, tokenTtl: 60 })
    try {
      const first = await mock.signIn()
      await mock.signIn()
      await mock.signIn()
      const fourth = await mock.request('POST', `/identityprovider/${IDS.org}/connect/token`, { form })
      expect(fourth.status).toBe(503)
      expect(fourth.body.code).toBe('TOO_MANY_SESSIONS')
      expect((await mock.items(first, '$top=1')).status).toBe(200)
      mock.mock.advanceClock(61_000)
      expect((await mock.items(first, '$top=1')).body.code).toBe('TOKEN_EXPIRED')
      expect(typeof (await mock.signIn())).toBe('string')
    } finally {
      await mock.close()
    }
  })
})

describe('21. the document names a real installation over HTTPS and this mock by its own origin', () => {
  const ctx = mockPerSuite()

  it('serves its own origin as the first server, and the installation as an HTTPS server with a variable', async () => {
    for (const path of ['/openapi.json', '/docs/json']) {
      const document = (await ctx.mock.request('GET', path, { unchecked: true })).body as { servers: Array<{ url: string; variables?: object }> }
      expect(document.servers[0]?.url).toBe(ctx.mock.url)
      expect(document.servers[1]).toMatchObject({ url: 'https://{host}', variables: { host: expect.any(Object) } })
    }
    const yaml = (await ctx.mock.request('GET', '/openapi.yaml', { unchecked: true })).body as string
    expect(yaml).toContain(`url: ${ctx.mock.url}`)
  })
})

describe('an application that exists but is not in the workspace named', () => {
  const ctx = mockPerSuite()

  it('is refused with 404 for its own workspace mismatch, and 403 for a user outside the workspace', async () => {
    const wrongWorkspace = await ctx.mock.post(
      '/ExplorerApi/api/items',
      ctx.token,
      { query: '$top=1' },
      { headers: { ApplicationId: SUPPLIERS.applicationId } },
    )
    expect(wrongWorkspace.status).toBe(404)
    expect(wrongWorkspace.body.code).toBe('UNKNOWN_APPLICATION')
    const right = await ctx.mock.post(
      '/ExplorerApi/api/items',
      ctx.token,
      { query: '$top=5' },
      { headers: { ApplicationId: SUPPLIERS.applicationId, WorkspaceId: SUPPLIERS.workspaceId } },
    )
    expect(right.status).toBe(200)
    expect(right.body.map((r: { Name: string }) => r.Name)).toHaveLength(3)
    const viewer = await ctx.mock.signIn(IDS.viewer)
    const foreign = await ctx.mock.post(
      '/ExplorerApi/api/items',
      viewer,
      { query: '$top=1' },
      { headers: { ApplicationId: SUPPLIERS.applicationId, WorkspaceId: SUPPLIERS.workspaceId } },
    )
    expect(foreign.status).toBe(403)
    expect(foreign.body.code).toBe('FOREIGN_WORKSPACE')
  })
})

describe('delete boundaries', () => {
  const ctx = freshMockPerTest()

  it('refuses a row named twice for that reason, with its TIMESTAMP current, and deletes nothing', async () => {
    const [row] = (await ctx.mock.items(ctx.token, '$filter=Id eq 10')).body
    const key = { Row: { Id: 10, TIMESTAMP: version(row.TIMESTAMP) } }
    const reply = await ctx.mock.post(DELETE, ctx.token, [{ RelationKey: null, Rows: [key, key] }])
    expect(reply.body.IsSaveSuccessfully).toBe(false)
    expect(reply.body.ReturnStates).toEqual([expect.objectContaining({ Code: 'DUPLICATE_ROW', Id: 10 })])
    expect((await ctx.mock.items(ctx.token, '$filter=Id eq 10')).body).toHaveLength(1)
  })

  it('counts in DeletedItems exactly the rows named', async () => {
    const rows = (await ctx.mock.items(ctx.token, '$filter=Id eq 11 or Id eq 12&$orderby=Id')).body
    const [line] = (await ctx.mock.items(ctx.token, `$filter=MasterId eq 13&$top=1&relationKey=${IDS.relationKey}`)).body
    const reply = await ctx.mock.post(DELETE, ctx.token, [
      { RelationKey: null, Rows: rows.map((r: { Id: number; TIMESTAMP: string }) => ({ Row: { Id: r.Id, TIMESTAMP: version(r.TIMESTAMP) } })) },
      { RelationKey: IDS.relationKey, Rows: [{ Row: { Id: line.Id, TIMESTAMP: version(line.TIMESTAMP) } }] },
    ])
    // Two masters (with their four detail rows, not counted) and one detail row.
    expect(reply.body).toMatchObject({ IsSaveSuccessfully: true, DeletedItems: 3 })
  })
})
