import { describe, expect, it } from 'vitest'
import { encodeRowVersion } from '../../src/wire/row-version.ts'
import type { ReturnState, SaveCommand, SaveResult, WireRow, WriteOutcome } from '../../src/store/model/types.ts'
import { APP, fixedDeps, LINES, newStore, recordingKeeper, row, rows, snapshot } from './support.ts'

/** NOW as the DateTime number the store stamps (the default fixture's zone is UTC). */
const NOW_STAMP = 20250203040506

function master(r: WireRow, details: Array<{ relationKey: string; rows: WireRow[] }> = []): SaveCommand['masters'][number] {
  return { row: r, details }
}

function save(store: ReturnType<typeof newStore>, masters: SaveCommand['masters'], userId = 1): WriteOutcome<SaveResult> {
  return store.save({ applicationId: APP, userId, masters })
}

function okResult(outcome: WriteOutcome<SaveResult>) {
  if (!outcome.ok) throw new Error(`save failed: ${JSON.stringify(outcome.returnStates)}`)
  return outcome.result
}

function codes(outcome: WriteOutcome<SaveResult>): Array<ReturnState['code']> {
  if (outcome.ok) throw new Error('save unexpectedly succeeded')
  return outcome.returnStates.map((s) => s.code)
}

describe('save: create', () => {
  it('creates a master with details from temporary Ids and reports the new keys', () => {
    const store = newStore()
    const before = store.currentRowVersion()
    const result = okResult(
      save(
        store,
        [
          master({ Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Zeta Foods', Amount: 12.5, Status: 'New' }, [
            {
              relationKey: LINES,
              rows: [
                { Id: -1, IdRow: null, TIMESTAMP: null, Product: 'Crate', Quantity: 2, UnitPrice: 5 },
                { Id: -2, IdRow: null, TIMESTAMP: null, Product: 'Lid', Quantity: 5, UnitPrice: 0.5 },
              ],
            },
          ]),
        ],
        1,
      ),
    )
    const { primaryKeys, ...counted } = result
    expect(counted).toEqual({ created: 3, updated: 0, identityField: 'IdRow', storageName: 'Orders', firstMasterId: 26 })
    expect(primaryKeys.toObject()).toEqual({
      '-1': { newKeys: { Id: '26', IdRow: '1026', 'OrderLines[0]': '51', 'OrderLines:-1': '51', 'OrderLines[1]': '52', 'OrderLines:-2': '52' } },
    })
    expect(row(store, 26)).toEqual({
      Id: 26,
      IdRow: 1026,
      Customer: 'Zeta Foods',
      Amount: 12.5,
      Status: 'New',
      CT_ATTACHMENTS: null,
      DT_CREATION: NOW_STAMP,
      DT_LAST_UPDATE: NOW_STAMP,
      ROW_ORDER: 26,
      TIMESTAMP: before + 1,
      USER_ID_CREATION: 1,
      USER_ID_LAST_UPDATE: 1,
    })
    expect(row(store, 51, LINES)).toMatchObject({ MasterId: 26, Product: 'Crate', IdRow: 5051, ROW_ORDER: 51, TIMESTAMP: before + 2 })
    expect(row(store, 52, LINES)).toMatchObject({ MasterId: 26, Product: 'Lid', IdRow: 5052, TIMESTAMP: before + 3 })
    expect(store.currentRowVersion()).toBe(before + 3)
  })

  it('numbers several new masters in request order; absent fields are null', () => {
    const store = newStore()
    const result = okResult(save(store, [master({ Id: -1, Customer: 'A' }), master({ Id: -2 })]))
    expect(result.primaryKeys.toObject()).toEqual({ '-1': { newKeys: { Id: '26', IdRow: '1026' } }, '-2': { newKeys: { Id: '27', IdRow: '1027' } } })
    expect(row(store, 27)).toMatchObject({ Customer: null, Amount: null, Status: null })
    expect(rows(store, '$filter=Id ge 26').map((r) => r.Id)).toEqual([26, 27])
  })

  it('keeps an explicit Identity value, and the sequence skips values rows already hold', () => {
    const store = newStore()
    okResult(save(store, [master({ Id: -1, IdRow: 1027, Customer: 'Explicit' })]))
    okResult(save(store, [master({ Id: -1, Customer: 'Auto 1' }), master({ Id: -2, Customer: 'Auto 2' })]))
    expect(row(store, 26).IdRow).toBe(1027)
    expect(row(store, 27).IdRow).toBe(1026)
    expect(row(store, 28).IdRow).toBe(1028)
  })

  it('refuses an Identity value another row holds (DUPLICATE_KEY) and writes nothing', () => {
    const store = newStore()
    const before = snapshot(store)
    const outcome = save(store, [master({ Id: -1, Customer: 'Fine' }), master({ Id: -2, IdRow: 1005, Customer: 'Clash' })])
    expect(outcome).toEqual({
      ok: false,
      returnStates: [
        { code: 'DUPLICATE_KEY', message: 'new master row -2: IdRow 1005 is already taken in storage Orders', relationKey: null, id: -2, field: 'IdRow' },
      ],
    })
    expect(snapshot(store)).toBe(before)
    // The failed plan did not consume Ids or Identity values either.
    expect(okResult(save(store, [master({ Id: -1 })])).primaryKeys.toObject()['-1']?.newKeys).toEqual({ Id: '26', IdRow: '1026' })
  })

  it('refuses the same explicit Identity value twice in one request', () => {
    const store = newStore()
    expect(codes(save(store, [master({ Id: -1, IdRow: 7777 }), master({ Id: -2, IdRow: 7777 })]))).toEqual(['DUPLICATE_KEY'])
  })

  it('hands out Identity values in a block within one save: a value sent after the sequence gave it out is taken, one sent ahead of it is skipped', () => {
    const store = newStore()
    // 1026 goes to the first new row by the sequence; the second sends it explicitly.
    expect(codes(save(store, [master({ Id: -1 }), master({ Id: -2, IdRow: 1026 })]))).toEqual(['DUPLICATE_KEY'])
    // An existing row cannot take a value the sequence gave a new row of the same save either.
    expect(codes(save(store, [master({ Id: -1 }), master({ Id: 3, TIMESTAMP: row(store, 3).TIMESTAMP, IdRow: 1026 })]))).toEqual(['DUPLICATE_KEY'])
    // Sent ahead of the sequence within the save: the sequence steps over it.
    okResult(save(store, [master({ Id: -1, IdRow: 1027 }), master({ Id: -2 }), master({ Id: -3 })]))
    expect([row(store, 26).IdRow, row(store, 27).IdRow, row(store, 28).IdRow]).toEqual([1027, 1026, 1028])
  })

  it('refuses a temporary Id used twice among the masters (DUPLICATE_TEMPORARY_ID)', () => {
    const store = newStore()
    const outcome = save(store, [master({ Id: -1 }), master({ Id: -1 })])
    expect(outcome).toMatchObject({
      ok: false,
      returnStates: [{ code: 'DUPLICATE_TEMPORARY_ID', id: -1, relationKey: null, message: 'temporary Id -1 is used twice among the masters of this request' }],
    })
  })

  it('allows detail temporary Id -1 under two masters (keys are per master)', () => {
    const store = newStore()
    const line = { Id: -1, Product: 'P', Quantity: 1, UnitPrice: 1 }
    const ok = okResult(save(store, [master({ Id: -1 }, [{ relationKey: LINES, rows: [line] }]), master({ Id: -2 }, [{ relationKey: LINES, rows: [line] }])]))
    expect(ok.primaryKeys.toObject()).toEqual({
      '-1': { newKeys: { Id: '26', IdRow: '1026', 'OrderLines[0]': '51', 'OrderLines:-1': '51' } },
      '-2': { newKeys: { Id: '27', IdRow: '1027', 'OrderLines[0]': '52', 'OrderLines:-1': '52' } },
    })
  })

  it('creates every new detail row of one master sent with Id -1, as the description shows them, keyed by position', () => {
    const store = newStore()
    const line = (product: string) => ({ Id: -1, IdRow: null, TIMESTAMP: null, Product: product, Quantity: 1, UnitPrice: 1 })
    const ok = okResult(save(store, [master({ Id: -1 }, [{ relationKey: LINES, rows: [line('A'), line('B'), line('C')] }])]))
    expect(ok.created).toBe(4)
    // `OrderLines:-1` would be ambiguous, so only the positions name the new rows.
    expect(ok.primaryKeys.toObject()).toEqual({
      '-1': { newKeys: { Id: '26', IdRow: '1026', 'OrderLines[0]': '51', 'OrderLines[1]': '52', 'OrderLines[2]': '53' } },
    })
    expect([51, 52, 53].map((id) => row(store, id, LINES).Product)).toEqual(['A', 'B', 'C'])
  })

  it("counts positions among all the master's rows of a relation key, updated rows included", () => {
    const store = newStore()
    const existing = row(store, 1, LINES)
    const ok = okResult(
      save(store, [
        master({ Id: 1, TIMESTAMP: row(store, 1).TIMESTAMP }, [
          {
            relationKey: LINES,
            rows: [
              { Id: 1, TIMESTAMP: existing.TIMESTAMP, Quantity: 3 },
              { Id: -1, Product: 'New' },
            ],
          },
        ]),
      ]),
    )
    expect(ok.primaryKeys.toObject()).toEqual({ '1': { newKeys: { 'OrderLines[1]': '51', 'OrderLines:-1': '51' } } })
  })

  it('still refuses two new masters with the same temporary Id', () => {
    expect(codes(save(newStore(), [master({ Id: -1 }), master({ Id: -1 })]))).toEqual(['DUPLICATE_TEMPORARY_ID'])
  })

  it('requires TIMESTAMP null on creation', () => {
    expect(save(newStore(), [master({ Id: -1, TIMESTAMP: 5 })])).toMatchObject({ ok: false, returnStates: [{ code: 'INVALID_VALUE', field: 'TIMESTAMP' }] })
  })

  it("sets a new detail row's master field to the master's real Id, whatever was sent", () => {
    const store = newStore()
    okResult(save(store, [master({ Id: -1 }, [{ relationKey: LINES, rows: [{ Id: -1, MasterId: -1, Product: 'X' }] }])]))
    expect(row(store, 51, LINES).MasterId).toBe(26)
  })
})

