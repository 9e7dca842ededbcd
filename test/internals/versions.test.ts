import fc from 'fast-check'
import semver from 'semver'
import { describe, expect, it } from 'vitest'
import { LATEST_VERSION, normalizeVersion } from '../../spec/versions.ts'

describe('a release as users write it (--product-version, detect)', () => {
  it('becomes the full version semver makes of it, for one to three parts of any safe number', () => {
    const part = fc.oneof(fc.nat({ max: 40 }), fc.nat({ max: Number.MAX_SAFE_INTEGER })).map(String)
    const padded = fc.tuple(part, fc.nat({ max: 2 })).map(([digits, zeros]) => '0'.repeat(zeros) + digits)
    fc.assert(
      fc.property(fc.array(padded, { minLength: 1, maxLength: 3 }), fc.constantFrom('', ' ', '\t'), (parts, space) => {
        const text = parts.join('.')
        fc.pre(parts.every((p) => p.length <= 16))
        expect(normalizeVersion(`${space}${text}${space}`)).toBe(semver.coerce(text)?.version ?? null)
      }),
      { numRuns: 5_000 },
    )
  })

  it('is the latest release when empty or `latest`, and nothing when it is not a release number', () => {
    expect(normalizeVersion('')).toBe(LATEST_VERSION)
    expect(normalizeVersion('latest')).toBe(LATEST_VERSION)
    expect(normalizeVersion('2.9')).toBe('2.9.0')
    expect(normalizeVersion('3')).toBe('3.0.0')
    for (const text of ['03.0.19', '3.00.1', 'v3.0.19', '3.0.19.1', '3.0.x', '3..0', '3.0.19-beta', '99999999999999999', 'next'])
      expect(normalizeVersion(text)).toBeNull()
  })
})
