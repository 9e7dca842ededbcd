/**
 * Lenient by default, strict on request: every warning of the catalog is raised by the request a
 * client would send, reported in `X-Mock-Warnings` and the journal, and turned into a 400
 * `STRICT_MODE` problem naming the rule by `--strict`, `MOCK_STRICT` or the `X-Mock-Strict` header.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { INFORMATIONAL_WARNINGS, STRICT_HEADER, WARNINGS, type WarningCode } from '../../src/policy/warnings.ts'
import { parseConfig } from '../../src/mock/config.ts'
import { IDS, startTestMock, type Reply, type TestClient } from '../helpers/http.ts'

type Send = (client: TestClient, token: string, headers: Record<string, string>) => Promise<Reply>

const form = { client_id: IDS.clientId, username: IDS.admin.username, password: IDS.admin.password, grant_type: 'password', scope: 'openid apiv1 nosession' }
const signInPath = `/identityprovider/${IDS.org}/connect/token`
const basic = `Basic ${Buffer.from(`${IDS.clientId}:secret`).toString('base64')}`

const post =
  (path: string, body: unknown): Send =>
  (client, token, headers) =>
    client.post(path, token, body, { headers })
const action = (parametersMap: unknown[]) => post('/ExplorerApi/api/action/run', { actionId: IDS.actionFails, parametersMap })

/**
 * One request per warning that raises exactly that warning; stale row versions (0) keep the data
 * unchanged in lenient mode. An informational warning (`status` given) is answered with that status
 * in both modes.
 */
