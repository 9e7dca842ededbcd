/**
 * The store's engine (src/store/engine/) through the store: a table's columns keep every value
 * when they grow, and `$orderby` sorts nulls first ascending (last descending) and text by UTF-16
 * code units, both in a fresh sort and in a kept result that a later write updates in place.
 */
import { describe, expect, it } from 'vitest'
import type { SaveCommand, WireRow } from '../../src/store/model/types.ts'
import { APP, LINES, newStore, row, rows } from './support.ts'

function saveOk(store: ReturnType<typeof newStore>, masters: SaveCommand['masters']): void {
  const outcome = store.save({ applicationId: APP, userId: 1, masters })
  if (!outcome.ok) throw new Error(`save failed: ${JSON.stringify(outcome.returnStates)}`)
}

const order = (customer: string | null, amount: number, tempId = -1): WireRow => ({
  Id: tempId,
  IdRow: null,
  TIMESTAMP: null,
  Customer: customer,
  Amount: amount,
  Status: 'Open',
})

describe('a table that grows', () => {
  it("keeps every row's values, the last row before each growth included", () => {
    const store = newStore()
    const first = rows(store, '$orderby=Id desc&$top=1')[0] as { Id: number }
    // One row a save: the table grows each time its slots are full, with the row just written last.
    // Two hundred rows take a table of the default fixture's size through at least two growths.
    const written: Array<{ id: number; amount: number; customer: string }> = []
    for (let i = 1; i <= 200; i++) {
      const amount = i + 0.25
      const customer = `Grown ${i}`
      saveOk(store, [
        {
          row: order(customer, amount),
          details: [{ relationKey: LINES, rows: [{ Id: -1, IdRow: null, TIMESTAMP: null, Product: customer, Quantity: i, UnitPrice: amount }] }],
        },
      ])
      written.push({ id: first.Id + i, amount, customer })
    }
    for (const { id, amount, customer } of written) {
      // Numbers (a Float64Array column) and text (an array column) alike.
      expect(row(store, id)).toMatchObject({ Id: id, Amount: amount, Customer: customer })
    }
    const lines = rows(store, "$filter=startswith(Product, 'Grown ')&$orderby=Id", LINES)
    expect(lines).toHaveLength(200)
    expect(lines.map((line) => [line.Product, line.Quantity, line.UnitPrice])).toEqual(written.map(({ customer, amount }, i) => [customer, i + 1, amount]))
  })
})

describe('$orderby', () => {
  // Eight rows told apart by Amount 777; their Customer texts differ in case only, and one has none.
  const filter = '$filter=Amount eq 777'
  const customers = (store: ReturnType<typeof newStore>, orderBy: string) => rows(store, `${filter}&$orderby=${orderBy}`).map((r) => r.Customer)

  it('sorts nulls first ascending and last descending, text by code units (every capital before every small letter)', () => {
    const store = newStore()
    saveOk(
      store,
      ['beta', 'Alpha', null, 'alpha', 'Beta'].map((customer, i) => ({ row: order(customer, 777, -(i + 1)), details: [] })),
    )
    expect(customers(store, 'Customer')).toEqual([null, 'Alpha', 'Beta', 'alpha', 'beta'])
    expect(customers(store, 'Customer desc')).toEqual(['beta', 'alpha', 'Beta', 'Alpha', null])
  })

  it('keeps that order when a write lands in a result already sorted', () => {
    const store = newStore()
    // The whole table, sorted once and kept: each row written next is put in its place (a binary
    // search with the same comparison), not sorted again with the others.
    const sorted = (direction: 'asc' | 'desc') => rows(store, `$orderby=Customer ${direction}`).map((r) => [r.Customer, r.Id])
    const expected = (direction: 'asc' | 'desc') => {
      const all = rows(store, '$orderby=Id').map((r) => [r.Customer, r.Id] as [string | null, number])
      const byText = (a: string | null, b: string | null): number => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a < b ? -1 : 1)
      // Ties by Id, whichever the direction.
      return all.sort(([a, x], [b, y]) => (direction === 'asc' ? byText(a, b) : byText(b, a)) || x - y)
    }
    expect(sorted('asc')).toEqual(expected('asc'))
    expect(sorted('desc')).toEqual(expected('desc'))
    let tempId = 0
    for (const customer of [null, 'alpha', 'ALPHA', 'Zulu', 'zulu', null]) {
      saveOk(store, [{ row: order(customer, 777, --tempId), details: [] }])
      expect(sorted('asc')).toEqual(expected('asc'))
      expect(sorted('desc')).toEqual(expected('desc'))
    }
    const customers = sorted('asc').map(([customer]) => customer)
    expect(customers.slice(0, 2)).toEqual([null, null])
    expect(customers.indexOf('ALPHA')).toBeLessThan(customers.indexOf('Zulu'))
    expect(customers.indexOf('Zulu')).toBeLessThan(customers.indexOf('alpha'))
  })
})