describe('save: update', () => {
  it('changes only the fields sent, plus the update stamps and a new TIMESTAMP', () => {
    const deps = fixedDeps()
    const store = newStore(undefined, deps)
    const old = { ...row(store, 3) }
    deps.advance(60_000)
    const result = okResult(save(store, [master({ Id: 3, TIMESTAMP: old.TIMESTAMP, Status: 'Shipped' })], 2))
    expect(result).toMatchObject({ created: 0, updated: 1, firstMasterId: 3 })
    expect(result.primaryKeys.toObject()).toEqual({})
    expect(row(store, 3)).toEqual({
      ...old,
      Status: 'Shipped',
      DT_LAST_UPDATE: 20250203040606,
      USER_ID_LAST_UPDATE: 2,
      TIMESTAMP: store.currentRowVersion(),
    })
    expect(row(store, 3).TIMESTAMP).toBeGreaterThan(old.TIMESTAMP)
  })

  it('accepts the TIMESTAMP as the base64 text read results carry', () => {
    const store = newStore()
    okResult(save(store, [master({ Id: 4, TIMESTAMP: encodeRowVersion(row(store, 4).TIMESTAMP), Amount: 1 })]))
    expect(row(store, 4).Amount).toBe(1)
  })

  it('refuses a stale TIMESTAMP (CONCURRENCY) and writes nothing of the request', () => {
    const store = newStore()
    const stale = row(store, 5).TIMESTAMP
    okResult(save(store, [master({ Id: 5, TIMESTAMP: stale, Status: 'Open' })]))
    const before = snapshot(store)
    const outcome = save(store, [
      master({ Id: 6, TIMESTAMP: row(store, 6).TIMESTAMP, Status: 'Closed' }),
      master({ Id: 5, TIMESTAMP: stale, Status: 'Closed' }),
      master({ Id: -1, Customer: 'New' }),
    ])
    expect(outcome).toMatchObject({ ok: false, returnStates: [{ code: 'CONCURRENCY', id: 5, relationKey: null, field: 'TIMESTAMP' }] })
    expect(snapshot(store)).toBe(before)
  })

  it.each<[string, WireRow, ReturnState['code'], string]>([
    ['an unknown Id', { Id: 999, TIMESTAMP: 1, Status: 'x' }, 'NOT_FOUND', 'master row 999 does not exist in storage Orders'],
    ['no TIMESTAMP', { Id: 2, Status: 'x' }, 'CONCURRENCY', 'TIMESTAMP null matches no row version'],
    ['TIMESTAMP null', { Id: 2, TIMESTAMP: null, Status: 'x' }, 'CONCURRENCY', 'TIMESTAMP null matches no row version'],
    ['a TIMESTAMP that is no version', { Id: 2, TIMESTAMP: 'yesterday', Status: 'x' }, 'INVALID_VALUE', 'TIMESTAMP must be the row version'],
    ['a taken Identity value', { Id: 2, TIMESTAMP: 'CURRENT', IdRow: 1001 }, 'DUPLICATE_KEY', 'IdRow 1001 is already taken'],
    ['Id 0', { Id: 0 }, 'INVALID_VALUE', 'Id must be a negative temporary Id or an existing Id'],
  ])('refuses %s', (_label, sent, code, message) => {
    const store = newStore()
    const r = sent.TIMESTAMP === 'CURRENT' ? { ...sent, TIMESTAMP: row(store, 2).TIMESTAMP } : sent
    const outcome = save(store, [master(r)])
    expect(outcome.ok).toBe(false)
    const state = (outcome as { returnStates: ReturnState[] }).returnStates[0]
    expect(state?.code).toBe(code)
    expect(state?.message).toContain(message)
  })

  it('ignores system fields other than Id, TIMESTAMP and the Identity field', () => {
    const store = newStore()
    const old = { ...row(store, 2) }
    okResult(
      save(store, [
        master({ Id: 2, TIMESTAMP: old.TIMESTAMP, DT_CREATION: 19990101000000, ROW_ORDER: 99, CT_ATTACHMENTS: 7, USER_ID_CREATION: 9, Status: 'Closed' }),
      ]),
    )
    expect(row(store, 2)).toMatchObject({ DT_CREATION: old.DT_CREATION, ROW_ORDER: old.ROW_ORDER, CT_ATTACHMENTS: null, USER_ID_CREATION: 1, Status: 'Closed' })
  })

  it('reports the same existing row sent twice as DUPLICATE_ROW', () => {
    const store = newStore()
    const ts = row(store, 2).TIMESTAMP
    expect(codes(save(store, [master({ Id: 2, TIMESTAMP: ts, Status: 'a' }), master({ Id: 2, TIMESTAMP: ts, Status: 'b' })]))).toContain('DUPLICATE_ROW')
  })
})

