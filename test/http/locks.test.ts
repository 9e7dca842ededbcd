/**
 * Locked rows over HTTP: a fixture's `locks` and POST/DELETE /__mock/locks. A save or delete that
 * touches a locked row counts it in LockedItems, names it in a LOCKED ReturnStates entry and does
 * not write it; the rest follows the save mode (all-or-nothing: nothing; per-row: the other rows).
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { IDS, rowVersion, startTestMock, type TestClient } from '../helpers/http.ts'
import { tempDir } from '../helpers/temp-dir.ts'

const DEFAULT_FIXTURE = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8')) as Record<string, any>

/** The default fixture with master row 2 and line 5 (of master 3) locked. */
function withLocks(saveMode?: string): Record<string, any> {
  const json = JSON.parse(JSON.stringify(DEFAULT_FIXTURE)) as Record<string, any>
  if (saveMode !== undefined) json.applications[0].saveMode = saveMode
  json.locks = { [IDS.applicationId]: { master: [2], OrderLines: [5] } }
  return json
}

const SAVE = '/ExplorerApi/api/items/save'
const DELETE = '/ExplorerApi/api/items/delete'

async function started(fixtureData: Record<string, any>): Promise<{ mock: TestClient; token: string }> {
  const mock = await startTestMock({ fixtureData })
  return { mock, token: await mock.signIn() }
}

const master = async (mock: TestClient, token: string, id: number) => (await mock.items(token, `$filter=Id eq ${id}`)).body[0] as Record<string, any>
const line = async (mock: TestClient, token: string, id: number) =>
  (await mock.items(token, `$filter=Id eq ${id}&relationKey=${IDS.relationKey}`)).body[0] as Record<string, any>
const count = async (mock: TestClient, token: string) => (await mock.items(token, '$inlinecount=allpages')).body.Items[0]._FieldCount_ as number
const newOrder = (id: number, customer: string) => ({
  Row: { Id: id, IdRow: null, TIMESTAMP: null, Customer: customer, Amount: 1, Status: 'Open' },
  Details: [],
})

