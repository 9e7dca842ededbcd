/**
 * The product's data types end to end, over HTTP (the product's reference, Data Types): rows
 * dated with DateTime numbers on the installation's wall clock, the Deliveries application's
 * values served, saved, filtered and ordered in the reference's forms in lenient and strict
 * mode, values in other forms converted with a warning (lenient) or refused (strict), impossible
 * values refused in both, and an older fixture loading with one deprecation notice.
 */
import { readFileSync } from 'node:fs'
import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { IDS, mockPerSuite, freshMockPerTest, startTestMock, type TestClient } from '../helpers/http.ts'
import { fixedDeps } from '../../src/deps.ts'
import { PRODUCT_TYPES } from '../../src/wire/type-forms.ts'

const DELIVERIES = { ApplicationId: IDS.deliveriesId }
const DATE_TIME = /^\d{14}$/
const DEFAULT_FIXTURE = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8')) as Record<string, any>

/** Get Items on Deliveries. */
const deliveries = (mock: TestClient, token: string, query: string, headers: Record<string, string> = {}) =>
  mock.post('/ExplorerApi/api/items', token, { query }, { headers: { ...DELIVERIES, ...headers } })

/** A save of one Deliveries master row. */
const saveDelivery = (mock: TestClient, token: string, row: Record<string, unknown>, headers: Record<string, string> = {}) =>
  mock.post('/ExplorerApi/api/items/save', token, { Rows: [{ Row: row, Details: [] }] }, { headers: { ...DELIVERIES, ...headers } })

/** One value of each type, in the reference's forms. */
const TYPED = {
  Reference: 'DLV-2024-0100',
  WeightKg: 42.75,
  Delivered: 1,
  ShipDate: 20240229,
  DeliveredAt: 20240301221000,
  SlotStart: 181035,
  TransitTime: 60000,
  Handling: ['Fragile', 'Express'],
  ProofOfDelivery: Buffer.from('signed by J. Doe').toString('base64'),
  TrackingLink: 'https://tracking.example.test/DLV-2024-0100',
  DestLatitude: 45.4642,
  DestLongitude: 9.19,
  DeliveryArea: 'POLYGON((9.18 45.45, 9.20 45.45, 9.20 45.47, 9.18 45.45))',
  Photo: 'https://images.example.test/deliveries/0100.jpg',
  LabelColor: '#1E88E5FF',
  StatusIcon: 'truck',
  Notes: '<p>Leave at <b>gate 2</b>.</p>',
}

