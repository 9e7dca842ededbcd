/**
 * `Store.deleteInSlices`: the same outcome and data as `delete`, with the plan made a row at a time
 * here (`sliceMs` 0), the rows then found a row at a time, removed for every read in one step, and
 * taken out of the tables' indexes a row at a time. A write between slices voids the plan, so the
 * delete ends as if it had come after that write; a reset or fixture load between them refuses it;
 * between the slices that sweep the indexes, other writes already see the rows gone.
 */
import { describe, expect, it } from 'vitest'
import { withGeneratedRows } from '../../src/fixtures/generate.ts'
import { DataReplaced } from '../../src/store/epoch.ts'
import type { Store } from '../../src/store/store.ts'
import type { DeleteCommand, SaveCommand, WireRow } from '../../src/store/model/types.ts'
import { APP, LINES, defaultFixture, newStore, q, row, rows, snapshot } from './support.ts'

type Groups = DeleteCommand['groups']

const command = (groups: Groups): DeleteCommand => ({ applicationId: APP, groups })
const ref = (store: Store, id: number, relationKey: string | null = null) => ({ Id: id, TIMESTAMP: row(store, id, relationKey).TIMESTAMP })
/** Masters `from` to `to` (inclusive), with their current TIMESTAMPs. */
const masters = (store: Store, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ref(store, from + i))
const save = (store: Store, masters: SaveCommand['masters']) => store.save({ applicationId: APP, userId: 1, masters })
const newOrder = (i: number, extra: Record<string, unknown> = {}): SaveCommand['masters'][number] => ({
  row: { Id: -(i + 1), IdRow: null, TIMESTAMP: null, Customer: `C${i}`, Amount: i, Status: 'New', ...extra } as WireRow,
  details: [{ relationKey: LINES, rows: [{ Id: -1, IdRow: null, TIMESTAMP: null, Product: 'P', Quantity: 1, UnitPrice: 2 } as WireRow] }],
})
const attachments = (store: Store) => [1, 2, 3, 4, 5, 6].map((id) => [store.getAttachment(APP, null, id)?.id, store.getAttachment(APP, LINES, id)?.id])
const count = (store: Store, relationKey: string | null = null) => store.countRows(APP, relationKey, q(''))

/** Deletes in slices, running `between` at pause `at` (the first unless said); the outcome and how many pauses. */
async function inSlices(store: Store, cmd: DeleteCommand, between?: () => void, at = 0) {
  let pauses = 0
  const outcome = await store.deleteInSlices(
    cmd,
    async () => {
      if (pauses++ === at) between?.()
      await new Promise((resolve) => setImmediate(resolve))
    },
    0,
  )
  return { outcome, pauses }
}

/**
 * Pauses while a delete of `rows` rows in one group, `masters` of them masters with two order lines
 * each, is planned: one at the group, one before each row, one before the lines of each master (no
 * row is locked). The first pause after them is the first while its rows are found.
 */
const planPauses = (rows: number, masters: number) => 1 + rows + masters