const TRIGGERS: Array<{ code: WarningCode; release?: string; send: Send; status?: number }> = [
  { code: 'UNSUPPORTED_QUERY_OPTION', send: post('/ExplorerApi/api/items', { query: '$top=1&$select=Id' }) },
  { code: 'EMPTY_RELATION_KEY', send: post('/ExplorerApi/api/items', { query: '$top=1&relationKey=' }) },
  // A raw & in a quoted value: the description's query text is &-separated (the description, Get Items).
  { code: 'QUOTED_AMPERSAND', send: post('/ExplorerApi/api/items', { query: "$top=1&$filter=Customer eq 'Smith & Sons'" }) },
  // The description sends sign-in as a form (the description, Sign in (current)); the same fields as JSON.
  { code: 'SIGN_IN_JSON_BODY', send: (client, _token, headers) => client.request('POST', signInPath, { json: form, headers }) },
  {
    code: 'SIGN_IN_EXTRA_PARAMETER',
    send: (client, _token, headers) => client.request('POST', signInPath, { form: { ...form, client_secret: 's' }, headers }),
  },
  {
    code: 'CLIENT_ID_BY_BASIC_AUTH',
    send: (client, _token, headers) => {
      const { client_id: _id, ...rest } = form
      return client.request('POST', signInPath, { form: rest, headers: { ...headers, Authorization: basic } })
    },
  },
  { code: 'LEGACY_DELETE_BODY', send: post('/ExplorerApi/api/items/delete', [{ Rows: [{ Row: { Id: 1, TIMESTAMP: 0 }, Details: [] }] }]) },
  {
    code: 'CURRENT_DELETE_BODY',
    release: '2.9',
    send: post('/ExplorerApi/api/items/delete', [{ RelationKey: null, Rows: [{ Row: { Id: 1, TIMESTAMP: 0 } }] }]),
  },
  { code: 'DELETE_GROUP_WITHOUT_RELATION_KEY', send: post('/ExplorerApi/api/items/delete', [{ Rows: [{ Row: { Id: 1, TIMESTAMP: 0 } }] }]) },
  {
    code: 'EMPTY_DETAIL_GROUP',
    send: post('/ExplorerApi/api/items/save', { Rows: [{ Row: { Id: 1, TIMESTAMP: 0, Status: 'x' }, Details: [{ RelationKey: IDS.relationKey, Rows: [] }] }] }),
  },
  { code: 'PROCEDURE_NAME_MISMATCH', send: action([{ Name: 'ProcedureName', Value: 'usp_Other' }]) },
  { code: 'UNKNOWN_ACTION_PARAMETER', send: action([{ Name: 'Timeout', Value: 30 }]) },
  { code: 'NULL_PARAMETER_VALUE', send: action([{ Name: 'Parameters', Value: [{ key: 'Period', value: null }] }]) },
  { code: 'NULL_OPTIONAL_MEMBER', send: post('/ExplorerApi/api/attachments/download', { ids: [1], rk: null }) },
  { code: 'ROW_LINK_WITHOUT_RELATION_KEY', send: post('/ExplorerApi/api/metadata/generaterowlink', { values: 1, valueType: 1 }) },
  { code: 'VALUE_FORM_CONVERTED', send: post('/ExplorerApi/api/items/save', { Rows: [{ Row: { Id: 1, TIMESTAMP: 0, Amount: '12.5' }, Details: [] }] }) },
  { code: 'UNKNOWN_MEMBER', send: post('/ExplorerApi/api/attachments/download', { ids: [1], format: 'zip' }) },
  { code: 'UNKNOWN_PARAMETER', send: post('/ExplorerApi/api/items?culture=de-DE', { query: '$top=1' }) },
  { code: 'EMPTY_DELETE_GROUP', send: post('/ExplorerApi/api/items/delete', [{ RelationKey: null, Rows: [] }]) },
  {
    // An answer rule the test marked off the document (a count where rows belong), used once per request.
    code: 'OFF_DOCUMENT_ANSWER',
    send: (client, token, headers) => {
      client.mock.stub({
        operationId: 'queryItems',
        match: { body: { query: '$top=1&$skip=7' } },
        answer: { body: { count: 'many' } },
        offDocument: true,
        times: 1,
      })
      return client.request('POST', '/ExplorerApi/api/items', {
        json: { query: '$top=1&$skip=7' },
        headers: { ...client.dataHeaders(token), ...headers },
        unchecked: true,
      })
    },
  },
  {
    // A gateway status the test asked for: informational, so strict mode answers it too.
    code: 'INFRASTRUCTURE_ANSWER',
    status: 503,
    send: (client, token, headers) => {
      client.mock.setFaults([{ operationId: 'queryItems', status: 503, times: 1 }])
      return client.request('POST', '/ExplorerApi/api/items', {
        json: { query: '$top=1' },
        headers: { ...client.dataHeaders(token), ...headers },
        unchecked: true,
      })
    },
  },
]

describe('the warning catalog', () => {
  it('has a trigger below for every code', () => {
    expect(TRIGGERS.map((t) => t.code).sort()).toEqual(Object.keys(WARNINGS).sort())
  })
  it('expects an answer in strict mode exactly for the informational codes', () => {
    expect(
      TRIGGERS.filter((t) => t.status !== undefined)
        .map((t) => t.code)
        .sort(),
    ).toEqual([...INFORMATIONAL_WARNINGS].sort())
  })
})

for (const release of ['3.0.19', '2.9']) {
  describe(`warnings on release ${release}`, () => {
    let client: TestClient
    let token: string
    beforeAll(async () => {
      client = await startTestMock({ productVersion: release })
      token = await client.signIn()
    })
    afterAll(() => client?.close())

    for (const trigger of TRIGGERS.filter((t) => (t.release ?? '3.0.19') === release && t.status !== undefined)) {
      it(`${trigger.code}: answered with the warning when lenient and when strict (informational)`, async () => {
        for (const strict of ['0', '1']) {
          client.mock.clearRequests()
          const reply = await trigger.send(client, token, { [STRICT_HEADER]: strict })
          expect(reply.status, JSON.stringify(reply.body)).toBe(trigger.status)
          expect(reply.headers.get('x-mock-warnings')).toBe(trigger.code)
          const [entry] = client.mock.requests()
          expect(entry?.warnings).toEqual([{ code: trigger.code, message: expect.stringMatching(/\w{3,}/) }])
        }
      })
    }

    for (const trigger of TRIGGERS.filter((t) => (t.release ?? '3.0.19') === release && t.status === undefined)) {
      it(`${trigger.code}: accepted with the warning when lenient, refused with STRICT_MODE when strict`, async () => {
        client.mock.clearRequests()
        const lenient = await trigger.send(client, token, {})
        expect(lenient.status, JSON.stringify(lenient.body)).toBe(200)
        expect(lenient.headers.get('x-mock-warnings')).toBe(trigger.code)
        const [entry] = client.mock.requests()
        expect(entry?.warnings).toEqual([{ code: trigger.code, message: expect.stringMatching(/\w{3,}/) }])

        const strict = await trigger.send(client, token, { [STRICT_HEADER]: '1' })
        expect(strict.status).toBe(400)
        expect(strict.body).toMatchObject({ code: 'STRICT_MODE', warning: trigger.code })
        expect(strict.body.detail).toContain(WARNINGS[trigger.code])
      })
    }
  })
}