describe('save: field checks', () => {
  it.each<[string, unknown]>([
    ['Amount', 'abc'],
    ['Amount', '12.5'],
    ['Customer', 5],
    ['Status', true],
    ['Amount', { value: 1 }],
  ])('%s = %j is INVALID_VALUE', (field, value) => {
    const outcome = save(newStore(), [master({ Id: -1, [field]: value })])
    expect(outcome).toMatchObject({ ok: false, returnStates: [{ code: 'INVALID_VALUE', field, id: -1 }] })
  })

  it.each<[string, unknown]>([
    ['Quantity', 1.5],
    ['Quantity', '3'],
    ['UnitPrice', 'cheap'],
  ])('detail %s = %j is INVALID_VALUE', (field, value) => {
    const outcome = save(newStore(), [master({ Id: -1 }, [{ relationKey: LINES, rows: [{ Id: -1, [field]: value }] }])])
    expect(outcome).toMatchObject({ ok: false, returnStates: [{ code: 'INVALID_VALUE', field, relationKey: LINES }] })
  })

  it('accepts null for any user field', () => {
    const store = newStore()
    okResult(save(store, [master({ Id: 2, TIMESTAMP: row(store, 2).TIMESTAMP, Customer: null, Amount: null })]))
    expect(row(store, 2)).toMatchObject({ Customer: null, Amount: null })
  })
})

