/**
 * `Store.saveInSlices`: the same outcome and data as `save`, with the plan made a master at a time
 * here (`sliceMs` 0), and a write between slices (a save, a lock) voiding the plan, so the save
 * ends as if it had come after that write; a reset or fixture load between slices refuses it.
 */
import { describe, expect, it } from 'vitest'
import type { Store } from '../../src/store/store.ts'
import { DataReplaced } from '../../src/store/epoch.ts'
import type { SaveCommand, WireRow } from '../../src/store/model/types.ts'
import { APP, LINES, newStore, row, rows, snapshot } from './support.ts'

const newOrder = (i: number): SaveCommand['masters'][number] => ({
  row: { Id: -(i + 1), IdRow: null, TIMESTAMP: null, Customer: `C${i}`, Amount: i, Status: 'New' } as WireRow,
  details: [{ relationKey: LINES, rows: [{ Id: -1, IdRow: null, TIMESTAMP: null, Product: 'P', Quantity: 1, UnitPrice: 2 } as WireRow] }],
})
const command = (masters: SaveCommand['masters']): SaveCommand => ({ applicationId: APP, userId: 1, masters })
const update = (store: Store, id: number, values: Record<string, unknown>): SaveCommand['masters'][number] => ({
  row: { Id: id, TIMESTAMP: row(store, id).TIMESTAMP, ...values } as WireRow,
  details: [],
})

/** Saves in slices, running `between` at the first pause (or at pause `at`); answers the outcome and how many pauses. */
async function inSlices(store: Store, cmd: SaveCommand, between?: () => void, at = 0) {
  let pauses = 0
  const outcome = await store.saveInSlices(
    cmd,
    async () => {
      if (pauses++ === at) between?.()
      await new Promise((resolve) => setImmediate(resolve))
    },
    0,
  )
  return { outcome, pauses }
}

