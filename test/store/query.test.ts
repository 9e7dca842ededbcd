import { describe, expect, it } from 'vitest'
import { decodeRowVersion } from '../../src/wire/row-version.ts'
import { APP, LINES, newStore, q, row, rows } from './support.ts'

const store = newStore()
const idsOf = (list: Array<Record<string, unknown>>) => list.map((r) => r.Id)

describe('queryRows: master rows', () => {
  it('returns every master in Id order with system fields, the Identity field and TIMESTAMP as base64', () => {
    const all = rows(store, '')
    expect(idsOf(all)).toEqual(Array.from({ length: 25 }, (_, i) => i + 1))
    const first = all[0] as Record<string, unknown>
    expect(Object.keys(first)).toEqual([
      'Id',
      'IdRow',
      'Customer',
      'Amount',
      'Status',
      'CT_ATTACHMENTS',
      'DT_CREATION',
      'DT_LAST_UPDATE',
      'ROW_ORDER',
      'TIMESTAMP',
      'USER_ID_CREATION',
      'USER_ID_LAST_UPDATE',
    ])
    expect(first).toMatchObject({
      Id: 1,
      IdRow: 1001,
      Customer: 'Bergmann Logistik GmbH',
      Status: 'Invoiced',
      CT_ATTACHMENTS: 3,
      ROW_ORDER: 1,
      USER_ID_CREATION: 1,
    })
    expect(decodeRowVersion(first.TIMESTAMP as string)).toBe(row(store, 1).TIMESTAMP)
    expect((all[1] as Record<string, unknown>).CT_ATTACHMENTS).toBeNull()
  })

  it('gives every row its own version, growing in load order', () => {
    const versions = rows(store, '').map((r) => decodeRowVersion(r.TIMESTAMP as string) as number)
    expect(new Set(versions).size).toBe(25)
    expect(versions).toEqual([...versions].sort((a, b) => a - b))
  })

  it.each<[string, number[]]>([
    ['$top=3', [1, 2, 3]],
    ['$skip=23', [24, 25]],
    ['$top=2&$skip=10', [11, 12]],
    ['$top=0', []],
    ['$skip=100', []],
    ['$top=5&$skip=24', [25]],
  ])('pages: %s -> %j', (text, expected) => expect(idsOf(rows(store, text))).toEqual(expected))

  it('orders by several fields, ties in Id order', () => {
    const ordered = rows(store, '$orderby=Status asc,Amount desc')
    const expected = rows(store, '')
      .slice()
      .sort((a, b) =>
        a.Status === b.Status
          ? (b.Amount as number) - (a.Amount as number) || (a.Id as number) - (b.Id as number)
          : (a.Status as string) < (b.Status as string)
            ? -1
            : 1,
      )
    expect(idsOf(ordered)).toEqual(idsOf(expected))
    expect(ordered[0]?.Status).toBe('Cancelled')
  })

  it('orders descending by text and pages through the order', () => {
    const all = idsOf(rows(store, '$orderby=Customer desc'))
    expect(idsOf(rows(store, '$orderby=Customer desc&$top=5&$skip=5'))).toEqual(all.slice(5, 10))
    // Two orders for Bergmann Logistik GmbH (Ids 1 and 23): equal keys keep ascending Id.
    const bergmann = all.filter((id) => id === 1 || id === 23)
    expect(bergmann).toEqual([1, 23])
  })

  it('filters and orders by system fields too', () => {
    expect(idsOf(rows(store, '$filter=IdRow ge 1024'))).toEqual([24, 25])
    expect(idsOf(rows(store, '$filter=CT_ATTACHMENTS ne null'))).toEqual([1])
    expect(idsOf(rows(store, '$filter=DT_CREATION lt 20240311000000'))).toEqual([1, 2, 3])
    expect(idsOf(rows(store, '$orderby=ROW_ORDER desc&$top=2'))).toEqual([25, 24])
  })

  it.each<[string, string, string]>([
    ['$orderby=Colour', 'UNKNOWN_FIELD', '$orderby: unknown field Colour in storage Orders'],
    ["$filter=Colour eq 'red'", 'UNKNOWN_FIELD', 'unknown field Colour'],
    ['$filter=Customer eq', 'BAD_FILTER', "$filter, character 12: expected a value after 'eq'"],
  ])('refuses %s with %s', (text, error, message) => {
    const result = store.queryRows(APP, null, q(text), [])
    expect(result).toMatchObject({ error })
    expect((result as { message: string }).message).toContain(message)
  })

  it('refuses an unknown application or relation key', () => {
    expect(store.queryRows('00000000-0000-4000-8000-000000000000', null, q(''), [])).toMatchObject({ error: 'UNKNOWN_APPLICATION' })
    expect(store.queryRows(APP, 'Payments', q(''), [])).toEqual({
      error: 'UNKNOWN_RELATION_KEY',
      message: "relation key Payments is not one of application Orders's (OrderLines)",
    })
  })
})

