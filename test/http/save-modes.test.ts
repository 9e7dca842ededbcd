/**
 * Save modes (the product's user guide, Save rows): all-or-nothing by default; an application
 * with `saveMode: "per-row"` saves each master row with its details on its own, writes the good
 * rows of a mixed save, reports the others, and deletes row by row too.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { IDS, startTestMock, type TestClient } from '../helpers/http.ts'

const DEFAULT_FIXTURE = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8')) as Record<string, any>

function withOrdersMode(saveMode: string | undefined): Record<string, any> {
  const json = JSON.parse(JSON.stringify(DEFAULT_FIXTURE)) as Record<string, any>
  if (saveMode !== undefined) json.applications[0].saveMode = saveMode
  return json
}

const count = async (mock: TestClient, token: string) => (await mock.items(token, '$inlinecount=allpages')).body.Items[0]._FieldCount_ as number

/** Two good new masters (the first with a line) around an update with a stale row version. */
const MIXED = {
  Rows: [
    {
      Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Good one', Amount: 1, Status: 'Open' },
      Details: [{ RelationKey: IDS.relationKey, Rows: [{ Id: -1, IdRow: null, TIMESTAMP: null, Product: 'Box', Quantity: 1, UnitPrice: 2 }] }],
    },
    { Row: { Id: 2, TIMESTAMP: 1, Status: 'Closed' }, Details: [] },
    { Row: { Id: -2, IdRow: null, TIMESTAMP: null, Customer: 'Good two', Amount: 2, Status: 'Open' }, Details: [] },
  ],
}

async function started(saveMode: string | undefined): Promise<{ mock: TestClient; token: string }> {
  const mock = await startTestMock({ fixtureData: withOrdersMode(saveMode) })
  return { mock, token: await mock.signIn() }
}

describe('per-row save mode', () => {
  it('writes the good rows of a mixed save and reports the failing one by its Id and table', async () => {
    const { mock, token } = await started('per-row')
    try {
      const before = await count(mock, token)
      const reply = await mock.post('/ExplorerApi/api/items/save', token, MIXED)
      expect(reply.status).toBe(200)
      // The mock's choice: true only when every row was saved.
      expect(reply.body).toMatchObject({ IsSaveSuccessfully: false, CreatedItems: 3, UpdatedItems: 0 })
      expect(reply.body.ReturnStates).toHaveLength(1)
      expect(reply.body.ReturnStates[0]).toMatchObject({ Code: 'CONCURRENCY', Id: 2, RelationKey: null })
      expect(Object.keys(reply.body.ReturnData.PrimaryKeyData).sort()).toEqual(['-1', '-2'])
      expect(await count(mock, token)).toBe(before + 2)
      const newId = Number(reply.body.ReturnData.PrimaryKeyData['-1'].newKeys.Id)
      const lines = await mock.items(token, `$filter=MasterId eq ${newId}&relationKey=${IDS.relationKey}`)
      expect(lines.body.map((row: { Product: string }) => row.Product)).toEqual(['Box'])
      expect((await mock.items(token, '$filter=Id eq 2')).body[0].Status).not.toBe('Closed')
    } finally {
      await mock.close()
    }
  })

  it('refuses the second master with a temporary Id already used, and saves the first', async () => {
    const { mock, token } = await started('per-row')
    try {
      const row = { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Twice', Amount: 1, Status: 'Open' }
      const reply = await mock.post('/ExplorerApi/api/items/save', token, {
        Rows: [
          { Row: row, Details: [] },
          { Row: row, Details: [] },
        ],
      })
      expect(reply.body).toMatchObject({ IsSaveSuccessfully: false, CreatedItems: 1 })
      expect(reply.body.ReturnStates).toEqual([expect.objectContaining({ Code: 'DUPLICATE_TEMPORARY_ID', Id: -1 })])
    } finally {
      await mock.close()
    }
  })

  it('answers true when every row saved', async () => {
    const { mock, token } = await started('per-row')
    try {
      const reply = await mock.post('/ExplorerApi/api/items/save', token, { Rows: [MIXED.Rows[0], MIXED.Rows[2]] })
      expect(reply.body).toMatchObject({ IsSaveSuccessfully: true, CreatedItems: 3, ReturnStates: [] })
    } finally {
      await mock.close()
    }
  })

  it('deletes the rows it can and reports the others', async () => {
    const { mock, token } = await started('per-row')
    try {
      const [row3] = (await mock.items(token, '$filter=Id eq 3')).body
      const version = Number(Buffer.from(row3.TIMESTAMP, 'base64').readBigUInt64BE())
      const reply = await mock.post('/ExplorerApi/api/items/delete', token, [
        { RelationKey: null, Rows: [{ Row: { Id: 3, TIMESTAMP: version } }, { Row: { Id: 999, TIMESTAMP: 1 } }] },
      ])
      expect(reply.body).toMatchObject({ IsSaveSuccessfully: false, DeletedItems: 1 })
      expect(reply.body.ReturnStates).toEqual([expect.objectContaining({ Code: 'NOT_FOUND', Id: 999, RelationKey: null })])
      expect((await mock.items(token, '$filter=Id eq 3')).body).toEqual([])
    } finally {
      await mock.close()
    }
  })
})

describe.each([undefined, 'all-or-nothing'])('all-or-nothing (saveMode %s)', (saveMode) => {
  it('writes nothing of a mixed save or delete', async () => {
    const { mock, token } = await started(saveMode)
    try {
      const before = await count(mock, token)
      const reply = await mock.post('/ExplorerApi/api/items/save', token, MIXED)
      expect(reply.body).toMatchObject({ IsSaveSuccessfully: false, CreatedItems: 0, ReturnData: { PrimaryKeyData: {} } })
      const [row3] = (await mock.items(token, '$filter=Id eq 3')).body
      const version = Number(Buffer.from(row3.TIMESTAMP, 'base64').readBigUInt64BE())
      const deleted = await mock.post('/ExplorerApi/api/items/delete', token, [
        { RelationKey: null, Rows: [{ Row: { Id: 3, TIMESTAMP: version } }, { Row: { Id: 999, TIMESTAMP: 1 } }] },
      ])
      expect(deleted.body).toMatchObject({ IsSaveSuccessfully: false, DeletedItems: 0 })
      expect(await count(mock, token)).toBe(before)
    } finally {
      await mock.close()
    }
  })
})
