/**
 * Answer members held to what the client received (src/commands/upgrade/members.ts), rule by rule:
 * a member missing or retyped at any depth, inside rows and under keys that are data; nothing said of
 * what the client never received or only received as null; the object at a path; and a renamed member
 * told from a removed one by its place, its type and how close its name is.
 */
import { describe, expect, it } from 'vitest'
import { memberDiffs, objectAt, pathText, renamedTo, type MemberDiff } from '../../src/commands/upgrade/members.ts'

const said = (diffs: readonly MemberDiff[]) => diffs.map((d) => `${pathText(d.path)} ${d.change} ${d.received}${d.got === undefined ? '' : ` got ${d.got}`}`)

describe('memberDiffs', () => {
  const result = {
    type: 'object',
    fields: {
      IsSaveSuccessfully: 'boolean',
      ReturnData: { type: 'object', fields: { PrimaryKeyData: { type: 'object', fields: { '*': { type: 'object', fields: { newKeys: 'object' } } } } } },
      Rows: { type: 'array', items: { type: 'object', fields: { Id: 'integer', Name: 'string|null', Tags: { type: 'array', items: 'string' } } } },
      Maybe: 'absent|string',
      Empty: 'null',
      Stamp: 'date-time',
    },
  }
  const fine = {
    IsSaveSuccessfully: true,
    ReturnData: { PrimaryKeyData: { '-1': { newKeys: {} }, Known: 'not data' } },
    Rows: [{ Id: 1, Name: 'a', Tags: ['x'] }],
    Stamp: '2026-01-05T09:00:00Z',
  }

  it('finds nothing in an answer that carries what the client received, members it never received aside', () => {
    expect(memberDiffs(result, fine)).toEqual([])
    expect(memberDiffs(result, { ...fine, Brand: 1, Empty: 'now a text' })).toEqual([])
  })

  it('names a member missing at the top, inside an object and inside rows; never one the client sometimes lacked or only got as null', () => {
    const { IsSaveSuccessfully: _flag, Stamp: _stamp, ...without } = fine
    expect(said(memberDiffs(result, { ...without, ReturnData: {}, Rows: [{ Id: 1, Tags: [] }] }))).toEqual([
      'IsSaveSuccessfully missing boolean',
      'ReturnData.PrimaryKeyData missing object',
      'Rows[].Name missing string|null',
      'Stamp missing string',
    ])
  })

  it('names a member of another JSON type, a text format counting as a text and an integer as a number; a null is no change', () => {
    expect(said(memberDiffs(result, { ...fine, IsSaveSuccessfully: 'true', Stamp: 5, Rows: [{ Id: 1.5, Name: null, Tags: 'x' }] }))).toEqual([
      'IsSaveSuccessfully retyped boolean got string',
      'Rows[].Tags retyped array got string',
      'Stamp retyped string got number',
    ])
    expect(memberDiffs(result, { ...fine, IsSaveSuccessfully: null })).toEqual([])
    expect(said(memberDiffs(result, [fine]))).toEqual([' retyped object got array'])
    expect(said(memberDiffs('string', {}))).toEqual([' retyped string got object'])
  })

  it('says what the client received without the samples that lacked the member', () => {
    expect(said(memberDiffs({ type: 'object', fields: { Maybe: 'absent|string|null' } }, { Maybe: 5 }))).toEqual(['Maybe retyped string|null got number'])
  })

  it('holds keys that are data to their shape where present, never requiring them', () => {
    const keys = { ...fine, ReturnData: { PrimaryKeyData: { '-1': 'no object', 'OrderLines:-1': { newKeys: 3 } } } }
    expect(said(memberDiffs(result, keys))).toEqual([
      'ReturnData.PrimaryKeyData.* retyped object got string',
      'ReturnData.PrimaryKeyData.*.newKeys retyped object got number',
    ])
    expect(memberDiffs(result, { ...fine, ReturnData: { PrimaryKeyData: {} } })).toEqual([])
  })

  it('reads the rows up to the first that differs, and no further than the first 50', () => {
    const rows = (n: number, bad: number) => Array.from({ length: n }, (_, i) => ({ Id: i === bad ? 'x' : i, Name: 'n', Tags: [] }))
    expect(said(memberDiffs(result, { ...fine, Rows: rows(60, 49) }))).toEqual(['Rows[].Id retyped number got string'])
    expect(memberDiffs(result, { ...fine, Rows: rows(60, 50) })).toEqual([])
    const twice = rows(3, 1).map((row, i) => (i === 2 ? { ...row, Name: 5 } : row))
    expect(said(memberDiffs(result, { ...fine, Rows: twice }))).toEqual(['Rows[].Id retyped number got string'])
  })

  it('puts the path given before the members it names', () => {
    expect(memberDiffs({ type: 'object', fields: { A: 'string' } }, {}, ['Items', '[]'])[0]?.path).toEqual(['Items', '[]', 'A'])
    expect(pathText(['Items', '[]', 'A'])).toBe('Items[].A')
    expect(pathText(['[]', 'Rows', '[]', '[]'])).toBe('[].Rows[][]')
  })

  it('does not take an inherited member for one the answer carries', () => {
    expect(said(memberDiffs({ type: 'object', fields: { toString: 'string' } }, {}))).toEqual(['toString missing string'])
  })
})