describe('every row of the default fixture is dated with DateTime numbers', () => {
  const ctx = mockPerSuite()

  it.each([
    ['Orders', IDS.applicationId, IDS.workspaceId, ''],
    ['OrderLines', IDS.applicationId, IDS.workspaceId, '&relationKey=OrderLines'],
    ['Suppliers', 'a1b2c3d4-0000-4000-8000-000000000002', '6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b71', ''],
    ['Deliveries', IDS.deliveriesId, IDS.workspaceId, ''],
  ])('%s: DT_CREATION and DT_LAST_UPDATE are yyyyMMddHHmmss numbers', async (_name, applicationId, workspaceId, relation) => {
    const reply = await ctx.mock.post(
      '/ExplorerApi/api/items',
      ctx.token,
      { query: `$top=500${relation}` },
      { headers: { ApplicationId: applicationId, WorkspaceId: workspaceId } },
    )
    expect(reply.status).toBe(200)
    expect(reply.body.length).toBeGreaterThan(2)
    for (const row of reply.body) {
      expect(typeof row.DT_CREATION).toBe('number')
      expect(String(row.DT_CREATION)).toMatch(DATE_TIME)
      expect(String(row.DT_LAST_UPDATE)).toMatch(DATE_TIME)
    }
  })

  it("serves Deliveries, one field of each product data type, in the reference's forms", async () => {
    const fields = DEFAULT_FIXTURE.applications.find((a: { id: string }) => a.id === IDS.deliveriesId).master.fields as Array<{ type: string }>
    expect(fields.map((f) => f.type).sort()).toEqual([...PRODUCT_TYPES].sort())
    const [first] = (await deliveries(ctx.mock, ctx.token, '$top=1&$orderby=Id asc')).body
    expect(first).toMatchObject({
      Reference: 'DLV-2024-0001',
      Delivered: 1,
      ShipDate: 20240304,
      DeliveredAt: 20240305090000,
      SlotStart: 80000,
      TransitTime: 64800000,
    })
    expect(first.Handling).toEqual(['Fragile'])
    expect(Buffer.from(first.ProofOfDelivery, 'base64').toString()).toBe('POD 0001 signed')
    expect(first.DestLatitude).toBe(45.4642)
  })

  it('filters and orders typed values: dates as numbers, Booleans as 0/1, quoted or not', async () => {
    const ids = async (query: string) => (await deliveries(ctx.mock, ctx.token, query)).body.map((row: { Id: number }) => row.Id)
    expect(await ids('$filter=Delivered eq 0')).toEqual([8, 9, 10])
    expect(await ids("$filter=Delivered eq '1' and ShipDate ge 20240310")).toEqual([7])
    expect(await ids("$filter=ShipDate ge '20240311'")).toEqual([8, 9, 10])
    expect(await ids('$filter=DeliveredAt lt 20240308000000')).toEqual([1, 2, 3])
    expect(await ids('$filter=SlotStart ge 120000')).toEqual([5, 6])
    expect(await ids("$filter=Handling eq 'Fragile'")).toEqual([1, 5, 9])
    expect(await ids('$orderby=WeightKg desc&$top=2')).toEqual([10, 9])
    expect(await ids('$orderby=DT_CREATION desc&$top=3')).toEqual([10, 9, 8])
    expect(await ids('$filter=DT_CREATION ge 20240312000000')).toEqual([9, 10])
  })

  it('refuses what it does not support with a clear problem', async () => {
    const order = await deliveries(ctx.mock, ctx.token, '$orderby=Handling')
    expect(order.status).toBe(400)
    expect(order.body.detail).toContain('Handling is a Multiselection field')
    const range = await deliveries(ctx.mock, ctx.token, "$filter=Handling gt 'A'")
    expect(range.status).toBe(400)
    expect(range.body.detail).toContain('Multiselection fields can only be compared with eq or ne')
    const impossible = await deliveries(ctx.mock, ctx.token, '$filter=ShipDate eq 20240231')
    expect(impossible.status).toBe(400)
    expect(impossible.body.detail).toContain('expected a number yyyyMMdd (20240301), found 20240231, which is not one')
  })
})

describe("a row saved now carries the wall clock of the installation's time zone", () => {
  const ZONED = { ...DEFAULT_FIXTURE, organization: { ...DEFAULT_FIXTURE.organization, timeZone: 'Europe/Rome' } }

  it("stamps creation and update in the fixture's time zone, and by the moved clock", async () => {
    // 09:00 UTC on 1 November 2026 is 10:00 in Rome (CET).
    const mock = await startTestMock({ fixtureData: ZONED, deps: fixedDeps('2026-11-01T09:00:00.000Z') })
    try {
      const token = await mock.signIn()
      const saved = await saveDelivery(mock, token, { Id: -1, IdRow: null, TIMESTAMP: null, Reference: 'DLV-NEW' })
      expect(saved.body.IsSaveSuccessfully).toBe(true)
      const [row] = (await deliveries(mock, token, "$filter=Reference eq 'DLV-NEW'")).body
      expect([row.DT_CREATION, row.DT_LAST_UPDATE]).toEqual([20261101100000, 20261101100000])
      await mock.request('POST', '/__mock/clock', { json: { advanceSeconds: 1800 } })
      const version = Number(Buffer.from(row.TIMESTAMP, 'base64').readBigUInt64BE())
      const update = await saveDelivery(mock, token, { Id: row.Id, TIMESTAMP: version, Delivered: 1 })
      expect(update.body, JSON.stringify(update.body)).toMatchObject({ IsSaveSuccessfully: true })
      const [updated] = (await deliveries(mock, token, "$filter=Reference eq 'DLV-NEW'")).body
      expect([updated.DT_CREATION, updated.DT_LAST_UPDATE]).toEqual([20261101100000, 20261101103000])
    } finally {
      await mock.close()
    }
  })

  it("takes --time-zone over the fixture's, and UTC by default", async () => {
    for (const [options, expected] of [
      [{ timeZone: 'America/New_York' }, 20261101040000],
      [{}, 20261101090000],
    ] as const) {
      const mock = await startTestMock({ ...options, deps: fixedDeps('2026-11-01T09:00:00.000Z') })
      try {
        const token = await mock.signIn()
        expect((await saveDelivery(mock, token, { Id: -1, IdRow: null, TIMESTAMP: null, Reference: 'Z' })).body.IsSaveSuccessfully).toBe(true)
        expect((await deliveries(mock, token, "$filter=Reference eq 'Z'")).body[0].DT_CREATION).toBe(expected)
      } finally {
        await mock.close()
      }
    }
  })
})