describe('Store.saveInSlices', () => {
  it('answers and writes as save does, valid or not', async () => {
    for (const broken of [false, true]) {
      const [sliced, whole] = [newStore(), newStore()]
      const masters = Array.from({ length: 50 }, (_, i) => newOrder(i))
      masters.push(update(sliced, 2, { Amount: 5 }))
      if (broken) {
        masters.push({ row: { Id: 3, TIMESTAMP: row(sliced, 1).TIMESTAMP, Amount: 6 } as WireRow, details: [] })
        ;(masters[30] as { row: WireRow }).row.IdRow = 1001
      }
      const { outcome, pauses } = await inSlices(sliced, command(masters))
      // A pause after each master planned but the last; then, for a save that passes, after each new row staged but the last (50 orders, 50 lines).
      expect(pauses).toBe(masters.length - 1 + (broken ? 0 : 99))
      expect(outcome).toEqual(whole.save(command(masters)))
      expect(outcome.ok).toBe(!broken)
      expect(snapshot(sliced)).toEqual(snapshot(whole))
      expect(sliced.generation()).toBe(whole.generation())
    }
  })

  it.each([
    [
      'a save of a row it updates too, planned before it: refused (CONCURRENCY)',
      (store: Store) => void store.save(command([update(store, 1, { Customer: 'meanwhile' })])),
      'CONCURRENCY',
    ],
    ['a lock of a row it updates: refused (LOCKED)', (store: Store) => void store.lock(APP, null, [1]), 'LOCKED'],
    ['a save of new rows: the Ids after theirs', (store: Store) => void store.save(command([newOrder(0)])), null],
  ])('after a write between its slices (%s), ends as if it had come after it', async (_name, write, refused) => {
    const [sliced, after] = [newStore(), newStore()]
    const masters = [update(sliced, 1, { Amount: 7 }), ...Array.from({ length: 20 }, (_, i) => newOrder(i))]
    const { outcome, pauses } = await inSlices(sliced, command(masters), () => write(sliced))
    expect(pauses).toBeGreaterThan(1)
    write(after)
    expect(outcome).toEqual(after.save(command(masters)))
    expect(outcome.ok ? null : outcome.returnStates.map((state) => state.code)).toEqual(refused === null ? null : [refused])
    expect(snapshot(sliced)).toEqual(snapshot(after))
    expect(sliced.locks()).toEqual(after.locks())
  })

  it('after a reset or fixture load between its slices, writes nothing and throws DataReplaced (the clean cut)', async () => {
    for (const load of [(store: Store) => store.reset(), (store: Store) => store.reset(store.fixture)]) {
      const store = newStore()
      const masters = Array.from({ length: 20 }, (_, i) => newOrder(i))
      const epoch = store.epoch()
      await expect(inSlices(store, command(masters), () => load(store))).rejects.toThrow(DataReplaced)
      expect(store.epoch()).toBe(epoch + 1)
      // The data the reset put in place, untouched: no order of the save, no Id or version used up.
      const fresh = newStore()
      fresh.reset()
      expect(snapshot(store)).toEqual(snapshot(fresh))
    }
  })

  it('refuses every write stamped with an older epoch, and takes one stamped with the current one', () => {
    const store = newStore()
    const stamp = store.epoch()
    store.reset()
    const stale = { epoch: stamp }
    expect(() => store.save({ ...command([newOrder(0)]), ...stale })).toThrow(DataReplaced)
    expect(() =>
      store.delete({ applicationId: APP, groups: [{ relationKey: null, rows: [{ Id: 1, TIMESTAMP: row(store, 1).TIMESTAMP }] }], ...stale }),
    ).toThrow(DataReplaced)
    expect(() =>
      store.runAction({ applicationId: APP, actionId: 'c0ffee00-0000-4000-8000-000000000001', userId: 1, parameters: [{ key: 'Ids', value: '1' }], ...stale }),
    ).toThrow(DataReplaced)
    expect(() => store.reserveIdentities(APP, '5e7d0c1a-1111-4111-8111-000000000001', 'IdRow', 1, stamp)).toThrow(DataReplaced)
    const fresh = newStore()
    fresh.reset()
    expect(snapshot(store)).toEqual(snapshot(fresh))
    expect(store.save({ ...command([newOrder(0)]), epoch: store.epoch() }).ok).toBe(true)
  })

  it('a big save is copied out of its plan and its table grown in steps as well, a column at a time, with pauses between', async () => {
    // 66,000 orders without lines: past the rows a table is grown at once (65,536), past 8 copies of 8,192 rows.
    const n = 66_000
    const masters = Array.from({ length: n }, (_, i) => ({ ...newOrder(i), details: [] }))
    const [sliced, whole] = [newStore(), newStore()]
    const { outcome, pauses } = await inSlices(sliced, command(masters))
    expect(outcome).toEqual(whole.save(command(masters)))
    expect(snapshot(sliced)).toEqual(snapshot(whole))
    // Beyond a pause after each master planned and each new row staged but the last: one each 8,192 rows
    // copied, and two a column grown (the new slots filled in one step, then the next column), a column a field of the row.
    const columns = Object.keys(row(sliced, 1)).length
    expect(pauses - 2 * (n - 1)).toBe(Math.floor(n / 8192) + 2 * columns)
  })

  it('writes its new rows where no read looks, then all at once: a read between slices sees none of it, a read after sees all', async () => {
    const store = newStore()
    const masters = Array.from({ length: 30 }, (_, i) => newOrder(i))
    const before = rows(store, '$orderby=Id desc&$top=100').length
    const seen: number[] = []
    let pauses = 0
    const outcome = await store.saveInSlices(
      command(masters),
      async () => {
        pauses++
        seen.push(rows(store, '$orderby=Id desc&$top=100').length, rows(store, '$top=200', LINES).length)
        await new Promise((resolve) => setImmediate(resolve))
      },
      0,
    )
    expect(outcome.ok).toBe(true)
    // 29 pauses planning, 59 staging the 60 new rows: every read among them saw the store as it was.
    expect(pauses).toBe(29 + 59)
    expect(new Set(seen.filter((_, i) => i % 2 === 0))).toEqual(new Set([before]))
    expect(rows(store, '$orderby=Id desc&$top=100')).toHaveLength(before + 30)
    const fresh = newStore()
    expect(fresh.save(command(masters)).ok).toBe(true)
    expect(snapshot(store)).toEqual(snapshot(fresh))
  })

  it('after a write between the slices that stage its new rows (a save of new rows into the same slots), plans again and ends after it', async () => {
    const [sliced, after] = [newStore(), newStore()]
    const masters = Array.from({ length: 20 }, (_, i) => newOrder(i))
    const write = (store: Store) => void store.save(command([newOrder(99), newOrder(98)]))
    // Pause 19 is the first while staging (19 while planning 20 masters): the small save appends where the big one staged.
    const { outcome } = await inSlices(sliced, command(masters), () => write(sliced), 19)
    write(after)
    expect(outcome).toEqual(after.save(command(masters)))
    expect(snapshot(sliced)).toEqual(snapshot(after))
  })

  it('two big saves side by side: one after the other, each whole, their rows never interleaved', async () => {
    const [sliced, serial] = [newStore(), newStore()]
    const a = Array.from({ length: 40 }, (_, i) => newOrder(i))
    const b = Array.from({ length: 40 }, (_, i) => newOrder(100 + i))
    const pause = () => new Promise<void>((resolve) => setImmediate(resolve))
    const [first, second] = await Promise.all([sliced.saveInSlices(command(a), pause, 0), sliced.saveInSlices(command(b), pause, 0)])
    expect(first.ok && second.ok).toBe(true)
    // Whichever committed first, the data is that of the two saved one after the other in that order.
    const firstIds = first.ok ? first.result.firstMasterId : null
    const secondIds = second.ok ? second.result.firstMasterId : null
    const aFirst = (firstIds as number) < (secondIds as number)
    serial.save(command(aFirst ? a : b))
    serial.save(command(aFirst ? b : a))
    expect(snapshot(sliced)).toEqual(snapshot(serial))
  })
})
