import { describe, expect, it } from 'vitest'
import { textOf } from '../../src/bytes.ts'
import { APP, defaultFixture, LINES, newStore, q, row, rows } from './support.ts'

describe('cached JSON texts and orders follow writes', () => {
  it('a page read after an update shows the new value (and the new TIMESTAMP)', () => {
    const store = newStore()
    const before = rows(store, '$top=5')
    const hiddenBefore = rows(store, '$top=5', null, ['Amount'])
    store.save({ applicationId: APP, userId: 1, masters: [{ row: { Id: 3, TIMESTAMP: row(store, 3).TIMESTAMP, Customer: 'Renamed SA' }, details: [] }] })
    const after = rows(store, '$top=5')
    expect(after[2]?.Customer).toBe('Renamed SA')
    expect(after[2]?.TIMESTAMP).not.toBe(before[2]?.TIMESTAMP)
    expect(rows(store, '$top=5', null, ['Amount'])[2]?.Customer).toBe('Renamed SA')
    // Rows that did not change come back exactly as before.
    expect([after[0], after[1], after[3], after[4]]).toEqual([before[0], before[1], before[3], before[4]])
    expect(hiddenBefore[2]?.Customer).not.toBe('Renamed SA')
  })

  it('serves the very same text for a row that did not change', () => {
    const store = newStore()
    const first = store.queryRows(APP, null, q('$top=2'), [])
    const second = store.queryRows(APP, null, q('$top=2'), [])
    expect(second).toEqual(first)
    const one = store.getRow(APP, null, 1)
    expect(store.getRow(APP, null, 1)?.json).toBe(one?.json)
  })

  it('a filtered, ordered page follows writes that move rows in or out of it', () => {
    const store = newStore()
    const open = () => rows(store, "$filter=Status eq 'Open'&$orderby=Amount desc").map((r) => r.Id)
    const before = open()
    expect(before).not.toContain(1)
    store.save({ applicationId: APP, userId: 1, masters: [{ row: { Id: 1, TIMESTAMP: row(store, 1).TIMESTAMP, Status: 'Open', Amount: 1e9 }, details: [] }] })
    expect(open()).toEqual([1, ...before])
    store.save({ applicationId: APP, userId: 1, masters: [{ row: { Id: -1, Status: 'Open', Amount: 0 }, details: [] }] })
    expect(open()).toEqual([1, ...before, 26])
    store.delete({ applicationId: APP, groups: [{ relationKey: null, rows: [{ Id: 1, TIMESTAMP: row(store, 1).TIMESTAMP }] }] })
    expect(open()).toEqual([...before, 26])
    expect(store.countRows(APP, null, q("$filter=Status eq 'Open'"))).toEqual({ count: before.length + 1 })
  })

  it('the unfiltered list follows creates and deletes', () => {
    const store = newStore()
    expect(rows(store, '$skip=23').map((r) => r.Id)).toEqual([24, 25])
    store.save({ applicationId: APP, userId: 1, masters: [{ row: { Id: -1 }, details: [] }] })
    expect(rows(store, '$skip=23').map((r) => r.Id)).toEqual([24, 25, 26])
    store.delete({ applicationId: APP, groups: [{ relationKey: null, rows: [{ Id: 24, TIMESTAMP: row(store, 24).TIMESTAMP }] }] })
    expect(rows(store, '$skip=22').map((r) => r.Id)).toEqual([23, 25, 26])
  })

  it('the detail index follows new and deleted detail rows', () => {
    const store = newStore()
    store.save({ applicationId: APP, userId: 1, masters: [{ row: { Id: 4 }, details: [{ relationKey: LINES, rows: [{ Id: -1, Product: 'New line' }] }] }] })
    expect(rows(store, '$filter=MasterId eq 4', LINES).map((r) => r.Id)).toEqual([7, 8, 51])
    store.delete({ applicationId: APP, groups: [{ relationKey: LINES, rows: [{ Id: 7, TIMESTAMP: row(store, 7, LINES).TIMESTAMP }] }] })
    expect(rows(store, '$filter=MasterId eq 4', LINES).map((r) => r.Id)).toEqual([8, 51])
  })
})

