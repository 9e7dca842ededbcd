/**
 * The proxy's findings as data (src/commands/proxy/findings.ts): pointers with array positions as
 * `*` (and only those), values read at a pointer, examples redacted and cut short, and the tally:
 * one finding per fault however many exchanges show it, kept apart by what makes it another fault,
 * bounded in number, listed in a stable order and split by --ignore with each entry's reason. The
 * proxy's other tests drive the same tally through a running proxy.
 */
import { describe, expect, it } from 'vitest'
import { exampleOf, FindingTally, generalPointer, MAX_FINDINGS, valueAt, type ExchangeKey, type Observation } from '../../src/commands/proxy/findings.ts'

describe('generalPointer', () => {
  const page = { Rows: [{ Row: { Amount: 1 }, Details: [{ Rows: [{ Qty: 1 }] }] }], 'a/b': [{ x: 1 }], '~k': [{ y: 1 }] }

  it('writes the positions of arrays as *, at any depth', () => {
    expect(generalPointer('/body/Rows/0/Row/Amount', page, '/body')).toBe('/body/Rows/*/Row/Amount')
    expect(generalPointer('/body/Rows/0/Details/0/Rows/0/Qty', page, '/body')).toBe('/body/Rows/*/Details/*/Rows/*/Qty')
  })

  it('keeps a number that names a member, a position past what it can read, and a pointer outside the prefix as they are', () => {
    const keys = { PrimaryKeyData: { '-1': { newKeys: { Id: '5' } }, '12': 'x' } }
    expect(generalPointer('/body/PrimaryKeyData/-1/newKeys/Id', keys, '/body')).toBe('/body/PrimaryKeyData/-1/newKeys/Id')
    expect(generalPointer('/body/PrimaryKeyData/12', keys, '/body')).toBe('/body/PrimaryKeyData/12')
    expect(generalPointer('/headers/x', page, '/body')).toBe('/headers/x')
    // Only a whole number indexes an array.
    expect(generalPointer('/body/Rows/0a', page, '/body')).toBe('/body/Rows/0a')
    expect(generalPointer('/body/Rows/a0', page, '/body')).toBe('/body/Rows/a0')
    expect(generalPointer('/body/Rows/10', page, '/body')).toBe('/body/Rows/*')
  })

  it('reads escaped member names (~1 for /, ~0 for ~) to go on below them', () => {
    expect(generalPointer('/body/a~1b/0/x', page, '/body')).toBe('/body/a~1b/*/x')
    expect(generalPointer('/body/~0k/0/y', page, '/body')).toBe('/body/~0k/*/y')
  })
})

describe('valueAt', () => {
  const body = { 'a/b': { '~c': [10, 20] }, n: null }

  it('reads the value at a pointer below the prefix, escaped names and array positions included', () => {
    expect(valueAt(body, '/body/a~1b/~0c/1', '/body')).toBe(20)
    expect(valueAt(body, '/body/a~1b', '/body')).toEqual({ '~c': [10, 20] })
    expect(valueAt(body, '/body', '/body')).toBe(body)
  })

  it('is undefined outside the prefix, below a value that holds nothing, and where nothing is', () => {
    expect(valueAt(body, '/headers/a~1b', '/body')).toBeUndefined()
    expect(valueAt(body, '/body/n/x', '/body')).toBeUndefined()
    expect(valueAt(body, '/body/a~1b/~0c/1/deeper', '/body')).toBeUndefined()
    expect(valueAt(body, '/body/missing', '/body')).toBeUndefined()
  })
})

describe('exampleOf', () => {
  it('redacts a secret member at the pointer unless it is empty, and secrets inside a value', () => {
    expect(exampleOf('hunter2', '/body/password')).toBe('[redacted]')
    expect(exampleOf('', '/body/password')).toBe('')
    expect(exampleOf(null, '/body/password')).toBeNull()
    expect(exampleOf({ user: 'a', Password: 'p' }, '/body')).toEqual({ user: 'a', Password: '[redacted]' })
    expect(exampleOf(undefined, '/body/x')).toBeUndefined()
  })

  it('keeps a value of up to 240 characters as JSON whole, and cuts a longer one, saying how long it was', () => {
    const fits = 'a'.repeat(238)
    expect(exampleOf(fits, '/body/x')).toBe(fits)
    const long = 'b'.repeat(239)
    expect(exampleOf(long, '/body/x')).toBe(`"${'b'.repeat(239)}… (241 characters)`)
  })
})

