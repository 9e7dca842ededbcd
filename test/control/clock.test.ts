/** GET and POST /__mock/clock: time moves forward without waiting. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestMock, type TestClient } from '../helpers/http.ts'

describe('/__mock/clock', () => {
  let mock: TestClient
  beforeAll(async () => {
    // startTestMock fixes the start time at 2026-11-01T09:00:00.000Z.
    mock = await startTestMock({ tokenTtl: 600 })
  })
  afterAll(() => mock.close())

  it('reads the fixed start time', async () => {
    const reply = await mock.request('GET', '/__mock/clock')
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual({ now: '2026-11-01T09:00:00.000Z', offsetMs: 0 })
  })

  it('expires a token once moved past its lifetime, not before', async () => {
    const token = await mock.signIn()
    expect((await mock.items(token, '$top=1')).status).toBe(200)

    const almost = await mock.request('POST', '/__mock/clock', { json: { advanceSeconds: 599 } })
    expect(almost.body).toEqual({ now: '2026-11-01T09:09:59.000Z', offsetMs: 599_000 })
    expect((await mock.items(token, '$top=1')).status).toBe(200)

    await mock.request('POST', '/__mock/clock', { json: { advanceMs: 1000 } })
    const expired = await mock.items(token, '$top=1')
    expect(expired.status).toBe(401)
    expect(expired.body.code).toBe('TOKEN_EXPIRED')
    // A fresh sign-in works at the new time.
    expect((await mock.items(await mock.signIn(), '$top=1')).status).toBe(200)
  })

  it('dates new rows by the moved clock', async () => {
    const token = await mock.signIn()
    const saved = await mock.post('/ExplorerApi/api/items/save', token, {
      Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Later', Amount: 1, Status: 'Open' }, Details: [] }],
    })
    expect(saved.body.IsSaveSuccessfully).toBe(true)
    const row = (await mock.items(token, `$filter=Customer eq 'Later'`)).body[0]
    expect(String(row.DT_CREATION)).toMatch(/^2026110109100\d$/)
  })

  it('refuses a move backwards or a body with both or neither unit, naming the field', async () => {
    const back = await mock.request('POST', '/__mock/clock', { json: { advanceMs: -5 } })
    expect(back.status).toBe(400)
    expect(back.body.violations[0].pointer).toBe('/body/advanceMs')
    expect((await mock.request('POST', '/__mock/clock', { json: { advanceMs: 1, advanceSeconds: 1 } })).status).toBe(400)
    expect((await mock.request('POST', '/__mock/clock', { json: {} })).status).toBe(400)
    const unknown = await mock.request('POST', '/__mock/clock', { json: { advanceMinutes: 1 } })
    expect(unknown.body.violations[0].pointer).toBe('/body/advanceMinutes')
    expect((await mock.request('GET', '/__mock/clock')).body.offsetMs).toBe(600_000)
  })

  it('moves at most ten years at a time, and never past the end of year 9999, however many moves add up', async () => {
    const tenYears = 10 * 365 * 24 * 3600 * 1000
    const tooFar = await mock.request('POST', '/__mock/clock', { json: { advanceMs: tenYears + 1 } })
    expect(tooFar.status).toBe(400)
    expect(tooFar.body.violations[0].pointer).toBe('/body/advanceMs')
    let moves = 0
    let last = await mock.request('POST', '/__mock/clock', { json: { advanceMs: tenYears } })
    while (last.status === 200 && moves < 1_000) {
      moves++
      last = await mock.request('POST', '/__mock/clock', { json: { advanceMs: tenYears } })
    }
    // From 2026 about 797 moves of ten years reach 9999; the one past it is refused, naming where it would lead.
    expect(moves).toBeGreaterThan(700)
    expect(last.status).toBe(400)
    expect(last.body.violations[0]).toMatchObject({ pointer: '/body/advanceMs', message: expect.stringContaining('9999-12-31T23:59:59.999Z') })
    const now = (await mock.request('GET', '/__mock/clock')).body.now as string
    expect(now.startsWith('99')).toBe(true)
    // The mock still answers and dates what it writes.
    const token = await mock.request('POST', '/__mock/clock', { json: { advanceMs: 0 } })
    expect(token.status).toBe(200)
  })
})
