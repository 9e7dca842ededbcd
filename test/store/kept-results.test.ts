/**
 * The store keeps query results across writes and patches them (src/store/engine/selections.ts), keeps
 * rows' bytes within a bound (row-bytes.ts) and reclaims deleted slots (Table compaction): each
 * must answer exactly what a store that never kept anything answers.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { withGeneratedRows } from '../../src/fixtures/generate.ts'
import { RowBytes } from '../../src/store/engine/row-bytes.ts'
import { APP, defaultFixture, newStore, q, row, rows } from './support.ts'
import { runs } from '../helpers/property-runs.ts'

const QUERIES = ["$filter=Status eq 'Open'&$orderby=Amount desc", '$orderby=Customer asc,Amount asc', '$filter=Amount gt 5000', '$orderby=Id desc', '']

type Step =
  | { kind: 'update'; id: number; amount: number; status: string }
  | { kind: 'create'; amount: number }
  | { kind: 'delete'; id: number }
  | { kind: 'read'; query: number }

const step: fc.Arbitrary<Step> = fc.oneof(
  fc.record({
    kind: fc.constant('update' as const),
    id: fc.integer({ min: 1, max: 60 }),
    amount: fc.integer({ min: 0, max: 20000 }),
    status: fc.constantFrom('Open', 'Closed', 'New'),
  }),
  fc.record({ kind: fc.constant('create' as const), amount: fc.integer({ min: 0, max: 20000 }) }),
  fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 1, max: 60 }) }),
  fc.record({ kind: fc.constant('read' as const), query: fc.integer({ min: 0, max: QUERIES.length - 1 }) }),
)

describe('kept results, row bytes and compaction', () => {
  it('answer every query after any writes as a store that kept nothing does', () => {
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const kept = newStore()
        // Every query asked once, so each is kept from the start and patched from then on.
        for (const query of QUERIES) rows(kept, query)
        for (const s of steps) {
          if (s.kind === 'update' || s.kind === 'delete') {
            const found = kept.getRow(APP, null, s.id)
            if (found === null) continue
            if (s.kind === 'update')
              kept.save({
                applicationId: APP,
                userId: 1,
                masters: [{ row: { Id: s.id, TIMESTAMP: found.row.TIMESTAMP, Amount: s.amount, Status: s.status }, details: [] }],
              })
            else kept.delete({ applicationId: APP, groups: [{ relationKey: null, rows: [{ Id: s.id, TIMESTAMP: found.row.TIMESTAMP }] }] })
          } else if (s.kind === 'create') {
            kept.save({ applicationId: APP, userId: 1, masters: [{ row: { Id: -1, Customer: 'Made', Amount: s.amount, Status: 'Open' }, details: [] }] })
          } else rows(kept, QUERIES[s.query] as string)
        }
        // A store rebuilt from the kept one's data has no kept result: it computes every answer afresh.
        const fresh = newStore(kept.snapshot())
        for (const query of QUERIES) expect(rows(kept, query), query).toEqual(rows(fresh, query))
        expect(kept.countRows(APP, null, q("$filter=Status eq 'Open'"))).toEqual(fresh.countRows(APP, null, q("$filter=Status eq 'Open'")))
      }),
      { numRuns: runs(60) },
    )
  })

  it('reclaims the slots of deleted rows and still finds every row left, by Id and in order', () => {
    const store = newStore(withGeneratedRows(defaultFixture, { rows: 3000, seed: 5, detailsPerMaster: 0 }))
    const before = rows(store, '$orderby=Amount desc&$top=4000')
    // Two rows in three go: past half of the slots dead, the table is compacted.
    const doomed = before.filter((_, i) => i % 3 !== 0).map((r) => Number(r.Id))
    for (const id of doomed) store.delete({ applicationId: APP, groups: [{ relationKey: null, rows: [{ Id: id, TIMESTAMP: row(store, id).TIMESTAMP }] }] })
    const left = before.filter((_, i) => i % 3 === 0)
    expect(rows(store, '$orderby=Amount desc&$top=4000').map((r) => r.Id)).toEqual(left.map((r) => r.Id))
    expect(rows(store, '$top=4000').map((r) => r.Id)).toEqual(left.map((r) => Number(r.Id)).sort((a, b) => a - b))
    for (const r of left.slice(0, 50)) expect(row(store, Number(r.Id)).Customer).toBe(r.Customer)
    for (const id of doomed.slice(0, 50)) expect(store.getRow(APP, null, id)).toBeNull()
  })

  it('keeps row bytes within their limit, giving back the oldest first', () => {
    const bytes = new RowBytes(16, 2 * 1024 * 1024)
    const text = (n: number) => String(n).repeat(600_000)
    for (let slot = 0; slot < 8; slot++) bytes.store(slot, text(slot))
    expect(bytes.held).toBeLessThanOrEqual(2 * 1024 * 1024)
    expect(bytes.lengthOf(0)).toBe(-1)
    expect(bytes.lengthOf(7)).toBe(600_000)
    expect(bytes.run(7, 7).toString('utf8')).toBe(text(7))
  })
})
