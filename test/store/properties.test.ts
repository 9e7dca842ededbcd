import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { quote } from '../../src/store/filter-ast.ts'
import type { SaveCommand, WireRow } from '../../src/store/model/types.ts'
import { APP, LINES, newStore, q, row, rows, snapshot } from './support.ts'
import { runs } from '../helpers/property-runs.ts'

/** Mostly valid, sometimes not: weights keep both outcomes common. */
const rarely = <T, U>(usual: fc.Arbitrary<T>, odd: fc.Arbitrary<U>): fc.Arbitrary<T | U> =>
  fc.oneof({ arbitrary: usual as fc.Arbitrary<T | U>, weight: 12 }, { arbitrary: odd as fc.Arbitrary<T | U>, weight: 1 })

/** A master row as a test intends it; TIMESTAMP is resolved against the store when sent. */
const wireRow = fc
  .record(
    {
      Id: rarely(fc.oneof(fc.constantFrom(-1, -2, -3), fc.integer({ min: 1, max: 25 })), fc.constantFrom(26, 999)),
      stamp: rarely(fc.constant('current'), fc.constantFrom('stale', 'none')),
      Customer: rarely(fc.oneof(fc.string({ maxLength: 6 }), fc.constant(null)), fc.integer()),
      Amount: rarely(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.constant('12')),
      IdRow: rarely(fc.constant(null), fc.integer({ min: 1000, max: 1030 })),
      Colour: fc.constant('red'),
    },
    { requiredKeys: ['Id', 'stamp'] },
  )
  .map(({ Colour, ...rest }) => (Colour !== undefined && rest.Id === 999 ? { ...rest, Colour } : rest))

const saveCase = fc.array(
  fc.record({
    master: wireRow,
    lines: fc.array(
      fc.record({
        Id: rarely(fc.constantFrom(-1, -2), fc.integer({ min: 1, max: 52 })),
        Quantity: rarely(fc.integer({ min: 0, max: 9 }), fc.constant(1.5)),
        stamp: rarely(fc.constant('current'), fc.constantFrom('stale', 'none')),
      }),
      { maxLength: 2 },
    ),
  }),
  { minLength: 1, maxLength: 3 },
)

function resolve(store: ReturnType<typeof newStore>, intended: { Id: number; stamp: string } & Record<string, unknown>, relationKey: string | null): WireRow {
  const { stamp, ...rest } = intended
  const current = rest.Id > 0 ? store.getRow(APP, relationKey, rest.Id)?.row.TIMESTAMP : undefined
  const TIMESTAMP = stamp === 'none' ? null : stamp === 'stale' ? 1 : (current ?? null)
  return { ...rest, TIMESTAMP } as WireRow
}

describe('properties of the store', () => {
  it('a failed save changes nothing; a successful one writes what was sent', () => {
    fc.assert(
      fc.property(saveCase, (intended) => {
        const store = newStore()
        const before = snapshot(store)
        const cmd: SaveCommand = {
          applicationId: APP,
          userId: 1,
          masters: intended.map(({ master, lines }) => ({
            row: resolve(store, master, null),
            details: lines.length === 0 ? [] : [{ relationKey: LINES, rows: lines.map((l) => resolve(store, l, LINES)) }],
          })),
        }
        const outcome = store.save(cmd)
        if (!outcome.ok) {
          expect(outcome.returnStates.length).toBeGreaterThan(0)
          expect(snapshot(store)).toBe(before)
          return
        }
        for (const { row: sent } of cmd.masters) {
          const id = sent.Id < 0 ? Number(outcome.result.primaryKeys.toObject()[String(sent.Id)]?.newKeys.Id) : sent.Id
          const stored = row(store, id)
          if ('Customer' in sent) expect(stored.Customer).toEqual(sent.Customer)
          if ('Amount' in sent) expect(stored.Amount).toEqual(sent.Amount)
        }
      }),
      { numRuns: runs(200) },
    )
  })

  const value = fc.oneof(
    fc
      .constantFrom('Status', 'Customer')
      .chain((field) => fc.constantFrom('Open', 'New', 'Shipped', 'Bergmann Logistik GmbH', 'Fourth Coffee', 'M').map((v) => `${field} ${'eq'} ${quote(v)}`)),
    fc
      .tuple(fc.constantFrom('Amount', 'Id', 'IdRow', 'ROW_ORDER'), fc.constantFrom('eq', 'ne', 'gt', 'ge', 'lt', 'le'), fc.integer({ min: 0, max: 20000 }))
      .map(([f, op, n]) => `${f} ${op} ${n}`),
    fc
      .tuple(fc.constantFrom('contains', 'startswith', 'endswith'), fc.constantFrom('Customer', 'Status'), fc.constantFrom('a', 'e', 'GmbH', 'O', 'Co'))
      .map(([fn, f, v]) => `${fn}(${f},${quote(v)})`),
    fc.constantFrom('CT_ATTACHMENTS eq null', 'CT_ATTACHMENTS ne null', "Customer ne 'Tailspin Toys'"),
  )
  const filter = fc.letrec<{ f: string }>((tie) => ({
    f: fc.oneof(
      { depthSize: 'small' },
      value,
      fc.tuple(tie('f'), fc.constantFrom('and', 'or'), tie('f')).map(([a, op, b]) => `(${a}) ${op} (${b})`),
      tie('f').map((a) => `not (${a})`),
    ),
  })).f
  const order = fc.subarray(['Status', 'Customer', 'Amount desc', 'DT_CREATION desc', 'IdRow'], { minLength: 0, maxLength: 3 })

  it('the count equals the length of the unpaged query, and pages put together give the unpaged query', () => {
    const store = newStore()
    fc.assert(
      fc.property(filter, order, fc.integer({ min: 1, max: 7 }), (text, orderBy, size) => {
        const orderPart = orderBy.length > 0 ? `&$orderby=${orderBy.join(',')}` : ''
        const all = rows(store, `$filter=${text}${orderPart}`)
        expect(store.countRows(APP, null, q(`$inlinecount=allpages&$filter=${text}`))).toEqual({ count: all.length })
        const pages: unknown[] = []
        for (let skip = 0; skip < all.length; skip += size) pages.push(...rows(store, `$filter=${text}${orderPart}&$top=${size}&$skip=${skip}`))
        expect(pages).toEqual(all)
      }),
      { numRuns: runs(150) },
    )
  })

  it('a filter and its negation split the rows where the fields are not null', () => {
    const store = newStore()
    fc.assert(
      fc.property(value, (text) => {
        const yes = rows(store, `$filter=${text}`).map((r) => r.Id)
        const no = rows(store, `$filter=not (${text})`).map((r) => r.Id)
        expect([...yes, ...no].sort((a, b) => (a as number) - (b as number))).toEqual(Array.from({ length: 25 }, (_, i) => i + 1))
      }),
    )
  })
})