describe.each([
  { mode: 'all-or-nothing', saveMode: undefined },
  { mode: 'per-row', saveMode: 'per-row' },
])('locked rows, $mode', ({ mode, saveMode }) => {
  const perRow = mode === 'per-row'

  it('refuses an update of a locked master row, counts it in LockedItems, and writes the rest only per row', async () => {
    const { mock, token } = await started(withLocks(saveMode))
    try {
      const two = await master(mock, token, 2)
      const before = await count(mock, token)
      const reply = await mock.post(SAVE, token, {
        Rows: [newOrder(-1, 'Beside the lock'), { Row: { Id: 2, TIMESTAMP: rowVersion(two.TIMESTAMP), Status: 'Closed' }, Details: [] }],
      })
      expect(reply.status).toBe(200)
      expect(reply.body).toMatchObject({ IsSaveSuccessfully: false, LockedItems: 1, CreatedItems: perRow ? 1 : 0, UpdatedItems: 0 })
      expect(reply.body.ReturnStates).toEqual([expect.objectContaining({ Code: 'LOCKED', Id: 2, Row: 1002, Table: 'Orders', RelationKey: null })])
      expect((await master(mock, token, 2)).Status).toBe(two.Status)
      expect(await count(mock, token)).toBe(before + (perRow ? 1 : 0))
    } finally {
      await mock.close()
    }
  })

  it('refuses a new detail row under a locked master, and an update of a locked detail row', async () => {
    const { mock, token } = await started(withLocks(saveMode))
    try {
      const two = await master(mock, token, 2)
      const three = await master(mock, token, 3)
      const five = await line(mock, token, 5)
      const lineThree = await line(mock, token, 3)
      expect(lineThree.MasterId).toBe(2)
      const reply = await mock.post(SAVE, token, {
        Rows: [
          {
            Row: { Id: 2, TIMESTAMP: rowVersion(two.TIMESTAMP) },
            // A new line, and a change of a line that is not locked itself: the master's lock covers both.
            Details: [
              {
                RelationKey: IDS.relationKey,
                Rows: [
                  { Id: -1, IdRow: null, TIMESTAMP: null, Product: 'Late', Quantity: 1 },
                  { Id: 3, TIMESTAMP: rowVersion(lineThree.TIMESTAMP), Quantity: 77 },
                ],
              },
            ],
          },
          {
            Row: { Id: 3, TIMESTAMP: rowVersion(three.TIMESTAMP) },
            Details: [{ RelationKey: IDS.relationKey, Rows: [{ Id: 5, TIMESTAMP: rowVersion(five.TIMESTAMP), Quantity: 99 }] }],
          },
        ],
      })
      expect(reply.body).toMatchObject({ IsSaveSuccessfully: false, LockedItems: 2, CreatedItems: 0, UpdatedItems: 0 })
      expect(reply.body.ReturnStates).toEqual([
        expect.objectContaining({ Code: 'LOCKED', Id: 2, RelationKey: null, Table: 'Orders' }),
        expect.objectContaining({ Code: 'LOCKED', Id: 5, RelationKey: IDS.relationKey, Table: 'OrderLines' }),
      ])
      expect((await line(mock, token, 5)).Quantity).toBe(five.Quantity)
      expect((await line(mock, token, 3)).Quantity).toBe(lineThree.Quantity)
      expect((await mock.items(token, `$filter=MasterId eq 2&relationKey=${IDS.relationKey}`)).body).toHaveLength(2)
    } finally {
      await mock.close()
    }
  })

  it('refuses deleting a locked row, and a master whose locked detail row would go with it', async () => {
    const { mock, token } = await started(withLocks(saveMode))
    try {
      const rows = await Promise.all([2, 3, 4].map((id) => master(mock, token, id)))
      const reply = await mock.post(DELETE, token, [
        { RelationKey: null, Rows: rows.map((row) => ({ Row: { Id: row.Id, TIMESTAMP: rowVersion(row.TIMESTAMP) } })) },
      ])
      expect(reply.body).toMatchObject({ IsSaveSuccessfully: false, LockedItems: 2, DeletedItems: perRow ? 1 : 0 })
      expect(reply.body.ReturnStates).toEqual([
        expect.objectContaining({ Code: 'LOCKED', Id: 2, RelationKey: null, Row: 1002 }),
        expect.objectContaining({ Code: 'LOCKED', Id: 5, RelationKey: IDS.relationKey, Table: 'OrderLines' }),
      ])
      expect(await master(mock, token, 2)).toBeDefined()
      expect(await master(mock, token, 3)).toBeDefined()
      expect(await master(mock, token, 4)).toEqual(perRow ? undefined : expect.objectContaining({ Id: 4 }))
      // A detail row of a locked master: refused, naming the master.
      const three = await line(mock, token, 3)
      const detail = await mock.post(DELETE, token, [{ RelationKey: IDS.relationKey, Rows: [{ Row: { Id: 3, TIMESTAMP: rowVersion(three.TIMESTAMP) } }] }])
      expect(detail.body).toMatchObject({
        IsSaveSuccessfully: false,
        LockedItems: 1,
        DeletedItems: 0,
        ReturnStates: [expect.objectContaining({ Code: 'LOCKED', Id: 2, RelationKey: null, Table: 'Orders' })],
      })
      expect(await line(mock, token, 3)).toBeDefined()
    } finally {
      await mock.close()
    }
  })
})

describe('a custom action whose effect meets a locked row', () => {
  const run = (mock: TestClient, token: string, ids: string) =>
    mock.post('/ExplorerApi/api/action/run', token, { actionId: IDS.actionOk, parametersMap: [{ Name: 'Parameters', Value: [{ key: 'Ids', value: ids }] }] })

  it('answers IsSuccessful false naming the lock and changes no row, locked or not; unlocked, it runs', async () => {
    const { mock, token } = await started(withLocks())
    try {
      const before = await Promise.all([1, 2].map((id) => master(mock, token, id)))
      const refused = await run(mock, token, '1,2')
      expect(refused.status).toBe(200)
      expect(refused.body).toEqual({
        Message: 'Row 2 (IdRow 1002) of Orders is locked by another user; usp_RecalculateTotals changed nothing.',
        IsSuccessful: false,
        Result: '',
        IsAsync: false,
      })
      // Neither the locked row nor the one beside it: the action failed as a whole.
      expect(await Promise.all([1, 2].map((id) => master(mock, token, id)))).toEqual(before)
      // A detail row's lock does not hold its master: the effect changes master rows only (master 3 holds locked line 5).
      expect((await run(mock, token, '3')).body.IsSuccessful).toBe(true)
      mock.mock.unlock({ applicationId: IDS.applicationId, ids: [2] })
      expect((await run(mock, token, '1,2')).body).toMatchObject({ IsSuccessful: true, Result: 'OK' })
      expect((await Promise.all([1, 2].map((id) => master(mock, token, id)))).map((row) => row.Status)).toEqual(['Recalculated', 'Recalculated'])
    } finally {
      await mock.close()
    }
  })
})