describe.each([false, true])('saving typed values (strict %s)', (strict) => {
  const ctx = freshMockPerTest({ strict })

  it('saves one value of each type and answers them back, the same', async () => {
    const saved = await saveDelivery(ctx.mock, ctx.token, { Id: -1, IdRow: null, TIMESTAMP: null, ...TYPED })
    expect(saved.body.IsSaveSuccessfully).toBe(true)
    expect(saved.headers.get('x-mock-warnings')).toBeNull()
    const [row] = (await deliveries(ctx.mock, ctx.token, "$filter=Reference eq 'DLV-2024-0100'")).body
    expect(row).toMatchObject(TYPED)
    const state = (await ctx.mock.request('GET', '/__mock/state')).body
    expect(state.data[IDS.deliveriesId].masters.find((r: { Reference: string }) => r.Reference === 'DLV-2024-0100')).toMatchObject({
      ...TYPED,
      DT_CREATION: 20261101090000,
    })
  })

  it.each([
    ['an impossible Date', { ShipDate: 20240231 }, 'ShipDate is a Date field, whose values are a number yyyyMMdd (20240301); got number 20240231'],
    ['13 digits into a DateTime', { DeliveredAt: 2024030122100 }, 'DeliveredAt is a DateTime field'],
    ['an impossible ISO date into a DateTime', { DeliveredAt: '2024-02-31T10:00:00Z' }, 'DeliveredAt is a DateTime field'],
    ['2 into a Boolean', { Delivered: 2 }, 'Delivered is a Boolean field, whose values are the number 0 (false) or 1 (true)'],
    ['text that is not Base64 into a File', { ProofOfDelivery: 'not base64!' }, 'ProofOfDelivery is a File field, whose values are Base64 text'],
  ])('refuses %s in both modes, and writes nothing', async (_label, values, message) => {
    const before = (await deliveries(ctx.mock, ctx.token, '$inlinecount=allpages')).body.Items[0]._FieldCount_
    const reply = await saveDelivery(ctx.mock, ctx.token, { Id: -1, IdRow: null, TIMESTAMP: null, Reference: 'BAD', ...values })
    expect(reply.status).toBe(200)
    expect(reply.body.IsSaveSuccessfully).toBe(false)
    expect(reply.body.ReturnStates[0]).toMatchObject({ Code: 'INVALID_VALUE' })
    expect(reply.body.ReturnStates[0].Message).toContain(message)
    expect((await deliveries(ctx.mock, ctx.token, '$inlinecount=allpages')).body.Items[0]._FieldCount_).toBe(before)
  })
})

describe('a Multiselection element of no supported shape', () => {
  const ctx = mockPerSuite()

  it('is refused by the document, naming the element, in both modes', async () => {
    for (const strict of ['0', '1']) {
      const reply = await saveDelivery(ctx.mock, ctx.token, { Id: -1, IdRow: null, TIMESTAMP: null, Handling: [{ code: 1 }] }, { 'X-Mock-Strict': strict })
      expect(reply.status).toBe(400)
      expect(JSON.stringify(reply.body)).toContain('/body/Rows/0/Row/Handling')
    }
  })
})

