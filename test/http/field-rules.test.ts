/**
 * The application's field rules (a fixture field's `rules`) over HTTP, in both save modes: a save
 * that breaks one answers 200 with the flag false and one ReturnStates entry per broken rule,
 * naming the row (its Identity value, else its Id or temporary Id), the table and the field. In
 * the default mode nothing is written; in the per-row mode the other master rows are.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { IDS, rowVersion, startTestMock, type TestClient } from '../helpers/http.ts'

const DEFAULT_FIXTURE = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8')) as Record<string, any>

/** The default fixture with rules on Orders (two fields added: Reference, unique; ApprovedBy, read-only) and on its lines. */
export function withRules(saveMode?: string): Record<string, any> {
  const json = JSON.parse(JSON.stringify(DEFAULT_FIXTURE)) as Record<string, any>
  const orders = json.applications[0]
  if (saveMode !== undefined) orders.saveMode = saveMode
  const field = (name: string) => orders.master.fields.find((f: { name: string }) => f.name === name)
  field('Customer').rules = { required: true, maxLength: 40 }
  field('Amount').rules = { minimum: 0, maximum: 100000 }
  field('Status').rules = { allowed: ['New', 'Open', 'Shipped', 'Invoiced', 'Closed', 'Cancelled'] }
  orders.master.fields.push(
    { name: 'Reference', type: 'String', rules: { unique: true, maxLength: 12 } },
    { name: 'ApprovedBy', type: 'String', rules: { readOnly: true } },
  )
  const quantity = orders.details[0].storage.fields.find((f: { name: string }) => f.name === 'Quantity')
  quantity.rules = { required: true, minimum: 1 }
  return json
}

const SAVE = '/ExplorerApi/api/items/save'

const newOrder = (id: number, fields: Record<string, unknown>) => ({
  Row: { Id: id, IdRow: null, TIMESTAMP: null, Customer: 'Good', Amount: 1, Status: 'Open', ...fields },
  Details: [],
})

async function started(saveMode?: string, productVersion?: string): Promise<{ mock: TestClient; token: string }> {
  const mock = await startTestMock({ fixtureData: withRules(saveMode), ...(productVersion === undefined ? {} : { productVersion }) })
  return { mock, token: await mock.signIn() }
}

const count = async (mock: TestClient, token: string) => (await mock.items(token, '$inlinecount=allpages')).body.Items[0]._FieldCount_ as number

const states = (body: { ReturnStates: Array<Record<string, unknown>> }) => body.ReturnStates