describe('/__mock/locks', () => {
  const LOCKS = '/__mock/locks'

  it('locks, lists and unlocks rows; a save follows', async () => {
    const { mock, token } = await started(JSON.parse(JSON.stringify(DEFAULT_FIXTURE)))
    try {
      expect((await mock.request('GET', LOCKS)).body).toEqual({ locks: [] })
      const locked = await mock.request('POST', LOCKS, { json: { applicationId: IDS.applicationId.toUpperCase(), ids: [7, 8] } })
      expect(locked.status).toBe(200)
      expect(locked.body).toEqual({ changed: 2, locks: [{ applicationId: IDS.applicationId, relationKey: null, ids: [7, 8] }] })
      const seven = await master(mock, token, 7)
      const change = { Rows: [{ Row: { Id: 7, TIMESTAMP: rowVersion(seven.TIMESTAMP), Status: 'Closed' }, Details: [] }] }
      expect((await mock.post(SAVE, token, change)).body).toMatchObject({ IsSaveSuccessfully: false, LockedItems: 1 })
      const unlocked = await mock.request('DELETE', LOCKS, { json: { applicationId: IDS.applicationId, relationKey: null, ids: [7, 99] } })
      expect(unlocked.body).toEqual({ changed: 1, locks: [{ applicationId: IDS.applicationId, relationKey: null, ids: [8] }] })
      expect((await mock.post(SAVE, token, change)).body).toMatchObject({ IsSaveSuccessfully: true, LockedItems: 0, UpdatedItems: 1 })
    } finally {
      await mock.close()
    }
  })

  it('refuses bad bodies with 400 and unknown applications, relation keys and rows with 404', async () => {
    const mock = await startTestMock()
    try {
      for (const json of [
        { ids: [1] },
        { applicationId: IDS.applicationId },
        { applicationId: IDS.applicationId, ids: [] },
        { applicationId: IDS.applicationId, ids: ['1'] },
        { applicationId: IDS.applicationId, ids: [0] },
        { applicationId: IDS.applicationId, ids: [1], extra: 1 },
      ]) {
        const reply = await mock.request('POST', LOCKS, { json })
        expect(reply.status, JSON.stringify(json)).toBe(400)
        expect(reply.contentType).toMatch(/^application\/problem\+json/)
        expect(reply.body.code).toBe('VALIDATION')
      }
      const unknownApp = await mock.request('POST', LOCKS, { json: { applicationId: 'a1b2c3d4-0000-4000-8000-0000000000ff', ids: [1] } })
      expect(unknownApp.status).toBe(404)
      expect(unknownApp.body.code).toBe('UNKNOWN_APPLICATION')
      const unknownKey = await mock.request('DELETE', LOCKS, { json: { applicationId: IDS.applicationId, relationKey: 'Nope', ids: [1] } })
      expect(unknownKey.status).toBe(404)
      expect(unknownKey.body.code).toBe('UNKNOWN_RELATION_KEY')
      const unknownRow = await mock.request('POST', LOCKS, { json: { applicationId: IDS.applicationId, relationKey: IDS.relationKey, ids: [1, 999] } })
      expect(unknownRow.status).toBe(404)
      expect(unknownRow.body).toMatchObject({ code: 'UNKNOWN_ROW', detail: expect.stringContaining('999') })
      // Nothing was locked by the refused call.
      expect((await mock.request('GET', LOCKS)).body.locks).toEqual([])
    } finally {
      await mock.close()
    }
  })

  it('a reset returns to the fixture locks; a fixture load takes its own', async () => {
    const { mock } = await started(withLocks())
    try {
      const fixtureLocks = [
        { applicationId: IDS.applicationId, relationKey: null, ids: [2] },
        { applicationId: IDS.applicationId, relationKey: IDS.relationKey, ids: [5] },
      ]
      expect((await mock.request('GET', LOCKS)).body.locks).toEqual(fixtureLocks)
      await mock.request('DELETE', LOCKS, { json: { applicationId: IDS.applicationId, ids: [2] } })
      await mock.request('POST', LOCKS, { json: { applicationId: IDS.applicationId, ids: [9] } })
      expect((await mock.request('POST', '/__mock/reset')).status).toBe(200)
      expect((await mock.request('GET', LOCKS)).body.locks).toEqual(fixtureLocks)
      expect((await mock.request('POST', '/__mock/fixture', { json: DEFAULT_FIXTURE })).status).toBe(200)
      expect((await mock.request('GET', LOCKS)).body.locks).toEqual([])
    } finally {
      await mock.close()
    }
  })

  it('startMock() controls lock and unlock the same way, and the state export carries the locks', async () => {
    const { mock, token } = await started(JSON.parse(JSON.stringify(DEFAULT_FIXTURE)))
    try {
      const controls = mock.mock
      expect(controls.lock({ applicationId: IDS.applicationId, relationKey: IDS.relationKey, ids: [1] }).changed).toBe(1)
      // The locks held, as GET /__mock/locks answers them: no count of what a read changed.
      expect(controls.locks()).toEqual({ locks: [{ applicationId: IDS.applicationId, relationKey: IDS.relationKey, ids: [1] }] })
      expect((await mock.request('GET', '/__mock/locks')).body).toEqual(controls.locks())
      expect(controls.state().locks).toEqual({ [IDS.applicationId]: { [IDS.relationKey]: [1] } })
      expect(() => controls.lock({ applicationId: IDS.applicationId, ids: [] })).toThrow(/ids/)
      const one = await line(mock, token, 1)
      const reply = await mock.post(DELETE, token, [{ RelationKey: IDS.relationKey, Rows: [{ Row: { Id: 1, TIMESTAMP: rowVersion(one.TIMESTAMP) } }] }])
      expect(reply.body).toMatchObject({ IsSaveSuccessfully: false, LockedItems: 1, DeletedItems: 0 })
      expect(controls.unlock({ applicationId: IDS.applicationId, relationKey: IDS.relationKey, ids: [1] })).toEqual({ changed: 1, locks: [] })
    } finally {
      await mock.close()
    }
  })
})

