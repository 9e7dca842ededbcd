import { describe, expect, it } from 'vitest'
import { APP, DETAIL_STORAGE, MASTER_STORAGE, LINES, newStore, row } from './support.ts'

describe('reserveIdentities', () => {
  it("returns consecutive values from the storage's sequence", () => {
    const store = newStore()
    expect(store.reserveIdentities(APP, MASTER_STORAGE, 'IdRow', 3)).toEqual([1026, 1027, 1028])
    expect(store.reserveIdentities(APP, MASTER_STORAGE, 'IdRow', 2)).toEqual([1029, 1030])
    expect(store.reserveIdentities(APP, DETAIL_STORAGE, 'IdRow', 1)).toEqual([5051])
  })

  it('never lets a later save hand out a reserved value automatically', () => {
    const store = newStore()
    const reserved = store.reserveIdentities(APP, MASTER_STORAGE, 'IdRow', 5) as number[]
    const outcome = store.save({
      applicationId: APP,
      userId: 1,
      masters: [
        { row: { Id: -1 }, details: [] },
        { row: { Id: -2 }, details: [] },
      ],
    })
    expect(outcome.ok).toBe(true)
    expect([row(store, 26).IdRow, row(store, 27).IdRow]).toEqual([1031, 1032])
    for (const value of reserved) expect([row(store, 26).IdRow, row(store, 27).IdRow]).not.toContain(value)
  })

  it('lets the client use a reserved value explicitly (what reserving is for)', () => {
    const store = newStore()
    const [value] = store.reserveIdentities(APP, DETAIL_STORAGE, 'IdRow', 1) as number[]
    const outcome = store.save({
      applicationId: APP,
      userId: 1,
      masters: [{ row: { Id: 1 }, details: [{ relationKey: LINES, rows: [{ Id: -1, IdRow: value as number }] }] }],
    })
    expect(outcome.ok).toBe(true)
    expect(row(store, 51, LINES).IdRow).toBe(value)
  })

  it('skips values rows already hold, keeping the run consecutive', () => {
    const store = newStore()
    store.save({ applicationId: APP, userId: 1, masters: [{ row: { Id: -1, IdRow: 1027 }, details: [] }] })
    expect(store.reserveIdentities(APP, MASTER_STORAGE, 'IdRow', 2)).toEqual([1028, 1029])
  })

  it.each<[string, string, number, string, string]>([
    [
      '00000000-0000-4000-8000-000000000000',
      'IdRow',
      1,
      'UNKNOWN_STORAGE',
      'storage 00000000-0000-4000-8000-000000000000 is not a storage of application Orders',
    ],
    [MASTER_STORAGE, 'Customer', 1, 'UNKNOWN_STORAGE', 'Customer is not the Identity field of storage Orders (it is IdRow)'],
    [MASTER_STORAGE, 'IdRow', 0, 'INVALID_COUNT', 'count must be an integer from 1 to 10000, got 0'],
    [MASTER_STORAGE, 'IdRow', 2.5, 'INVALID_COUNT', 'count must be an integer'],
    [MASTER_STORAGE, 'IdRow', 10_001, 'INVALID_COUNT', 'count must be an integer'],
  ])('storage %s field %s count %d -> %s', (storage, field, count, error, message) => {
    const result = newStore().reserveIdentities(APP, storage, field, count)
    expect(result).toMatchObject({ error })
    expect((result as { message: string }).message).toContain(message)
  })

  it('refuses an unknown application', () => {
    expect(newStore().reserveIdentities('nope', MASTER_STORAGE, 'IdRow', 1)).toMatchObject({ error: 'UNKNOWN_APPLICATION' })
  })
})
