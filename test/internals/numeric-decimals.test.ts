import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { valueFits } from '../../src/wire/type-forms.ts'

/** The rule as the number is written: its shortest text's decimals (the exponent counted), at most the field's. */
function decimalsWritten(value: number): number {
  if (Number.isInteger(value)) return 0
  const text = String(value)
  const [digits = '', exponent] = text.split('e')
  const fraction = digits.split('.')[1]?.length ?? 0
  return exponent === undefined ? fraction : Math.max(0, fraction - Number(exponent))
}

describe("a Numeric field's decimals", () => {
  it('are judged as the number is written, for any finite number and any count of decimals', () => {
    const decimalValues = fc.tuple(fc.integer({ min: -1e12, max: 1e12 }), fc.integer({ min: 0, max: 12 })).map(([n, d]) => n / 10 ** d)
    fc.assert(
      fc.property(fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), decimalValues), fc.integer({ min: 0, max: 25 }), (value, decimals) => {
        expect(valueFits('Numeric', value, decimals)).toBe(decimalsWritten(value) <= decimals)
      }),
      { numRuns: 20_000 },
    )
  })

  it('takes 1.5 with one or more decimals, not with none, and refuses 0.1 + 0.2 with two', () => {
    expect(valueFits('Numeric', 1.5, 1)).toBe(true)
    expect(valueFits('Numeric', 1.5, 0)).toBe(false)
    expect(valueFits('Numeric', 0.1 + 0.2, 2)).toBe(false)
    expect(valueFits('Numeric', 1.5e-7, 8)).toBe(true)
    expect(valueFits('Numeric', 1.5e-7, 7)).toBe(false)
  })
})
