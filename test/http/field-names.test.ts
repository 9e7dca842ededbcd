/**
 * Fields named as members of every JavaScript object (`__proto__`, `constructor`), which the
 * fixture schema allows: their values are read, saved, filtered, exported and loaded back like any
 * other field's, and a row without them reads null, not Object.prototype's members.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IDS, rowVersion, startTestMock, type TestClient } from '../helpers/http.ts'

/** A member's own value; `row.__proto__` would find the prototype when the row lacks it. */
const own = (row: object, name: string): unknown => Object.getOwnPropertyDescriptor(row, name)?.value

/** The default fixture with two such fields on the master storage, and values for them on row 1 (JSON.parse keeps them own). */
function fixture(): Record<string, any> {
  const json = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8')) as Record<string, any>
  json.applications[0].master.fields.push({ name: '__proto__', type: 'String' }, { name: 'constructor', type: 'String' })
  const masters = json.data[IDS.applicationId].masters
  masters[0] = JSON.parse(JSON.stringify(masters[0]).replace(/^\{/, '{"__proto__":"p1","constructor":"c1",'))
  return json
}

describe('fields named __proto__ and constructor', () => {
  let mock: TestClient
  let token: string
  beforeAll(async () => {
    mock = await startTestMock({ fixtureData: fixture() })
    token = await mock.signIn()
  })
  afterAll(() => mock.close())

  const read = async (filter: string): Promise<Record<string, unknown>> => {
    const reply = await mock.items(token, `$filter=${filter}`)
    expect(reply.status).toBe(200)
    expect(reply.body).toHaveLength(1)
    return reply.body[0]
  }
  /** A save body as text, so the members are sent exactly as written. */
  const save = (text: string) =>
    mock.request('POST', '/ExplorerApi/api/items/save', { body: text, headers: { ...mock.dataHeaders(token), 'content-type': 'application/json' } })

  it('reads, updates, creates and filters on them', async () => {
    const row = await read('Id eq 1')
    expect([own(row, '__proto__'), own(row, 'constructor')]).toEqual(['p1', 'c1'])

    const updated = await save(`{"Rows":[{"Row":{"Id":1,"TIMESTAMP":${rowVersion(String(row.TIMESTAMP))},"__proto__":"p2","constructor":"c2"},"Details":[]}]}`)
    expect(updated.body.IsSaveSuccessfully).toBe(true)
    const after = await read('Id eq 1')
    expect([own(after, '__proto__'), own(after, 'constructor')]).toEqual(['p2', 'c2'])

    const created = await save('{"Rows":[{"Row":{"Id":-1,"IdRow":null,"TIMESTAMP":null,"Customer":"Proto","__proto__":"p3"},"Details":[]}]}')
    expect(created.body.IsSaveSuccessfully).toBe(true)
    const fresh = await read("Customer eq 'Proto'")
    // Not sent: null, not the Object function every object inherits.
    expect([own(fresh, '__proto__'), own(fresh, 'constructor')]).toEqual(['p3', null])
    expect((await read("__proto__ eq 'p3'")).Customer).toBe('Proto')
    expect((await read("constructor eq 'c2'")).Id).toBe(1)
  })

  it('keeps them in the state export and loads them back', async () => {
    const exported = await mock.request('GET', '/__mock/state')
    expect(exported.status).toBe(200)
    const first = exported.body.data[IDS.applicationId].masters.find((r: { Id: number }) => r.Id === 1)
    expect([own(first, '__proto__'), own(first, 'constructor')]).toEqual(['p2', 'c2'])

    first.Customer = 'Reloaded'
    expect(
      (await mock.request('POST', '/__mock/fixture', { body: JSON.stringify(exported.body), headers: { 'content-type': 'application/json' } })).status,
    ).toBe(200)
    const reloaded = await read('Id eq 1')
    expect([reloaded.Customer, own(reloaded, '__proto__'), own(reloaded, 'constructor')]).toEqual(['Reloaded', 'p2', 'c2'])
  })
})