describe('locks under a GUID relation key', () => {
  // Installations key detail tables by GUIDs, which compare without regard to case (the store keeps them in lower case).
  const KEY = 'f16e802a-0334-4dfe-a799-f5c13b7da00a'
  const LOCKS = '/__mock/locks'
  function guidKeyed(): Record<string, any> {
    const json = JSON.parse(JSON.stringify(DEFAULT_FIXTURE)) as Record<string, any>
    json.applications[0].details[0].relationKey = KEY
    const data = json.data[IDS.applicationId]
    data.details = { [KEY]: data.details.OrderLines }
    for (const attachment of json.attachments) if (attachment.relationKey === 'OrderLines') attachment.relationKey = KEY
    // The fixture names the lock in capitals.
    json.locks = { [IDS.applicationId]: { [KEY.toUpperCase()]: [5] } }
    return json
  }
  const lineOf = async (mock: TestClient, token: string, id: number) =>
    (await mock.items(token, `$filter=Id eq ${id}&relationKey=${KEY}`)).body[0] as Record<string, any>
  const changeLine = (master: Record<string, any>, line: Record<string, any>, key: string) => ({
    Rows: [
      {
        Row: { Id: master.Id, TIMESTAMP: rowVersion(master.TIMESTAMP) },
        Details: [{ RelationKey: key, Rows: [{ Id: line.Id, TIMESTAMP: rowVersion(line.TIMESTAMP), Quantity: 42 }] }],
      },
    ],
  })

  it('holds a lock whatever the case the fixture, the control plane or the save writes the key in', async () => {
    const { mock, token } = await started(guidKeyed())
    try {
      // The fixture's lock, listed in lower case, holds for a save that writes the key in lower case.
      expect((await mock.request('GET', LOCKS)).body.locks).toEqual([{ applicationId: IDS.applicationId, relationKey: KEY, ids: [5] }])
      const five = await lineOf(mock, token, 5)
      const master5 = await master(mock, token, five.MasterId)
      const refused = await mock.post(SAVE, token, changeLine(master5, five, KEY))
      expect(refused.body).toMatchObject({ IsSaveSuccessfully: false, LockedItems: 1, UpdatedItems: 0 })
      expect(refused.body.ReturnStates).toEqual([expect.objectContaining({ Code: 'LOCKED', Id: 5, RelationKey: KEY })])
      // Locked in capitals over the control plane, refused to a save in lower case, and to a delete in mixed case.
      const one = await lineOf(mock, token, 1)
      const master1 = await master(mock, token, one.MasterId)
      expect((await mock.request('POST', LOCKS, { json: { applicationId: IDS.applicationId, relationKey: KEY.toUpperCase(), ids: [1] } })).body).toEqual({
        changed: 1,
        locks: [{ applicationId: IDS.applicationId, relationKey: KEY, ids: [1, 5] }],
      })
      expect((await mock.post(SAVE, token, changeLine(master1, one, KEY))).body).toMatchObject({ IsSaveSuccessfully: false, LockedItems: 1 })
      const mixed = `${KEY.slice(0, 18).toUpperCase()}${KEY.slice(18)}`
      const deleted = await mock.post(DELETE, token, [{ RelationKey: mixed, Rows: [{ Row: { Id: 1, TIMESTAMP: rowVersion(one.TIMESTAMP) } }] }])
      expect(deleted.body).toMatchObject({ IsSaveSuccessfully: false, LockedItems: 1, DeletedItems: 0 })
      // Unlocked in another case than it was locked in: the save goes through.
      expect((await mock.request('DELETE', LOCKS, { json: { applicationId: IDS.applicationId, relationKey: mixed, ids: [1, 5] } })).body).toEqual({
        changed: 2,
        locks: [],
      })
      expect((await mock.post(SAVE, token, changeLine(master1, one, KEY.toUpperCase()))).body).toMatchObject({
        IsSaveSuccessfully: true,
        LockedItems: 0,
        UpdatedItems: 1,
      })
      expect((await lineOf(mock, token, 1)).Quantity).toBe(42)
    } finally {
      await mock.close()
    }
  })
})