describe('save: details', () => {
  it('adds detail rows to an existing master without touching the master', () => {
    const store = newStore()
    const old = { ...row(store, 3) }
    const result = okResult(
      save(store, [
        master({ Id: 3, TIMESTAMP: old.TIMESTAMP }, [
          { relationKey: LINES, rows: [{ Id: -1, IdRow: null, TIMESTAMP: null, Product: 'Extra', Quantity: 1, UnitPrice: 2 }] },
        ]),
      ]),
    )
    expect(result).toMatchObject({ created: 1, updated: 0, firstMasterId: 3 })
    expect(result.primaryKeys.toObject()).toEqual({ '3': { newKeys: { 'OrderLines[0]': '51', 'OrderLines:-1': '51' } } })
    expect(row(store, 3)).toEqual(old)
    expect(rows(store, '$filter=MasterId eq 3', LINES).map((r) => r.Id)).toEqual([5, 6, 51])
  })

  it('adds details to an existing master sent with its Id only', () => {
    const store = newStore()
    okResult(save(store, [master({ Id: 3 }, [{ relationKey: LINES, rows: [{ Id: -1, Product: 'Extra' }] }])]))
    expect(row(store, 51, LINES).MasterId).toBe(3)
  })

  it('still checks the TIMESTAMP of a master sent only to carry details', () => {
    const store = newStore()
    expect(codes(save(store, [master({ Id: 3, TIMESTAMP: 1 }, [{ relationKey: LINES, rows: [{ Id: -1 }] }])]))).toEqual(['CONCURRENCY'])
  })

  it('updates a detail row of the master it belongs to, and refuses one of another master', () => {
    const store = newStore()
    const line = row(store, 5, LINES)
    okResult(save(store, [master({ Id: 3 }, [{ relationKey: LINES, rows: [{ Id: 5, TIMESTAMP: line.TIMESTAMP, Quantity: 99 }] }])]))
    expect(row(store, 5, LINES).Quantity).toBe(99)
    const other = row(store, 7, LINES)
    const outcome = save(store, [master({ Id: 3 }, [{ relationKey: LINES, rows: [{ Id: 7, TIMESTAMP: other.TIMESTAMP, Quantity: 1 }] }])])
    expect(outcome).toMatchObject({
      ok: false,
      returnStates: [{ code: 'NOT_FOUND', id: 7, relationKey: LINES, message: 'OrderLines row 7 does not belong to master 3' }],
    })
  })

  it('refuses moving a detail row to another master', () => {
    const store = newStore()
    const line = row(store, 5, LINES)
    expect(save(store, [master({ Id: 3 }, [{ relationKey: LINES, rows: [{ Id: 5, TIMESTAMP: line.TIMESTAMP, MasterId: 4 }] }])])).toMatchObject({
      ok: false,
      returnStates: [{ code: 'INVALID_VALUE', field: 'MasterId' }],
    })
  })

  it('refuses an unknown relation key', () => {
    expect(save(newStore(), [master({ Id: -1 }, [{ relationKey: 'Payments', rows: [{ Id: -1 }] }])])).toMatchObject({
      ok: false,
      returnStates: [{ code: 'UNKNOWN_RELATION_KEY', relationKey: 'Payments', id: -1 }],
    })
  })
})