describe('FindingTally', () => {
  const key = (fields: Partial<ExchangeKey> = {}): ExchangeKey => ({
    operationId: 'queryItems',
    method: 'POST',
    path: '/ExplorerApi/api/items',
    status: 200,
    release: '3.0.19',
    beforeSignIn: false,
    ...fields,
  })
  const seen = (fields: Partial<Observation> = {}): Observation => ({
    side: 'answer',
    severity: 'violation',
    pointer: '/body/*/Id',
    message: 'must be integer',
    ...fields,
  })

  it('counts one fault once however many exchanges show it, with the first example and the keys it counted', () => {
    const tally = new FindingTally()
    const [first] = tally.add(key(), [seen({ example: 'one' })])
    const [again] = tally.add(key({ status: 200 }), [seen({ example: 'two' })])
    expect(again).toBe(first)
    expect(tally.get(first as string)).toEqual({
      side: 'answer',
      severity: 'violation',
      operationId: 'queryItems',
      method: 'POST',
      path: '/ExplorerApi/api/items',
      status: 200,
      pointer: '/body/*/Id',
      message: 'must be integer',
      count: 2,
      example: 'one',
      release: '3.0.19',
    })
  })

  it('keeps apart what makes another fault: the answer’s status (not the request’s), the release, before the sign-in, the severity', () => {
    const tally = new FindingTally()
    tally.add(key(), [seen(), seen({ side: 'request' })])
    tally.add(key({ status: 500 }), [seen(), seen({ side: 'request' })])
    tally.add(key({ release: '2.9' }), [seen()])
    tally.add(key({ beforeSignIn: true }), [seen()])
    tally.add(key(), [seen({ severity: 'warning' })])
    const { reported } = tally.lists()
    expect(reported.map((f) => `${f.side} ${f.severity} ${f.status} ${f.release}${f.beforeSignIn === true ? ' before' : ''} ×${f.count}`)).toEqual([
      'request violation 200 3.0.19 ×2',
      'answer violation 200 3.0.19 ×1',
      'answer violation 500 3.0.19 ×1',
      'answer violation 200 2.9 ×1',
      'answer violation 200 3.0.19 before ×1',
      'answer warning 200 3.0.19 ×1',
    ])
    expect('example' in (reported[0] as object)).toBe(false)
  })

  it('cuts a message past 300 characters', () => {
    const tally = new FindingTally()
    const [long] = tally.add(key(), [seen({ message: 'm'.repeat(301) })])
    const [fits] = tally.add(key(), [seen({ message: 'n'.repeat(300) })])
    expect(tally.get(long as string)?.message).toBe(`${'m'.repeat(300)}…`)
    expect(tally.get(fits as string)?.message).toBe('n'.repeat(300))
  })

  it(`keeps ${MAX_FINDINGS} distinct findings, then counts the others in overflow, still counting the known ones`, () => {
    const tally = new FindingTally()
    for (let i = 0; i < MAX_FINDINGS; i++) tally.add(key(), [seen({ pointer: `/body/${i}` })])
    expect(tally.overflow).toBe(0)
    expect(tally.add(key(), [seen({ pointer: '/body/new' })])).toEqual([])
    expect(tally.overflow).toBe(1)
    const [known] = tally.add(key(), [seen({ pointer: '/body/0' })])
    expect(tally.get(known as string)?.count).toBe(2)
    expect(tally.lists().reported).toHaveLength(MAX_FINDINGS)
  })

  it('lists requests before answers, violations before warnings, then by operation (none last), pointer and message', () => {
    const tally = new FindingTally()
    tally.add(key({ operationId: null }), [seen({ pointer: '/a' })])
    tally.add(key({ operationId: 'saveItems' }), [seen({ pointer: '/b' }), seen({ pointer: '/a', message: 'z' }), seen({ pointer: '/a', message: 'y' })])
    tally.add(key(), [seen({ severity: 'warning', pointer: '/a' }), seen({ side: 'request', severity: 'warning' }), seen({ side: 'request' })])
    expect(tally.lists().reported.map((f) => `${f.side} ${f.severity} ${f.operationId} ${f.pointer} ${f.message}`)).toEqual([
      'request violation queryItems /body/*/Id must be integer',
      'request warning queryItems /body/*/Id must be integer',
      'answer violation saveItems /a y',
      'answer violation saveItems /a z',
      'answer violation saveItems /b must be integer',
      'answer violation null /a must be integer',
      'answer warning queryItems /a must be integer',
    ])
  })

  it('sets apart what an --ignore entry accepts, with the first accepting entry’s reason, and none when it gives none', () => {
    const tally = new FindingTally([{ side: 'request', reason: 'our client sends it so' }, { pointer: '/body/*/Id' }, { side: 'request', reason: 'second' }])
    tally.add(key({ operationId: null }), [seen({ side: 'request', pointer: '/x' })])
    tally.add(key(), [seen(), seen({ pointer: '/status' })])
    const { reported, ignored } = tally.lists()
    expect(reported.map((f) => f.pointer)).toEqual(['/status'])
    expect(ignored.map((f) => [f.side, f.pointer, f.reason])).toEqual([
      ['request', '/x', 'our client sends it so'],
      ['answer', '/body/*/Id', undefined],
    ])
    expect('reason' in (ignored[1] as object)).toBe(false)
    expect(tally.acceptedBy({ side: 'answer', operationId: 'saveItems', pointer: '/status' })).toBeUndefined()
    expect(new FindingTally().acceptedBy({ side: 'request', operationId: null, pointer: '/x' })).toBeUndefined()
  })
})
