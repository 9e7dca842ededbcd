import { afterEach, describe, expect, it } from 'vitest'
import { IDS, startTestMock, type TestClient } from '../helpers/http.ts'

const started: TestClient[] = []
afterEach(async () => {
  for (const mock of started.splice(0)) await mock.close()
})

async function generated(rows: number, seed: number): Promise<{ mock: TestClient; token: string }> {
  const mock = await startTestMock({ rows, seed })
  started.push(mock)
  return { mock, token: await mock.signIn() }
}

/** The rows a user sees, without the fields that depend on when the mock started. */
const comparable = (rows: Array<Record<string, unknown>>) => rows.map(({ DT_CREATION: _c, DT_LAST_UPDATE: _u, TIMESTAMP: _t, ...rest }) => rest)

describe('--rows and --seed', () => {
  it('adds the generated masters, two detail rows each, with values of the fields\' types', async () => {
    const { mock, token } = await generated(2000, 7)
    expect((await mock.items(token, '$inlinecount=allpages')).body.Items[0]._FieldCount_).toBe(25 + 2000)
    expect((await mock.items(token, `$inlinecount=allpages&relationKey=${IDS.relationKey}`)).body.Items[0]._FieldCount_).toBe(50 + 4000)
    const page = (await mock.items(token, '$top=50&$skip=1000')).body as Array<Record<string, unknown>>
    expect(page).toHaveLength(50)
    for (const row of page) {
      expect(typeof row.Customer).toBe('string')
      expect(typeof row.Amount).toBe('number')
      expect(typeof row.Status).toBe('string')
    }
    const [master] = page
    const lines = (await mock.items(token, `$filter=MasterId eq ${String(master?.Id)}&relationKey=${IDS.relationKey}`)).body
    expect(lines).toHaveLength(2)
  })

  it('gives the same rows for the same seed and other rows for another seed', async () => {
    const query = '$top=30&$skip=500&$orderby=Id asc'
    const a = await generated(1000, 11)
    const b = await generated(1000, 11)
    const c = await generated(1000, 12)
    const rowsA = comparable((await a.mock.items(a.token, query)).body)
    expect(comparable((await b.mock.items(b.token, query)).body)).toEqual(rowsA)
    expect(comparable((await c.mock.items(c.token, query)).body)).not.toEqual(rowsA)
  })
})