describe('Store.deleteInSlices', () => {
  it('answers and deletes as delete does, refused or not, attachments and detail rows included', async () => {
    for (const broken of [false, true]) {
      const [sliced, whole] = [newStore(), newStore()]
      const groups: Groups = [
        { relationKey: null, rows: masters(sliced, 1, 20) },
        // Lines of orders 21 and 22, named on their own.
        { relationKey: LINES, rows: [ref(sliced, 41, LINES), ref(sliced, 43, LINES), ref(sliced, 44, LINES)] },
      ]
      if (broken) {
        groups[0]!.rows.push({ Id: 404, TIMESTAMP: 1 }, { Id: 23, TIMESTAMP: row(sliced, 23).TIMESTAMP - 1 }, ref(sliced, 5))
        groups.push({ relationKey: 'Payments', rows: [{ Id: 1, TIMESTAMP: 1 }] })
        for (const store of [sliced, whole]) store.lock(APP, LINES, [47])
        groups[1]!.rows.push(ref(sliced, 47, LINES))
      }
      const { outcome, pauses } = await inSlices(sliced, command(groups))
      expect(pauses).toBeGreaterThan(20)
      expect(outcome).toEqual(whole.delete(command(groups)))
      expect(outcome.ok).toBe(!broken)
      if (broken)
        expect(outcome.ok ? [] : outcome.returnStates.map((state) => state.code)).toEqual([
          'NOT_FOUND',
          'CONCURRENCY',
          'DUPLICATE_ROW',
          'LOCKED',
          'UNKNOWN_RELATION_KEY',
        ])
      else expect(outcome).toMatchObject({ result: { deleted: 23, cascaded: 40 } })
      expect(snapshot(sliced)).toEqual(snapshot(whole))
      expect(attachments(sliced)).toEqual(attachments(whole))
      expect(sliced.generation()).toBe(whole.generation())
      expect(count(sliced)).toEqual({ count: broken ? 25 : 5 })
    }
  })

  it.each([
    [
      'a save of a row it deletes, planned before it: refused (CONCURRENCY)',
      (store: Store) => void save(store, [{ row: { Id: 3, TIMESTAMP: row(store, 3).TIMESTAMP, Amount: 1 } as WireRow, details: [] }]),
      'CONCURRENCY',
    ],
    ['a lock of a row it deletes: refused (LOCKED)', (store: Store) => void store.lock(APP, null, [4]), 'LOCKED'],
    [
      'a delete of a row it deletes: refused (NOT_FOUND)',
      (store: Store) => void store.delete(command([{ relationKey: null, rows: [ref(store, 2)] }])),
      'NOT_FOUND',
    ],
    ['a save of new rows: deleted after them', (store: Store) => void save(store, [newOrder(0)]), null],
  ])(
    'after a write between its slices (%s), ends as if it had come after it, whether the write lands while it is planned or while its rows are found',
    async (_name, write, refused) => {
      for (const at of [0, planPauses(10, 10), planPauses(10, 10) + 12]) {
        const [sliced, after] = [newStore(), newStore()]
        const cmd = command([{ relationKey: null, rows: masters(sliced, 1, 10) }])
        const { outcome, pauses } = await inSlices(sliced, cmd, () => write(sliced), at)
        expect(pauses).toBeGreaterThan(at)
        write(after)
        expect(outcome).toEqual(after.delete(cmd))
        expect(outcome.ok ? null : outcome.returnStates.map((state) => state.code)).toEqual(refused === null ? null : [refused])
        expect(snapshot(sliced)).toEqual(snapshot(after))
        expect(attachments(sliced)).toEqual(attachments(after))
      }
    },
  )

  it('after a reset or fixture load between its slices, while it is planned or while its rows are found, deletes nothing and throws DataReplaced', async () => {
    for (const at of [0, planPauses(10, 10) + 3]) {
      for (const load of [(store: Store) => store.reset(), (store: Store) => store.reset(store.fixture)]) {
        const store = newStore()
        const epoch = store.epoch()
        await expect(inSlices(store, command([{ relationKey: null, rows: masters(store, 1, 10) }]), () => load(store), at)).rejects.toThrow(DataReplaced)
        expect(store.epoch()).toBe(epoch + 1)
        const fresh = newStore()
        fresh.reset()
        expect(snapshot(store)).toEqual(snapshot(fresh))
        expect(attachments(store)).toEqual(attachments(fresh))
      }
    }
  })

  it('removes its rows for every read at once: reads between the slices before see every row, reads after see none', async () => {
    const store = newStore()
    const seen: Array<[number, number, number]> = []
    // A filtered read too: its result is kept across writes, and must not keep the rows the delete removed.
    const read = (): [number, number, number] => [
      rows(store, '$top=100').length,
      rows(store, '$top=100', LINES).length,
      rows(store, '$filter=Id le 20&$orderby=Customer').length,
    ]
    const outcome = await store.deleteInSlices(
      command([{ relationKey: null, rows: masters(store, 1, 20) }]),
      async () => {
        seen.push(read())
        await new Promise((resolve) => setImmediate(resolve))
      },
      0,
    )
    expect(outcome).toMatchObject({ ok: true, result: { deleted: 20, cascaded: 40 } })
    // Planned (41 pauses), its 60 rows found (a pause after each but the last of each table: 58), then taken out of the
    // indexes (58): only whole states are seen.
    expect(seen).toHaveLength(41 + 58 + 58)
    expect(seen.slice(0, 99)).toEqual(Array.from({ length: 99 }, () => [25, 50, 20]))
    expect(seen.slice(99)).toEqual(Array.from({ length: 58 }, () => [5, 10, 0]))
    expect(read()).toEqual([5, 10, 0])
  })

  it('while its rows are taken out of the indexes, writes already see them gone: an Identity value of a deleted row is free, a master whose lines it deleted has none', async () => {
    const [sliced, serial] = [newStore(), newStore()]
    // Orders 11 to 15 with their lines, and every line of orders 1 to 10 named on its own.
    const lines = Array.from({ length: 20 }, (_, i) => ref(sliced, i + 1, LINES))
    const cmd = command([
      { relationKey: null, rows: masters(sliced, 11, 15) },
      { relationKey: LINES, rows: lines },
    ])
    const identity = row(sliced, 15).IdRow
    const writes = (store: Store) => [save(store, [newOrder(0, { IdRow: identity })]), store.delete(command([{ relationKey: null, rows: [ref(store, 3)] }]))]
    let during: unknown
    let pauses = 0
    const outcome = await sliced.deleteInSlices(
      cmd,
      async () => {
        pauses++
        // At the first pause after its rows are gone for reads: one row is out of the indexes, order 15 and every line still in them.
        if (during === undefined && rows(sliced, '$top=100').length === 20) during = writes(sliced)
        await new Promise((resolve) => setImmediate(resolve))
      },
      0,
    )
    // Planned (1 + 5 + 1 + 20 rows, 5 masters' lines), 35 rows of two tables found (33 pauses) and taken out of the indexes (33).
    expect(pauses).toBe(32 + 33 + 33)
    // (Its changes name the tables, which the writes since have changed: the results are compared.)
    const serialOutcome = serial.delete(cmd)
    expect(outcome.ok && serialOutcome.ok && [outcome.result, serialOutcome.result]).toEqual([
      { deleted: 25, cascaded: 10 },
      { deleted: 25, cascaded: 10 },
    ])
    const after = writes(serial)
    expect(during).toEqual(after)
    expect(after[0]).toMatchObject({ ok: true, result: { created: 2 } })
    // Order 3's lines went before it: it goes alone.
    expect(after[1]).toMatchObject({ ok: true, result: { deleted: 1, cascaded: 0 } })
    expect(snapshot(sliced)).toEqual(snapshot(serial))
  })

  it('frees the slots of a table it leaves mostly empty, and rows written there next read as themselves', async () => {
    const fixture = withGeneratedRows(defaultFixture, { rows: 3000, seed: 1 })
    const [sliced, serial] = [newStore(fixture), newStore(fixture)]
    // Every row read once: each row's text is kept, by slot, for the next read.
    for (const store of [sliced, serial]) expect(rows(store, '').length + rows(store, '', LINES).length).toBe(3025 * 3)
    const cmd = command([{ relationKey: null, rows: masters(sliced, 26, 2525) }])
    const pause = () => new Promise<void>((resolve) => setImmediate(resolve))
    expect(await sliced.deleteInSlices(cmd, pause, 0)).toEqual(serial.delete(cmd))
    for (const store of [sliced, serial])
      expect(
        save(
          store,
          Array.from({ length: 600 }, (_, i) => newOrder(i)),
        ).ok,
      ).toBe(true)
    expect(count(sliced)).toEqual({ count: 25 + 500 + 600 })
    expect(snapshot(sliced)).toEqual(snapshot(serial))
    expect(rows(sliced, '$orderby=Id desc&$top=3')).toEqual(rows(serial, '$orderby=Id desc&$top=3'))
  })

  it('two big deletes side by side: one after the other, each whole; the second of two that share a row is refused for it', async () => {
    for (const overlap of [false, true]) {
      const [sliced, serial] = [newStore(), newStore()]
      const a = command([{ relationKey: null, rows: masters(sliced, 1, 10) }])
      const b = command([{ relationKey: null, rows: masters(sliced, overlap ? 10 : 11, 20) }])
      const pause = () => new Promise<void>((resolve) => setImmediate(resolve))
      const [first, second] = await Promise.all([sliced.deleteInSlices(a, pause, 0), sliced.deleteInSlices(b, pause, 0)])
      const firstOk = first.ok
      // Without a shared row both are written; with one, whichever came second is refused for it (NOT_FOUND), and nothing of it is written.
      expect([first.ok, second.ok].filter(Boolean)).toHaveLength(overlap ? 1 : 2)
      const order = overlap && !firstOk ? [b, a] : [a, b]
      expect([serial.delete(order[0]!), serial.delete(order[1]!)]).toEqual(overlap && !firstOk ? [second, first] : [first, second])
      expect(snapshot(sliced)).toEqual(snapshot(serial))
    }
  })
})