describe('queryRows: detail rows', () => {
  it('selects detail rows by relation key, two per master', () => {
    const lines = rows(store, '', LINES)
    expect(lines).toHaveLength(50)
    expect(Object.keys(lines[0] as object).slice(0, 7)).toEqual(['Id', 'IdRow', 'MasterId', 'Product', 'Quantity', 'UnitPrice', 'CT_ATTACHMENTS'])
    expect(lines[0]).toMatchObject({ Id: 1, MasterId: 1, CT_ATTACHMENTS: 1 })
  })

  it.each<[string, number[]]>([
    ["$filter=MasterId eq '7'", [13, 14]],
    ['$filter=MasterId eq 7', [13, 14]],
    ['$filter=MasterId eq 7 and Quantity gt 10', [13]],
    ['$filter=Quantity lt 10 and MasterId eq 7', [14]],
    ['$filter=MasterId eq 7 or MasterId eq 8', [13, 14, 15, 16]],
    ['$filter=MasterId eq 99', []],
    ['$filter=MasterId eq 7&$orderby=Quantity asc', [14, 13]],
  ])('%s -> %j (the MasterId index and a full scan agree)', (text, expected) => {
    expect(idsOf(rows(store, text, LINES))).toEqual(expected)
  })

  it('agrees with the master sums: each order amount is the sum of its lines', () => {
    for (const master of rows(store, '')) {
      const lines = rows(store, `$filter=MasterId eq ${String(master.Id)}`, LINES)
      const sum = lines.reduce((total, l) => total + (l.Quantity as number) * (l.UnitPrice as number), 0)
      expect(Math.round(sum * 100) / 100).toBe(master.Amount)
    }
  })
})

describe('queryRows: hidden fields', () => {
  it('leaves hidden fields out of every row', () => {
    const visible = rows(store, '$top=3', null, ['Amount'])
    expect(visible).toHaveLength(3)
    for (const r of visible) expect(r).not.toHaveProperty('Amount')
    expect(visible[0]).toHaveProperty('Customer')
  })

  it('treats a hidden field as unknown in $filter and $orderby (filtering would reveal it)', () => {
    expect(store.queryRows(APP, null, q('$filter=Amount gt 100'), ['Amount'])).toMatchObject({
      error: 'UNKNOWN_FIELD',
      message: '$filter: unknown field Amount in storage Orders',
    })
    expect(store.queryRows(APP, null, q('$orderby=Amount'), ['Amount'])).toMatchObject({ error: 'UNKNOWN_FIELD' })
    expect(store.countRows(APP, null, q('$filter=Amount gt 100'), ['Amount'])).toMatchObject({ error: 'UNKNOWN_FIELD' })
  })

  it('serves both projections of the same row side by side', () => {
    const full = rows(store, '$top=1')[0]
    const hidden = rows(store, '$top=1', null, ['Amount'])[0]
    expect(full).toHaveProperty('Amount')
    expect(hidden).not.toHaveProperty('Amount')
    const { Amount: _amount, ...rest } = full as Record<string, unknown>
    expect(hidden).toEqual(rest)
  })
})

describe('countRows and getRow', () => {
  it.each<[string, string | null, number]>([
    ['', null, 25],
    ["$filter=Status eq 'Open'", null, 7],
    ["$filter=Status eq 'Open'&$top=2&$skip=1", null, 7],
    ['', LINES, 50],
    ['$filter=MasterId eq 3', LINES, 2],
  ])('%s (relation key %s) counts %d', (text, relationKey, count) => {
    expect(store.countRows(APP, relationKey, q(text))).toEqual({ count })
  })

  it('checks $orderby fields even when counting', () => {
    expect(store.countRows(APP, null, q('$orderby=Nope'))).toMatchObject({ error: 'UNKNOWN_FIELD' })
  })

  it('reads one row as JSON without the hidden fields', () => {
    const found = store.getRow(APP, null, 2, ['Amount'])
    expect(found?.row.Amount).toBe(1584)
    expect(JSON.parse(found?.json ?? '{}')).not.toHaveProperty('Amount')
    expect(store.getRow(APP, null, 999)).toBeNull()
    expect(store.getRow(APP, LINES, 50)?.row.MasterId).toBe(25)
  })
})