describe('a fixture whose locks name nothing', () => {
  it('is refused, naming each lock', async () => {
    const mock = await startTestMock()
    try {
      const json = withLocks()
      json.locks[IDS.applicationId] = { master: [2, 999], Nope: [1] }
      const reply = await mock.request('POST', '/__mock/fixture', { json })
      expect(reply.status).toBe(400)
      const pointers = (reply.body.violations as Array<{ pointer: string }>).map((v) => v.pointer)
      expect(pointers).toEqual([`/locks/${IDS.applicationId}/master/1`, `/locks/${IDS.applicationId}/Nope`])
    } finally {
      await mock.close()
    }
  })
})

describe('locks and the state file', () => {
  it('keeps the locks set over the control plane across a restart, as it keeps rows', async () => {
    const dir = tempDir('appdata-kit-locks-state-')
    const stateFile = join(dir, 'sandbox.json')
    const first = await startTestMock({ fixtureData: withLocks(), stateFile })
    await first.request('POST', '/__mock/locks', { json: { applicationId: IDS.applicationId, ids: [9] } })
    await first.request('DELETE', '/__mock/locks', { json: { applicationId: IDS.applicationId, ids: [2] } })
    await first.close()
    const again = await startTestMock({ stateFile })
    try {
      const token = await again.signIn()
      expect((await again.request('GET', '/__mock/locks')).body.locks).toEqual([
        { applicationId: IDS.applicationId, relationKey: null, ids: [9] },
        { applicationId: IDS.applicationId, relationKey: IDS.relationKey, ids: [5] },
      ])
      const nine = await master(again, token, 9)
      const reply = await again.post(SAVE, token, { Rows: [{ Row: { Id: 9, TIMESTAMP: rowVersion(nine.TIMESTAMP), Status: 'Closed' }, Details: [] }] })
      expect(reply.body).toMatchObject({ IsSaveSuccessfully: false, LockedItems: 1 })
    } finally {
      await again.close()
    }
  })
})
