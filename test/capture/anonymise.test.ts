import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { Anonymiser, rangeOf, spanOf } from '../../src/commands/capture/anonymise.ts'
import { runs } from '../helpers/property-runs.ts'

/** The class of each character: A capital, a small letter, 9 a digit, anything else itself. */
const shape = (text: string) => [...text].map((c) => (/\p{Lu}/u.test(c) ? 'A' : /\p{L}/u.test(c) ? 'a' : /\p{N}/u.test(c) ? '9' : c)).join('')

describe('Anonymiser', () => {
  it("never gives back a captured text, gives equal texts equal replacements, and keeps each character's class", () => {
    fc.assert(
      fc.property(
        fc.array(fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme-ascii' }), { minLength: 1, maxLength: 40 }),
        fc.integer(),
        (texts, seed) => {
          const anonymiser = new Anonymiser(seed, texts)
          const outputs = texts.map((text) => anonymiser.text(text))
          const originals = new Set(texts)
          for (const [i, text] of texts.entries()) {
            const out = outputs[i] as string
            expect(originals.has(out)).toBe(false)
            expect(anonymiser.text(text)).toBe(out)
            // Same class, character by character, unless nothing in it could change (then one letter is added).
            if (!/^[^@]+@[^@\s]+\.[A-Za-z]{2,}$/.test(text) && out.length === text.length) expect(shape(out)).toBe(shape(text))
          }
          // Different texts stay different, so a filter on one value never matches another's rows.
          expect(new Set(outputs).size).toBe(originals.size)
        },
      ),
      { numRuns: runs(100) },
    )
  })

  it('keeps e-mail addresses addresses and dates dates within the span seen', () => {
    const anonymiser = new Anonymiser(1, ['ana.lopez@contoso.com'])
    expect(anonymiser.text('ana.lopez@contoso.com')).toMatch(/^[a-z]{3}\.[a-z]{5}@example\.test$/)
    const span = spanOf(['2024-01-01T00:00:00Z', '2024-03-01T00:00:00Z'])
    const date = anonymiser.text('2024-02-10T12:00:00Z', span)
    expect(Date.parse(date)).toBeGreaterThanOrEqual(Date.parse('2024-01-01T00:00:00Z'))
    expect(Date.parse(date)).toBeLessThanOrEqual(Date.parse('2024-03-01T00:00:00Z'))
    expect(anonymiser.text('2024-02-10', span)).toMatch(/^2024-0[1-3]-\d\d$/)
  })

  it('keeps numbers within the range seen and their precision', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -100000, max: 100000 }), { minLength: 1, maxLength: 20 }), fc.boolean(), (cents, whole) => {
        const values = cents.map((c) => (whole ? c : c / 100))
        const range = rangeOf(values)
        const anonymiser = new Anonymiser(3, [])
        for (const value of values) {
          const out = anonymiser.number('Amount', value, range)
          expect(out).toBeGreaterThanOrEqual(range.min)
          expect(out).toBeLessThanOrEqual(range.max)
          if (range.integer) expect(Number.isInteger(out)).toBe(true)
          expect((String(out).split('.')[1] ?? '').length).toBeLessThanOrEqual(range.decimals)
        }
      }),
      { numRuns: runs(100) },
    )
  })
})