describe('reset', () => {
  it('goes back to the loaded fixture, with row versions that keep growing', () => {
    const store = newStore()
    const version = store.currentRowVersion()
    const firstRow = row(store, 1).TIMESTAMP
    store.save({
      applicationId: APP,
      userId: 1,
      masters: [
        { row: { Id: -1 }, details: [] },
        { row: { Id: 1, TIMESTAMP: firstRow, Customer: 'Changed' }, details: [] },
      ],
    })
    store.reset()
    expect(store.countRows(APP, null, q(''))).toEqual({ count: 25 })
    expect(row(store, 1).Customer).toBe('Bergmann Logistik GmbH')
    // A TIMESTAMP read before the reset is stale after it.
    expect(row(store, 1).TIMESTAMP).toBeGreaterThan(version)
    expect(store.save({ applicationId: APP, userId: 1, masters: [{ row: { Id: 1, TIMESTAMP: firstRow, Status: 'x' }, details: [] }] }).ok).toBe(false)
  })

  it('loads another fixture', () => {
    const store = newStore()
    const fixture = store.fixture
    const smaller = { ...fixture, data: { [APP]: { masters: fixture.data[APP]?.masters.slice(0, 2) ?? [], details: { [LINES]: [] } } } }
    store.reset(smaller)
    expect(store.countRows(APP, null, q(''))).toEqual({ count: 2 })
    expect(store.fixture).toBe(smaller)
  })
})

describe('a page is written from the bytes the store keeps, not from a copy', () => {
  const pieces = (page: ReturnType<ReturnType<typeof newStore>['queryRows']>) => {
    if ('error' in page) throw new Error(page.message)
    return page
  }

  it('two reads of an unchanged page hand out views of the same memory, brackets and commas between', () => {
    const store = newStore()
    const first = pieces(store.queryRows(APP, null, q('$top=5'), []))
    const second = pieces(store.queryRows(APP, null, q('$top=5'), []))
    // '[', one run of five rows (stored one after the other by the first read), ']'.
    expect(first.chunks.map((c) => (c.length === 1 ? textOf(c) : 'rows'))).toEqual(['[', 'rows', ']'])
    expect(second.chunks[1]?.buffer).toBe(first.chunks[1]?.buffer)
    expect(second.chunks[1]?.byteOffset).toBe(first.chunks[1]?.byteOffset)
    expect(first.length).toBe(first.chunks.reduce((n, c) => n + c.length, 0))
    expect(JSON.parse(textOf(first.body))).toHaveLength(5)
  })

  it('a write does not change bytes already handed out: an answer still being written stays whole', () => {
    const store = newStore()
    const before = pieces(store.queryRows(APP, null, q('$top=5'), []))
    const text = textOf(before.body)
    store.save({ applicationId: APP, userId: 1, masters: [{ row: { Id: 3, TIMESTAMP: row(store, 3).TIMESTAMP, Customer: 'Renamed SA' }, details: [] }] })
    const after = pieces(store.queryRows(APP, null, q('$top=5'), []))
    expect(textOf(before.body)).toBe(text)
    expect(textOf(after.body)).toContain('Renamed SA')
    // Rows 1-2 and 4-5 are still where the first read stored them; row 3 was stored anew.
    expect(after.chunks.filter((c) => c.length > 1)).toHaveLength(3)
  })

  it('a page of many short runs is joined into one buffer', () => {
    const store = newStore({ ...defaultFixture, generated: { rows: 75, seed: 7 } })
    // Read in ascending order first, no two rows of a descending page follow one another in the store.
    const ids = rows(store, '$orderby=Id asc')
      .map((r) => r.Id as number)
      .reverse()
    const page = pieces(store.queryRows(APP, null, q('$orderby=Id desc'), []))
    expect(ids).toHaveLength(100)
    expect(page.chunks).toHaveLength(1)
    expect(page.chunks[0]?.length).toBe(page.length)
    expect(JSON.parse(textOf(page.body)).map((r: { Id: number }) => r.Id)).toEqual(ids)
  })
})