describe.each([
  { mode: 'all-or-nothing', saveMode: undefined },
  { mode: 'per-row', saveMode: 'per-row' },
])('field rules, $mode', ({ mode, saveMode }) => {
  const perRow = mode === 'per-row'

  it('refuses a new row without a required value and names row, table and field; the good row is written only per row', async () => {
    const { mock, token } = await started(saveMode)
    try {
      const before = await count(mock, token)
      const reply = await mock.post(SAVE, token, {
        Rows: [newOrder(-1, { Customer: 'Fine' }), newOrder(-2, { Customer: '' }), newOrder(-3, { Customer: null })],
      })
      expect(reply.status).toBe(200)
      expect(reply.body.IsSaveSuccessfully).toBe(false)
      expect(states(reply.body)).toEqual([
        expect.objectContaining({ Code: 'REQUIRED', Table: 'Orders', Id: -2, Row: -2, RelationKey: null, Field: 'Customer' }),
        expect.objectContaining({ Code: 'REQUIRED', Table: 'Orders', Id: -3, Row: -3, RelationKey: null, Field: 'Customer' }),
      ])
      expect(reply.body.LockedItems).toBe(0)
      expect(reply.body.CreatedItems).toBe(perRow ? 1 : 0)
      expect(await count(mock, token)).toBe(before + (perRow ? 1 : 0))
      expect((await mock.items(token, "$filter=Customer eq 'Fine'")).body).toHaveLength(perRow ? 1 : 0)
    } finally {
      await mock.close()
    }
  })

  it('refuses an update out of range by the row Identity value, and an update clearing a required field', async () => {
    const { mock, token } = await started(saveMode)
    try {
      const [three, four] = (await mock.items(token, '$filter=Id eq 3 or Id eq 4&$orderby=Id asc')).body
      const reply = await mock.post(SAVE, token, {
        Rows: [
          { Row: { Id: 3, TIMESTAMP: rowVersion(three.TIMESTAMP), Amount: -5 }, Details: [] },
          { Row: { Id: 4, TIMESTAMP: rowVersion(four.TIMESTAMP), Customer: null, Amount: 100001 }, Details: [] },
          { Row: { Id: 5, TIMESTAMP: rowVersion((await mock.items(token, '$filter=Id eq 5')).body[0].TIMESTAMP), Status: 'Archived' }, Details: [] },
        ],
      })
      expect(reply.body.IsSaveSuccessfully).toBe(false)
      expect(states(reply.body)).toEqual([
        expect.objectContaining({ Code: 'BELOW_MINIMUM', Table: 'Orders', Id: 3, Row: 1003, Field: 'Amount' }),
        expect.objectContaining({ Code: 'REQUIRED', Table: 'Orders', Id: 4, Row: 1004, Field: 'Customer' }),
        expect.objectContaining({ Code: 'ABOVE_MAXIMUM', Table: 'Orders', Id: 4, Row: 1004, Field: 'Amount' }),
        expect.objectContaining({ Code: 'NOT_ALLOWED', Table: 'Orders', Id: 5, Row: 1005, Field: 'Status' }),
      ])
      const after = (await mock.items(token, '$filter=Id eq 3')).body[0]
      expect(after.Amount).toBe(three.Amount)
      expect(after.TIMESTAMP).toBe(three.TIMESTAMP)
    } finally {
      await mock.close()
    }
  })

  it('lets an update leave a required field out', async () => {
    const { mock, token } = await started(saveMode)
    try {
      const three = (await mock.items(token, '$filter=Id eq 3')).body[0]
      const reply = await mock.post(SAVE, token, { Rows: [{ Row: { Id: 3, TIMESTAMP: rowVersion(three.TIMESTAMP), Amount: 10 }, Details: [] }] })
      expect(reply.body).toMatchObject({ IsSaveSuccessfully: true, UpdatedItems: 1, ReturnStates: [] })
    } finally {
      await mock.close()
    }
  })

  it('refuses a duplicate of a unique field, within one request and against a stored row', async () => {
    const { mock, token } = await started(saveMode)
    try {
      const first = await mock.post(SAVE, token, { Rows: [newOrder(-1, { Reference: 'R-1' })] })
      expect(first.body.IsSaveSuccessfully).toBe(true)
      const before = await count(mock, token)
      const reply = await mock.post(SAVE, token, {
        Rows: [newOrder(-1, { Reference: 'R-1' }), newOrder(-2, { Reference: 'R-2' }), newOrder(-3, { Reference: 'R-2' })],
      })
      expect(reply.body.IsSaveSuccessfully).toBe(false)
      const codes = states(reply.body).map((s) => [s.Code, s.Id, s.Field, s.Table])
      // Per row, -2 is saved alone first, so only -3 meets its value; in one operation both new rows hold it.
      expect(codes).toEqual(
        perRow
          ? [
              ['NOT_UNIQUE', -1, 'Reference', 'Orders'],
              ['NOT_UNIQUE', -3, 'Reference', 'Orders'],
            ]
          : [
              ['NOT_UNIQUE', -1, 'Reference', 'Orders'],
              ['NOT_UNIQUE', -2, 'Reference', 'Orders'],
              ['NOT_UNIQUE', -3, 'Reference', 'Orders'],
            ],
      )
      expect(await count(mock, token)).toBe(before + (perRow ? 1 : 0))
    } finally {
      await mock.close()
    }
  })

  it('refuses writing a read-only field, but takes it null on a new row', async () => {
    const { mock, token } = await started(saveMode)
    try {
      const refused = await mock.post(SAVE, token, { Rows: [newOrder(-1, { ApprovedBy: 'me' })] })
      expect(states(refused.body)).toEqual([expect.objectContaining({ Code: 'READ_ONLY', Id: -1, Field: 'ApprovedBy', Table: 'Orders' })])
      const taken = await mock.post(SAVE, token, { Rows: [newOrder(-1, { ApprovedBy: null })] })
      expect(taken.body.IsSaveSuccessfully).toBe(true)
    } finally {
      await mock.close()
    }
  })

  it('checks detail rows against their own storage and names the detail table', async () => {
    const { mock, token } = await started(saveMode)
    try {
      const reply = await mock.post(SAVE, token, {
        Rows: [
          {
            Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'With lines', Amount: 1 },
            Details: [{ RelationKey: IDS.relationKey, Rows: [{ Id: -1, IdRow: null, TIMESTAMP: null, Product: 'Box', Quantity: 0 }] }],
          },
        ],
      })
      expect(states(reply.body)).toEqual([
        expect.objectContaining({ Code: 'BELOW_MINIMUM', Table: 'OrderLines', RelationKey: IDS.relationKey, Id: -1, Row: -1, Field: 'Quantity' }),
      ])
      expect((await mock.items(token, "$filter=Customer eq 'With lines'")).body).toHaveLength(0)
    } finally {
      await mock.close()
    }
  })
})