describe('save: every problem, nothing written', () => {
  it('reports all problems of a request, not only the first', () => {
    const store = newStore()
    const before = snapshot(store)
    const outcome = save(store, [
      master({ Id: -1, Colour: 'red', Amount: 'lots' }),
      master({ Id: -1 }),
      master({ Id: 998, TIMESTAMP: 1 }),
      master({ Id: 2, TIMESTAMP: 1, Status: 'x' }),
      master({ Id: -3, IdRow: 1001 }, [
        { relationKey: 'Nope', rows: [] },
        { relationKey: LINES, rows: [{ Id: -1, Size: 3 }] },
      ]),
    ])
    expect(codes(outcome)).toEqual([
      'UNKNOWN_FIELD',
      'INVALID_VALUE',
      'DUPLICATE_TEMPORARY_ID',
      'NOT_FOUND',
      'CONCURRENCY',
      'DUPLICATE_KEY',
      'UNKNOWN_RELATION_KEY',
      'UNKNOWN_FIELD',
    ])
    expect((outcome as { returnStates: ReturnState[] }).returnStates[0]).toEqual({
      code: 'UNKNOWN_FIELD',
      message: 'master row -1: Colour is not a field of storage Orders',
      relationKey: null,
      id: -1,
      field: 'Colour',
    })
    expect(snapshot(store)).toBe(before)
  })

  it('refuses an unknown application', () => {
    expect(newStore().save({ applicationId: 'nope', userId: 1, masters: [] })).toMatchObject({ ok: false, returnStates: [{ code: 'NOT_FOUND' }] })
  })
})

describe('a save planned, then applied', () => {
  it('plans without writing; applying writes', () => {
    const store = newStore()
    const before = snapshot(store)
    const cmd = { applicationId: APP, userId: 1, masters: [master({ Id: -1, Customer: 'Planned' })] }
    // The commit listener hears of the planned save before it is applied; one that throws stops it.
    store.keep(
      recordingKeeper(() => {
        expect(snapshot(store)).toBe(before)
        throw new Error('refused')
      }),
    )
    expect(() => store.save(cmd)).toThrow('refused')
    expect(snapshot(store)).toBe(before)
    store.keep(undefined)
    expect(store.save(cmd).ok).toBe(true)
    expect(row(store, 26).Customer).toBe('Planned')
  })

  it('refuses to apply a plan made before another write (a programming error, thrown)', () => {
    const store = newStore()
    // A listener that saves while it is told of a save: the outer save's plan is then out of date.
    let inner = false
    store.keep(
      recordingKeeper(() => {
        if (inner) return
        inner = true
        store.save({ applicationId: APP, userId: 1, masters: [master({ Id: -1 })] })
      }),
    )
    expect(() => store.save({ applicationId: APP, userId: 1, masters: [master({ Id: -1 })] })).toThrow(/planned at store generation/)
  })

  it('an empty save succeeds and changes nothing', () => {
    const store = newStore()
    const before = snapshot(store)
    expect(store.save({ applicationId: APP, userId: 1, masters: [] })).toMatchObject({ ok: true, result: { created: 0, updated: 0, firstMasterId: null } })
    expect(snapshot(store)).toBe(before)
  })
})