describe('objectAt', () => {
  const body = { A: { B: [{ C: { D: 1 } }] }, L: [1], N: null }

  it('finds the object at a path, through the first item of each array', () => {
    expect(objectAt(body, ['A', 'B', '[]', 'C'])).toEqual({ D: 1 })
    expect(objectAt(body, [])).toBe(body)
  })

  it('is undefined where the path meets no object: a value, an array, null, nothing', () => {
    expect(objectAt(body, ['A', 'B'])).toBeUndefined()
    expect(objectAt(body, ['L', '[]'])).toBeUndefined()
    expect(objectAt(body, ['N'])).toBeUndefined()
    expect(objectAt(body, ['Z', 'Y'])).toBeUndefined()
    expect(objectAt(body, ['A', '[]'])).toBeUndefined()
    expect(objectAt([{ X: 1 }], ['[]'])).toEqual({ X: 1 })
    expect(objectAt({ A: [1] }, ['A', 'X'])).toBeUndefined()
  })
})

describe('renamedTo', () => {
  const missing = (path: string[], received = 'boolean'): MemberDiff => ({ path, change: 'missing', received })

  it('names the closest new member of the type received at the same place, inside rows too', () => {
    const from = { Rows: [{ IsSaveSuccesfully: true }] }
    const to = { Rows: [{ IsSaveSuccessfully: true, IsSaveSuccessful: true }] }
    expect(renamedTo(missing(['Rows', '[]', 'IsSaveSuccesfully']), from, to)).toBe('IsSaveSuccessfully')
    expect(renamedTo(missing(['Flag']), { Flag: true }, { flag: false })).toBe('flag')
  })

  it('takes the closest of several candidates, wherever it stands in the answer', () => {
    expect(renamedTo(missing(['Amount'], 'number'), {}, { Amxxnt: 1, Amoun: 2 })).toBe('Amoun')
    expect(renamedTo(missing(['Amount'], 'number'), {}, { Amoun: 2, Amxxnt: 1 })).toBe('Amoun')
  })

  it('allows a third of the letters changed, at least one: no more', () => {
    // 9 letters: 3 may change.
    expect(renamedTo(missing(['Abcdefghi'], 'number'), {}, { Abcdefxyz: 1 })).toBe('Abcdefxyz')
    expect(renamedTo(missing(['Abcdefghi'], 'number'), {}, { Abcdewxyz: 1 })).toBeUndefined()
    // 2 letters: 1 may change.
    expect(renamedTo(missing(['Ab'], 'number'), {}, { Ax: 1 })).toBe('Ax')
    expect(renamedTo(missing(['Ab'], 'number'), {}, { Xy: 1 })).toBeUndefined()
    // Letters added or dropped count as changes.
    expect(renamedTo(missing(['Abcdef'], 'number'), {}, { Abcdefgh: 1 })).toBe('Abcdefgh')
    expect(renamedTo(missing(['Abcdef'], 'number'), {}, { Abcdefghi: 1 })).toBeUndefined()
    expect(renamedTo(missing(['Abcdef'], 'number'), {}, { Abcd: 1 })).toBe('Abcd')
  })

  it('never names a member the recorded release had, one of another type, or any where the target has no object', () => {
    expect(renamedTo(missing(['Flag']), { Flag: true, Flags: true }, { Flags: true })).toBeUndefined()
    expect(renamedTo(missing(['Flag']), { Flag: true }, { Flags: 'yes' })).toBeUndefined()
    expect(renamedTo(missing(['Flag'], 'string|boolean'), { Flag: true }, { Flags: 'yes' })).toBe('Flags')
    expect(renamedTo(missing(['A', 'Flag']), {}, { A: [true] })).toBeUndefined()
    expect(renamedTo(missing(['A', 'Flag']), {}, { A: { Flags: true } })).toBe('Flags')
  })
})