describe('field rules on a release below 3.0', () => {
  it('refuses with the older spelling of the flag', async () => {
    const { mock, token } = await started(undefined, '2.9')
    try {
      const reply = await mock.post(SAVE, token, { Rows: [newOrder(-1, { Customer: 'x'.repeat(41) })] })
      expect(reply.body.IsSaveSuccesfully).toBe(false)
      expect(reply.body).not.toHaveProperty('IsSaveSuccessfully')
      expect(states(reply.body)).toEqual([expect.objectContaining({ Code: 'TOO_LONG', Field: 'Customer', Table: 'Orders', Row: -1 })])
    } finally {
      await mock.close()
    }
  })
})

describe('a fixture whose rules do not fit', () => {
  it('is refused by POST /__mock/fixture naming each field and rule', async () => {
    const mock = await startTestMock()
    try {
      const json = withRules()
      const fields = json.applications[0].master.fields
      fields.find((f: { name: string }) => f.name === 'Amount').rules = { minimum: 10, maximum: 1, maxLength: 3 }
      fields.find((f: { name: string }) => f.name === 'Status').rules = { allowed: ['Open', 7] }
      const reply = await mock.request('POST', '/__mock/fixture', { json })
      expect(reply.status).toBe(400)
      expect(reply.contentType).toMatch(/^application\/problem\+json/)
      const pointers = (reply.body.violations as Array<{ pointer: string; message: string }>).map((v) => v.pointer)
      expect(pointers).toEqual(
        expect.arrayContaining([
          '/applications/0/master/fields/1/rules/minimum',
          '/applications/0/master/fields/1/rules/maxLength',
          '/applications/0/master/fields/2/rules/allowed',
        ]),
      )
      // Row 1's Amount 245.8 is above the (impossible) maximum too: a row older than its rules is no
      // problem of the fixture (it would load with a warning), so only the rules themselves are named.
      expect(pointers).not.toContain('/data/a1b2c3d4-0000-4000-8000-000000000001/masters/0/Amount')
      // Nothing was loaded: the rules of the start fixture still hold.
      expect((await mock.request('GET', '/__mock/state')).body.applications[0].master.fields[0]).not.toHaveProperty('rules')
    } finally {
      await mock.close()
    }
  })

  it('loads when its own rows break a rule (a duplicate of a unique field, an empty required one), warning of each; strict mode refuses it', async () => {
    const mock = await startTestMock()
    try {
      const json = withRules()
      const fields = json.applications[0].master.fields
      // Rows 2, 6, 12, ... share Status 'Shipped'; row 4 is given an empty Customer.
      fields.find((f: { name: string }) => f.name === 'Status').rules = { unique: true }
      json.data[IDS.applicationId].masters[3].Customer = ''
      const strict = await mock.request('POST', '/__mock/fixture', { json, headers: { 'X-Mock-Strict': '1' } })
      expect(strict.status).toBe(400)
      const violations = strict.body.violations as Array<{ pointer: string; message: string }>
      expect(violations).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            pointer: `/data/${IDS.applicationId}/masters/5/Status`,
            message: expect.stringMatching(/unique.*row 6 has "Shipped" as row 2 does.*--strict/),
          }),
          expect.objectContaining({ pointer: `/data/${IDS.applicationId}/masters/3/Customer`, message: expect.stringMatching(/required/) }),
        ]),
      )
      const loaded = await mock.request('POST', '/__mock/fixture', { json })
      expect(loaded.status).toBe(200)
      const warnings = loaded.body.warnings as string[]
      expect(warnings).toEqual(
        expect.arrayContaining([
          expect.stringMatching(new RegExp(`^POST /__mock/fixture: /data/${IDS.applicationId}/masters/5/Status .*unique.*loaded as it is`)),
          expect.stringMatching(new RegExp(`^POST /__mock/fixture: /data/${IDS.applicationId}/masters/3/Customer .*required`)),
        ]),
      )
      // The rules hold for every save: row 6 keeps a value row 2 holds, so even a change of another field is refused.
      const token = await mock.signIn()
      const six = (await mock.items(token, '$filter=Id eq 6')).body[0]
      const change = await mock.post(SAVE, token, { Rows: [{ Row: { Id: 6, TIMESTAMP: rowVersion(six.TIMESTAMP), Amount: 5 }, Details: [] }] })
      expect(change.body.IsSaveSuccessfully).toBe(false)
      expect(states(change.body)).toEqual([expect.objectContaining({ Code: 'NOT_UNIQUE', Id: 6, Field: 'Status' })])
    } finally {
      await mock.close()
    }
  })
})
