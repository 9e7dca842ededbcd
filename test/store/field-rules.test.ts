/** The field rules as pure functions (src/store/field-rules.ts): what each rule lets through and what it refuses. */
import { describe, expect, it } from 'vitest'
import { duplicateValues, ruleDefinitionProblems, valueBreaches } from '../../src/store/field-rules.ts'
import type { FieldDef } from '../../src/store/model/types.ts'

const codes = (field: FieldDef, value: Parameters<typeof valueBreaches>[1], creating: boolean) => valueBreaches(field, value, creating).map((b) => b.code)

describe('valueBreaches', () => {
  const required: FieldDef = { name: 'Customer', type: 'String', rules: { required: true } }
  it('required: a create must give a value; an update may leave it out but not empty it', () => {
    expect(codes(required, undefined, true)).toEqual(['REQUIRED'])
    expect(codes(required, null, true)).toEqual(['REQUIRED'])
    expect(codes(required, '', true)).toEqual(['REQUIRED'])
    expect(codes(required, 'x', true)).toEqual([])
    expect(codes(required, undefined, false)).toEqual([])
    expect(codes(required, null, false)).toEqual(['REQUIRED'])
    expect(codes(required, '', false)).toEqual(['REQUIRED'])
  })

  it('readOnly: no save writes it, but a create may send null', () => {
    const field: FieldDef = { name: 'ApprovedBy', type: 'String', rules: { readOnly: true } }
    expect(codes(field, null, true)).toEqual([])
    expect(codes(field, undefined, false)).toEqual([])
    expect(codes(field, 'me', true)).toEqual(['READ_ONLY'])
    expect(codes(field, null, false)).toEqual(['READ_ONLY'])
  })

  it('minimum, maximum, maxLength and allowed judge values, never null', () => {
    const amount: FieldDef = { name: 'Amount', type: 'Numeric', rules: { minimum: 0, maximum: 10 } }
    expect(codes(amount, -0.01, true)).toEqual(['BELOW_MINIMUM'])
    expect(codes(amount, 10.01, false)).toEqual(['ABOVE_MAXIMUM'])
    expect(codes(amount, 0, true)).toEqual([])
    expect(codes(amount, 10, true)).toEqual([])
    expect(codes(amount, null, false)).toEqual([])
    expect(codes({ name: 'Code', type: 'String', rules: { maxLength: 3 } }, 'abcd', true)).toEqual(['TOO_LONG'])
    expect(codes({ name: 'Status', type: 'String', rules: { allowed: ['Open'] } }, 'Lost', true)).toEqual(['NOT_ALLOWED'])
    expect(codes({ name: 'Tags', type: 'Multiselection', rules: { allowed: ['a', 'b'] } }, ['a', 'c'], true)).toEqual(['NOT_ALLOWED'])
    expect(codes({ name: 'Tags', type: 'Multiselection', rules: { allowed: ['a', 'b'] } }, ['b', 'a'], true)).toEqual([])
  })
})

describe('duplicateValues', () => {
  it('names each written row whose value another row holds, and never a row the save did not touch', () => {
    const rows: Array<[number, string | null]> = [
      [1, 'A'],
      [2, 'B'],
      [3, null],
      [4, 'A'],
      [5, 'B'],
      [6, ''],
    ]
    expect(duplicateValues(rows, new Set([4]))).toEqual([{ id: 4, value: 'A', holder: 1 }])
    expect(duplicateValues(rows, new Set([3, 6]))).toEqual([])
    expect(duplicateValues(rows, new Set([2, 5]))).toEqual([
      { id: 2, value: 'B', holder: 5 },
      { id: 5, value: 'B', holder: 2 },
    ])
    // 1 and '1' are different values, as their types are.
    expect(
      duplicateValues(
        [
          [1, 1],
          [2, '1'],
        ],
        new Set([2]),
      ),
    ).toEqual([])
  })
})

describe('ruleDefinitionProblems', () => {
  it('refuses rules the type cannot have, bounds the wrong way round, and allowed values of another type', () => {
    const rules = (field: FieldDef) => ruleDefinitionProblems(field).map((p) => p.rule)
    expect(rules({ name: 'N', type: 'Numeric', rules: { maxLength: 3 } })).toEqual(['maxLength'])
    expect(rules({ name: 'S', type: 'String', rules: { minimum: 1 } })).toEqual(['minimum'])
    expect(rules({ name: 'N', type: 'Numeric', rules: { minimum: 5, maximum: 1 } })).toEqual(['minimum'])
    expect(rules({ name: 'D', type: 'Date', rules: { minimum: 20241301 } })).toEqual(['minimum'])
    expect(rules({ name: 'S', type: 'String', rules: { allowed: ['a', 1] } })).toEqual(['allowed'])
    expect(rules({ name: 'S', type: 'String', rules: { allowed: [] } })).toEqual(['allowed'])
    expect(rules({ name: 'S', type: 'String', rules: { allowed: ['long'], maxLength: 2 } })).toEqual(['allowed'])
    expect(rules({ name: 'B', type: 'Boolean', rules: { unique: true } })).toEqual(['unique'])
    expect(rules({ name: 'S', type: 'String', rules: { required: true, readOnly: true } })).toEqual(['readOnly'])
    expect(rules({ name: 'N', type: 'Numeric', decimals: 0, rules: { required: true, unique: true, minimum: 0, maximum: 9, allowed: [1, 2] } })).toEqual([])
  })
})
