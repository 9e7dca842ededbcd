/**
 * Identifiers as installations have them: a 24-hex-digit Domain Id as the WorkspaceId (releases
 * before 3.0) and a GUID as the Detail Relation Key, in a fixture and in requests, in lenient
 * and strict mode; a capture of such a mock loads into a mock that answers the same typed values.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startMock, type LaunchedMock } from '../../src/mock/mock.ts'
import { IDS, startTestMock, type TestClient } from '../helpers/http.ts'
import { tempDir } from '../helpers/temp-dir.ts'
import { capture } from '../contracts/support.ts'

const DOMAIN_ID = '5e5d0d90bea69e451ad8bc1d'
const RELATION_GUID = 'f16e802a-0334-4dfe-a799-f5c13b7da00a'
const DEFAULT_FIXTURE = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8')) as Record<string, any>

/** The default fixture with its Sales workspace under a Domain Id and OrderLines under a GUID relation key. */
function installationLike(): Record<string, any> {
  const json = JSON.parse(JSON.stringify(DEFAULT_FIXTURE).replaceAll(IDS.workspaceId, DOMAIN_ID)) as Record<string, any>
  json.applications[0].details[0].relationKey = RELATION_GUID
  const data = json.data[IDS.applicationId]
  data.details = { [RELATION_GUID]: data.details.OrderLines }
  for (const attachment of json.attachments) if (attachment.relationKey === 'OrderLines') attachment.relationKey = RELATION_GUID
  return json
}

describe.each([false, true])('a Domain Id and a GUID relation key (strict %s)', (strict) => {
  let mock: TestClient
  let token: string
  beforeAll(async () => {
    mock = await startTestMock({ strict, fixtureData: installationLike() })
    token = await mock.signIn()
  })
  afterAll(() => mock?.close())
  const headers = { WorkspaceId: DOMAIN_ID }

  it('reads masters and details with them, the GUID in any case', async () => {
    const masters = await mock.post('/ExplorerApi/api/items', token, { query: '$top=2' }, { headers })
    expect(masters.status).toBe(200)
    expect(masters.body).toHaveLength(2)
    for (const key of [RELATION_GUID, RELATION_GUID.toUpperCase()]) {
      const lines = await mock.post(
        '/ExplorerApi/api/items',
        token,
        { query: `$filter=MasterId eq 1&relationKey=${key}` },
        { headers: { WorkspaceId: DOMAIN_ID.toUpperCase() } },
      )
      expect(lines.status).toBe(200)
      expect(lines.body.map((row: { MasterId: number }) => row.MasterId)).toEqual([1, 1])
    }
    const attachments = await mock.request('GET', `/ExplorerApi/api/attachments?$filter=ParentId eq 1&relationKey=${RELATION_GUID}`, {
      headers: mock.dataHeaders(token, headers),
    })
    expect(attachments.body.map((a: { Name: string }) => a.Name)).toEqual(['spec.txt'])
  })

  it('saves and deletes a detail row under the GUID relation key', async () => {
    const saved = await mock.post(
      '/ExplorerApi/api/items/save',
      token,
      {
        Rows: [
          {
            Row: { Id: 2, TIMESTAMP: null },
            Details: [{ RelationKey: RELATION_GUID, Rows: [{ Id: -1, IdRow: null, TIMESTAMP: null, Product: 'Crate', Quantity: 1, UnitPrice: 2 }] }],
          },
        ],
      },
      { headers },
    )
    expect(saved.body.IsSaveSuccessfully).toBe(true)
    const [line] = (await mock.post('/ExplorerApi/api/items', token, { query: `$filter=Product eq 'Crate'&relationKey=${RELATION_GUID}` }, { headers })).body
    const version = Number(Buffer.from(line.TIMESTAMP, 'base64').readBigUInt64BE())
    const deleted = await mock.post(
      '/ExplorerApi/api/items/delete',
      token,
      [{ RelationKey: RELATION_GUID, Rows: [{ Row: { Id: line.Id, TIMESTAMP: version } }] }],
      { headers },
    )
    expect(deleted.body).toMatchObject({ IsSaveSuccessfully: true, DeletedItems: 1 })
  })

  it('refuses a WorkspaceId of neither form, naming the header', async () => {
    const reply = await mock.post('/ExplorerApi/api/items', token, { query: '$top=1' }, { headers: { WorkspaceId: '5e5d0d90bea69e451ad8bc1' } })
    expect(reply.status).toBe(400)
    expect(JSON.stringify(reply.body)).toContain('/headers/WorkspaceId')
  })
})

describe('a capture of a mock with a GUID relation key and typed values', () => {
  let source: LaunchedMock
  let copy: LaunchedMock
  beforeAll(async () => {
    const fixture = installationLike()
    // Deliveries gets a detail table under a GUID relation key, so the capture reads typed values through one.
    source = await startMock({ logLevel: 'silent', fixtureData: fixture })
  })
  afterAll(async () => {
    await copy?.close()
    await source?.close()
  })

  it('loads, and the mock started from it answers the same typed values', async () => {
    const file = join(tempDir('appdata-kit-ids-'), 'captured.json')
    const args = ['--base-url', source.url, '--org', IDS.org, '--username', IDS.admin.username, '--password', IDS.admin.password, '--workspace-id', DOMAIN_ID]
    const lines = await capture([...args, '--application-id', IDS.applicationId, '--relation-key', RELATION_GUID, '--no-anonymise', '--out', file])
    expect(lines.code, lines.out + lines.err).toBe(0)
    const deliveries = `${file}.deliveries.json`
    const typed = await capture([...args, '--application-id', IDS.deliveriesId, '--no-anonymise', '--out', deliveries])
    expect(typed.code, typed.out + typed.err).toBe(0)
    copy = await startMock({ logLevel: 'silent', fixture: deliveries })
    const sourceRows = await rowsOf(source)
    // The captured user signs in to the copy with --fixture-password's default.
    const copyRows = await rowsOf(copy, 'sandbox-pass')
    expect(sourceRows).toHaveLength(10)
    const userFields = (row: Record<string, unknown>) =>
      Object.fromEntries(Object.entries(row).filter(([name]) => !['TIMESTAMP', 'CT_ATTACHMENTS', 'ROW_ORDER'].includes(name)))
    expect(copyRows.map(userFields)).toEqual(sourceRows.map(userFields))
    const loaded = JSON.parse(readFileSync(file, 'utf8'))
    expect(loaded.applications[0].details[0].relationKey).toBe(RELATION_GUID)
    expect(loaded.organization.workspaces[0].id).toBe(DOMAIN_ID)
  })
})

/** The Deliveries rows a mock answers, read with the package's client. */
async function rowsOf(mock: LaunchedMock, password: string = IDS.admin.password): Promise<Array<Record<string, unknown>>> {
  await mock.client.signIn({ username: IDS.admin.username, password })
  mock.client.use({ workspaceId: DOMAIN_ID, applicationId: IDS.deliveriesId })
  return (await mock.client.rows({ orderBy: 'Id asc', top: 100 })) as Array<Record<string, unknown>>
}
