import { describe, expect, it } from 'vitest'
import type { DeleteCommand } from '../../src/store/model/types.ts'
import { APP, LINES, newStore, q, recordingKeeper, row, rows, snapshot } from './support.ts'

type Store = ReturnType<typeof newStore>

function del(store: Store, groups: DeleteCommand['groups']) {
  return store.delete({ applicationId: APP, groups })
}

function ref(store: Store, id: number, relationKey: string | null = null) {
  return { Id: id, TIMESTAMP: row(store, id, relationKey).TIMESTAMP }
}

describe('delete', () => {
  it('deletes a master and, with it, its detail rows and attachments', () => {
    const store = newStore()
    const outcome = del(store, [{ relationKey: null, rows: [ref(store, 1)] }])
    expect(outcome).toMatchObject({ ok: true, result: { deleted: 1, cascaded: 2 } })
    expect(store.getRow(APP, null, 1)).toBeNull()
    expect(rows(store, '$filter=MasterId eq 1', LINES)).toEqual([])
    expect(store.countRows(APP, null, q(''))).toEqual({ count: 24 })
    expect(store.countRows(APP, LINES, q(''))).toEqual({ count: 48 })
    expect(store.getAttachment(APP, null, 1)).toBeUndefined()
    expect(store.getAttachment(APP, LINES, 5)).toBeUndefined()
  })

  it('deletes detail rows on their own, and a master with detail rows in one body', () => {
    const store = newStore()
    const outcome = del(store, [
      { relationKey: LINES, rows: [ref(store, 3, LINES), ref(store, 7, LINES)] },
      { relationKey: null, rows: [ref(store, 2)] },
    ])
    // Line 3 belongs to master 2: named in the request, it counts as deleted, not cascaded.
    expect(outcome).toMatchObject({ ok: true, result: { deleted: 3, cascaded: 1 } })
    expect(rows(store, '$filter=MasterId eq 2 or MasterId eq 4', LINES).map((r) => r.Id)).toEqual([8])
  })

  it('refuses a row named twice for that reason, its TIMESTAMP current, and deletes nothing', () => {
    const store = newStore()
    const r = ref(store, 9)
    expect(del(store, [{ relationKey: null, rows: [r, r] }])).toEqual({
      ok: false,
      returnStates: [{ code: 'DUPLICATE_ROW', message: 'master row 9 is named more than once in this request', relationKey: null, id: 9 }],
    })
    expect(store.getRow(APP, null, 9)).not.toBeNull()
  })

  it('counts in `deleted` exactly the rows named, not the detail rows deleted with their master', () => {
    const store = newStore()
    const outcome = del(store, [
      { relationKey: null, rows: [ref(store, 3), ref(store, 4)] },
      { relationKey: LINES, rows: [ref(store, 1, LINES)] },
    ])
    expect(outcome).toMatchObject({ ok: true, result: { deleted: 3, cascaded: 4 } })
  })

  it.each<[string, (s: Store) => DeleteCommand['groups'], string, string]>([
    [
      'a stale TIMESTAMP',
      (s) => [{ relationKey: null, rows: [{ Id: 2, TIMESTAMP: row(s, 2).TIMESTAMP - 1 }] }],
      'CONCURRENCY',
      'master row 2 was changed by someone else',
    ],
    ['an unknown Id', () => [{ relationKey: null, rows: [{ Id: 404, TIMESTAMP: 1 }] }], 'NOT_FOUND', 'master row 404 does not exist in storage Orders'],
    ['an unknown detail Id', () => [{ relationKey: LINES, rows: [{ Id: 404, TIMESTAMP: 1 }] }], 'NOT_FOUND', 'OrderLines row 404 does not exist'],
    ['a null TIMESTAMP', () => [{ relationKey: null, rows: [{ Id: 2, TIMESTAMP: null }] }], 'CONCURRENCY', 'TIMESTAMP null matches no row version'],
    ['an unknown relation key', () => [{ relationKey: 'Payments', rows: [{ Id: 1, TIMESTAMP: 1 }] }], 'UNKNOWN_RELATION_KEY', 'relation key Payments'],
  ])('refuses %s and deletes nothing (atomic)', (_label, groups, code, message) => {
    const store = newStore()
    const before = snapshot(store)
    const outcome = del(store, [{ relationKey: null, rows: [ref(store, 5)] }, ...groups(store)])
    expect(outcome.ok).toBe(false)
    expect(outcome).toMatchObject({ returnStates: [{ code }] })
    expect((outcome as { returnStates: Array<{ message: string }> }).returnStates[0]?.message).toContain(message)
    expect(snapshot(store)).toBe(before)
  })

  it('reports every problem', () => {
    const store = newStore()
    const outcome = del(store, [
      {
        relationKey: null,
        rows: [
          { Id: 404, TIMESTAMP: 1 },
          { Id: 2, TIMESTAMP: 1 },
        ],
      },
    ])
    expect(outcome).toMatchObject({
      ok: false,
      returnStates: [
        { code: 'NOT_FOUND', id: 404 },
        { code: 'CONCURRENCY', id: 2 },
      ],
    })
  })

  it('keeps deleted Ids and Identity values from being handed out again', () => {
    const store = newStore()
    del(store, [{ relationKey: null, rows: [ref(store, 25)] }])
    const saved = store.save({ applicationId: APP, userId: 1, masters: [{ row: { Id: -1 }, details: [] }] })
    expect(saved.ok && saved.result.primaryKeys.toObject()).toEqual({ '-1': { newKeys: { Id: '26', IdRow: '1026' } } })
  })

  it('plans without deleting; applying deletes', () => {
    const store = newStore()
    const cmd = { applicationId: APP, groups: [{ relationKey: null, rows: [ref(store, 3)] }] }
    // The commit listener hears of the planned delete before it is applied; one that throws stops it.
    store.keep(
      recordingKeeper(() => {
        expect(store.getRow(APP, null, 3)).not.toBeNull()
        throw new Error('refused')
      }),
    )
    expect(() => store.delete(cmd)).toThrow('refused')
    expect(store.getRow(APP, null, 3)).not.toBeNull()
    store.keep(undefined)
    expect(store.delete(cmd).ok).toBe(true)
    expect(store.getRow(APP, null, 3)).toBeNull()
  })
})