describe('values in another form that says one thing only', () => {
  const ctx = freshMockPerTest()
  const OTHER_FORMS = { DeliveredAt: '2024-03-01T21:10:00Z', ShipDate: '2024-02-29', SlotStart: '18:10:35', Delivered: true, WeightKg: '42.75' }

  it('lenient: converts them and warns, naming the field, its type and the form expected', async () => {
    const saved = await saveDelivery(ctx.mock, ctx.token, { Id: -1, IdRow: null, TIMESTAMP: null, Reference: 'ISO', ...OTHER_FORMS })
    expect(saved.body.IsSaveSuccessfully).toBe(true)
    expect(saved.headers.get('x-mock-warnings')).toBe('VALUE_FORM_CONVERTED')
    const [row] = (await deliveries(ctx.mock, ctx.token, "$filter=Reference eq 'ISO'")).body
    expect(row).toMatchObject({ DeliveredAt: 20240301211000, ShipDate: 20240229, SlotStart: 181035, Delivered: 1, WeightKg: 42.75 })
    const journal = (await ctx.mock.request('GET', '/__mock/requests?path=/ExplorerApi/api/items/save')).body
    const warnings = JSON.stringify(journal)
    expect(warnings).toContain(
      'Deliveries field DeliveredAt is a DateTime field, whose values are a number yyyyMMddHHmmss (20240301101500); the text \\"2024-03-01T21:10:00Z\\" was converted.',
    )
    expect(warnings).toContain('Deliveries field Delivered is a Boolean field, whose values are the number 0 (false) or 1 (true); true was converted.')
  })

  it('strict: refuses them with 400, saying the same, and writes nothing', async () => {
    const before = (await deliveries(ctx.mock, ctx.token, '$inlinecount=allpages')).body.Items[0]._FieldCount_
    const reply = await saveDelivery(
      ctx.mock,
      ctx.token,
      { Id: -1, IdRow: null, TIMESTAMP: null, Reference: 'ISO', DeliveredAt: '2024-03-01T21:10:00Z' },
      { 'X-Mock-Strict': '1' },
    )
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({ warning: 'VALUE_FORM_CONVERTED' })
    expect(reply.body.detail).toContain('Deliveries field DeliveredAt is a DateTime field, whose values are a number yyyyMMddHHmmss (20240301101500)')
    expect((await deliveries(ctx.mock, ctx.token, '$inlinecount=allpages')).body.Items[0]._FieldCount_).toBe(before)
  })
})

describe('an older fixture', () => {
  it('loads with the older type names and forms, said once at start', async () => {
    const older = JSON.parse(JSON.stringify(DEFAULT_FIXTURE)) as Record<string, any>
    for (const field of older.applications[1].master.fields) field.type = field.decimals === 0 ? 'integer' : 'string'
    for (const field of older.applications[1].master.fields) delete field.decimals
    older.data['a1b2c3d4-0000-4000-8000-000000000002'].masters[0].DT_CREATION = '2024-01-16T10:00:00.000Z'
    let log = ''
    const logStream = new Writable({ write: (chunk, _encoding, done) => ((log += String(chunk)), done()) })
    const mock = await startTestMock({ fixtureData: older, logLevel: 'warn', logFormat: 'json', logStream })
    try {
      const token = await mock.signIn()
      const reply = await mock.post(
        '/ExplorerApi/api/items',
        token,
        { query: '$top=1' },
        { headers: { ApplicationId: 'a1b2c3d4-0000-4000-8000-000000000002', WorkspaceId: '6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b71' } },
      )
      expect(reply.body[0].DT_CREATION).toBe(20240116100000)
      const notices = log.split('\n').filter((line) => line.includes('deprecated'))
      expect(notices).toHaveLength(1)
      expect(notices[0]).toContain('older field type names string (now String), integer (now Numeric)')
    } finally {
      await mock.close()
    }
  })
})
