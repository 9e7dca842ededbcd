/**
 * Sequences at their end: a fixture may set a storage's next Id and Identity value, and rows' values,
 * as high as the integers the mock holds exactly (2^53 - 1). Past them a create, a reservation or a
 * row version is refused with 409 SEQUENCE_EXHAUSTED and nothing is written, where the mock used to
 * hand out 2^53 and then spin forever looking for the next free Identity value.
 */
import { readFileSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { IDS, startTestMock, type TestClient } from '../helpers/http.ts'

const MAX = Number.MAX_SAFE_INTEGER
const DEFAULT_FIXTURE = readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8')

/** The default fixture with the master storage's sequences set. */
function withSequences(sequence: { nextId?: number; nextIdentity?: number }): Record<string, any> {
  const fixture = JSON.parse(DEFAULT_FIXTURE) as Record<string, any>
  fixture.sequences = { [IDS.masterStorageId]: sequence }
  return fixture
}

const newMaster = (customer: string) => ({
  Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: customer, Amount: 1, Status: 'Open' }, Details: [] }],
})

describe('sequences near 2^53', () => {
  let mock: TestClient | undefined
  afterEach(async () => {
    await mock?.close()
    mock = undefined
  })

  const masterCount = async (token: string): Promise<number> => (await mock!.items(token, '$inlinecount=allpages&$top=1')).body.Items[0]._FieldCount_

  it('hands out Identity values up to 2^53 - 1, then refuses every create with 409 and writes nothing', async () => {
    mock = await startTestMock({ fixtureData: withSequences({ nextIdentity: MAX - 1 }) })
    const token = await mock.signIn()
    const first = await mock.post('/ExplorerApi/api/items/save', token, newMaster('first'))
    const second = await mock.post('/ExplorerApi/api/items/save', token, newMaster('second'))
    expect([first.body.IsSaveSuccessfully, second.body.IsSaveSuccessfully]).toEqual([true, true])
    expect([first.body.ReturnData.PrimaryKeyData['-1'].newKeys.IdRow, second.body.ReturnData.PrimaryKeyData['-1'].newKeys.IdRow]).toEqual([
      String(MAX - 1),
      String(MAX),
    ])
    const before = await masterCount(token)
    // The third and fourth: the fourth used to spin at 100 % CPU forever.
    for (const name of ['third', 'fourth']) {
      const refused = await mock.post('/ExplorerApi/api/items/save', token, newMaster(name))
      expect(refused.status, name).toBe(409)
      expect(refused.contentType).toMatch(/^application\/problem\+json/)
      expect(refused.body.code).toBe('SEQUENCE_EXHAUSTED')
      expect(refused.body.detail).toContain('IdRow')
    }
    expect(await masterCount(token)).toBe(before)
    expect((await mock.request('GET', '/__mock/health', { unchecked: true })).status).toBe(200)
    // An explicit Identity value still saves: only the sequence is at its end.
    const explicit = await mock.post('/ExplorerApi/api/items/save', token, { Rows: [{ Row: { ...newMaster('x').Rows[0]!.Row, IdRow: 7 }, Details: [] }] })
    expect(explicit.body.IsSaveSuccessfully).toBe(true)
  })

  it('reserves Identity values up to 2^53 - 1 and refuses a reservation past it', async () => {
    mock = await startTestMock({ fixtureData: withSequences({ nextIdentity: MAX - 1 }) })
    const token = await mock.signIn()
    const reserve = (count: number) =>
      mock!.request('GET', `/ExplorerApi/api/storage/${IDS.masterStorageId}/identity/IdRow/next/${count}`, { headers: mock!.dataHeaders(token) })
    const reserved = await reserve(2)
    expect(reserved.status).toBe(200)
    expect(reserved.body).toEqual([MAX - 1, MAX])
    for (const count of [1, 10_000]) {
      const refused = await reserve(count)
      expect(refused.status, `count ${count}`).toBe(409)
      expect(refused.body.code).toBe('SEQUENCE_EXHAUSTED')
    }
  })

  it('refuses a create once the next Id would pass 2^53 - 1', async () => {
    mock = await startTestMock({ fixtureData: withSequences({ nextId: MAX }) })
    const token = await mock.signIn()
    const last = await mock.post('/ExplorerApi/api/items/save', token, newMaster('last'))
    expect(last.body.ReturnData.PrimaryKeyData['-1'].newKeys.Id).toBe(String(MAX))
    const refused = await mock.post('/ExplorerApi/api/items/save', token, newMaster('one too many'))
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('SEQUENCE_EXHAUSTED')
    expect(refused.body.detail).toContain('Id')
  })

  it('refuses an update once the row versions would pass 2^53 - 1', async () => {
    const fixture = JSON.parse(DEFAULT_FIXTURE) as Record<string, any>
    fixture.data[IDS.applicationId].masters[0].TIMESTAMP = MAX
    mock = await startTestMock({ fixtureData: fixture })
    const token = await mock.signIn()
    const refused = await mock.post('/ExplorerApi/api/items/save', token, { Rows: [{ Row: { Id: 1, TIMESTAMP: MAX, Customer: 'changed' }, Details: [] }] })
    expect(refused.status).toBe(409)
    expect(refused.body.code).toBe('SEQUENCE_EXHAUSTED')
    expect(refused.body.detail).toContain('TIMESTAMP')
  })

  it('refuses a fixture whose sequences or Ids pass what the mock holds exactly', async () => {
    mock = await startTestMock()
    const tooHigh = withSequences({ nextIdentity: 2 ** 53 + 2 })
    tooHigh.data[IDS.applicationId].masters[0].Id = 2 ** 53
    const refused = await mock.request('POST', '/__mock/fixture', { json: tooHigh })
    expect(refused.status).toBe(400)
    expect(refused.body.code).toBe('BAD_FIXTURE')
    const pointers = refused.body.violations.map((v: { pointer: string }) => v.pointer)
    expect(pointers).toContain(`/sequences/${IDS.masterStorageId}/nextIdentity`)
    expect(pointers).toContain(`/data/${IDS.applicationId}/masters/0/Id`)
    // A row without an Identity value would get the one after the largest given.
    const noneLeft = JSON.parse(DEFAULT_FIXTURE) as Record<string, any>
    const [first, second] = noneLeft.data[IDS.applicationId].masters
    first.IdRow = MAX
    delete second.IdRow
    const refusedRow = await mock.request('POST', '/__mock/fixture', { json: noneLeft })
    expect(refusedRow.status).toBe(400)
    expect(refusedRow.body.violations.map((v: { pointer: string }) => v.pointer)).toEqual([`/data/${IDS.applicationId}/masters/1/IdRow`])
    // 2^53 itself is where a sequence stands once it has handed out 2^53 - 1, as a state export writes it.
    expect((await mock.request('POST', '/__mock/fixture', { json: withSequences({ nextIdentity: 2 ** 53 }) })).status).toBe(200)
  })
})
