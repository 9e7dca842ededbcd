import { describe, expect, it } from 'vitest'
import { inferFields, inferIdentityField, linkNameScore } from '../../src/commands/capture/infer.ts'

const system = {
  CT_ATTACHMENTS: null,
  DT_CREATION: 20260101000000,
  DT_LAST_UPDATE: null,
  ROW_ORDER: 1,
  TIMESTAMP: 'AAAAAAAAAAE=',
  USER_ID_CREATION: 1,
  USER_ID_LAST_UPDATE: null,
}

describe('inferFields', () => {
  it.each([
    [[1, 2, 3], 'Numeric', 0],
    [[1, 2.5], 'Numeric', undefined],
    // 0/1 cannot tell a Boolean from a count: Numeric unless --field-type says otherwise.
    [[0, 1, 1], 'Numeric', 0],
    [[true, false], 'Boolean', undefined],
    [[20240101, 20240315], 'Date', undefined],
    [[20240101221000, 20240315081500], 'DateTime', undefined],
    [[181035, 90000], 'Time', undefined],
    // Whole numbers that happen to be valid times without an hour stay Numeric.
    [[12, 45], 'Numeric', 0],
    [[20240231, 20240101], 'Numeric', 0],
    [[['Fragile'], ['Express', 'Signature'], []], 'Multiselection', undefined],
    [['2026-01-01T10:00:00Z', '2026-02-01T10:00:00.123+01:00'], 'DateTime', undefined],
    [['2026-01-01', 'x'], 'String', undefined],
    [[1, 'one'], 'String', undefined],
    [[null, null], 'String', undefined],
  ])('takes %j for %s', (values, type, decimals) => {
    const rows = values.map((value, i) => ({ Id: i + 1, ...system, Field: value }))
    const distinct = new Set(values.filter((v) => v !== null).map((v) => JSON.stringify(v))).size
    expect(inferFields(rows)).toEqual([
      { name: 'Field', type, ...(decimals === undefined ? {} : { decimals }), nullable: values.includes(null as never), distinct },
    ])
  })

  it('leaves out the system fields and keeps the order the rows give', () => {
    expect(inferFields([{ Id: 1, ...system, IdRow: 1001, Customer: 'A', Amount: 1.5 }]).map((field) => field.name)).toEqual(['IdRow', 'Customer', 'Amount'])
  })

  it('marks a field nullable when a row lacks it or holds null', () => {
    const fields = inferFields([{ Id: 1, A: 1 }, { Id: 2 }])
    expect(fields).toEqual([{ name: 'A', type: 'Numeric', decimals: 0, nullable: true, distinct: 1 }])
  })
})

describe('inferIdentityField', () => {
  it('takes the only integer field set on every row with a different value on each', () => {
    const rows = [
      { Id: 1, Code: 7, Quantity: 2 },
      { Id: 2, Code: 9, Quantity: 2 },
    ]
    expect(inferIdentityField(rows, inferFields(rows))).toBe('Code')
  })

  it('prefers a name like IdRow among several, then values that rise with Id', () => {
    const rows = [
      { Id: 1, Number: 5, IdRow: 1001 },
      { Id: 2, Number: 4, IdRow: 1002 },
    ]
    expect(inferIdentityField(rows, inferFields(rows))).toBe('IdRow')
    const unnamed = [
      { Id: 1, A: 5, B: 10 },
      { Id: 2, A: 4, B: 11 },
    ]
    expect(inferIdentityField(unnamed, inferFields(unnamed))).toBe('B')
  })

  it('finds none when no integer field is unique and always set', () => {
    const rows = [
      { Id: 1, A: 1 },
      { Id: 2, A: 1 },
      { Id: 3, A: null },
    ]
    expect(inferIdentityField(rows, inferFields(rows))).toBeUndefined()
  })
})

describe('linkNameScore', () => {
  it.each([
    ['MasterId', 2],
    ['ParentRef', 2],
    ['OrderId', 1],
    ['Quantity', 0],
  ])('scores %s %i', (name, score) => {
    expect(linkNameScore(name)).toBe(score)
  })
})