describe('--strict', () => {
  let client: TestClient
  let token: string
  beforeAll(async () => {
    client = await startTestMock({ strict: true })
    token = await client.signIn()
  })
  afterAll(() => client?.close())

  it('refuses what lenient mode accepts, and writes nothing of a refused request', async () => {
    const before = (await client.items(token, '$filter=Id eq 2')).body[0]
    const refused = await client.post('/ExplorerApi/api/items/save', token, {
      Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Strict' }, Details: [{ RelationKey: IDS.relationKey, Rows: [] }] }],
    })
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ code: 'STRICT_MODE', warning: 'EMPTY_DETAIL_GROUP' })
    expect((await client.items(token, '$inlinecount=allpages')).body.Items[0]._FieldCount_).toBe(25)
    expect((await client.items(token, '$filter=Id eq 2')).body[0]).toEqual(before)
  })

  it('refuses a JSON sign-in and a raw & inside a quoted $filter value (the description: a form, an &-separated query text)', async () => {
    const json = await client.request('POST', signInPath, { json: form })
    expect(json.status).toBe(400)
    expect(json.body).toMatchObject({ code: 'STRICT_MODE', warning: 'SIGN_IN_JSON_BODY' })
    const ampersand = await client.items(token, "$filter=Customer eq 'Smith & Sons'")
    expect(ampersand.status).toBe(400)
    expect(ampersand.body).toMatchObject({ code: 'STRICT_MODE', warning: 'QUOTED_AMPERSAND' })
    // Encoded, the ampersand is part of the value as the description's &-separated text allows.
    const encoded = await client.items(token, `$filter=${encodeURIComponent("Customer eq 'Smith & Sons'")}`)
    expect(encoded.status).toBe(200)
    expect(encoded.headers.get('x-mock-warnings')).toBeNull()
  })

  it('accepts everything the description shows, with no warning', async () => {
    const reply = await client.items(token, "$top=2&$orderby=Id desc&$filter=Status eq 'Open'")
    expect(reply.status).toBe(200)
    expect(reply.headers.get('x-mock-warnings')).toBeNull()
  })

  it('lets one request ask for lenient handling with X-Mock-Strict: 0', async () => {
    const reply = await client.post('/ExplorerApi/api/items', token, { query: '$top=1&$expand=Lines' }, { headers: { [STRICT_HEADER]: '0' } })
    expect(reply.status).toBe(200)
    expect(reply.headers.get('x-mock-warnings')).toBe('UNSUPPORTED_QUERY_OPTION')
  })

  it('is also switched on by MOCK_STRICT, and a bad value is refused at start', () => {
    expect(parseConfig([], { MOCK_STRICT: '1' }).strict).toBe(true)
    expect(parseConfig([], { MOCK_STRICT: 'false' }).strict).toBe(false)
    expect(parseConfig(['--strict'], {}).strict).toBe(true)
    expect(() => parseConfig([], { MOCK_STRICT: 'maybe' })).toThrow(/MOCK_STRICT must be 1 or 0/)
  })
})
