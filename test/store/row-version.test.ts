import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { decodeRowVersion, encodeRowVersion } from '../../src/wire/row-version.ts'

describe('encodeRowVersion', () => {
  it.each([
    [0, 'AAAAAAAAAAA='],
    [1, 'AAAAAAAAAAE='],
    [255, 'AAAAAAAAAP8='],
    [2 ** 32, 'AAAAAQAAAAA='],
    [Number.MAX_SAFE_INTEGER, 'AB////////8='],
  ])('%d -> %s (base64 of 8 big-endian bytes)', (n, text) => {
    expect(encodeRowVersion(n)).toBe(text)
    expect(Buffer.from(text, 'base64')).toEqual(Buffer.from(BigInt(n).toString(16).padStart(16, '0'), 'hex'))
  })

  it.each([-1, 1.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN])('refuses %d, which no row version can be', (n) => {
    expect(() => encodeRowVersion(n)).toThrow(RangeError)
  })
})

describe('decodeRowVersion', () => {
  it.each([
    ['AAAAAAAAAAE=', 1],
    ['AAAAAQAAAAA=', 2 ** 32],
    ['AB////////8=', Number.MAX_SAFE_INTEGER],
  ])('%s -> %d', (text, n) => expect(decodeRowVersion(text)).toBe(n))

  it.each([
    ['', 'empty'],
    ['AAAAAAAAAAE', 'no padding'],
    ['AAAAAAAAAA==', 'only 7 bytes'],
    ['AAAAAAAAAAAA', '9 bytes'],
    ['ACAAAAAAAAA=', '2^53, beyond safe integers'],
    ['AAAAAAAAAAF=', 'stray low bits (not canonical)'],
    ['AAAAAAAAA!E=', 'not base64'],
  ])('%s is not a row version (%s)', (text) => expect(decodeRowVersion(text)).toBeNull())

  it('decode(encode(n)) is n for every safe non-negative integer', () => {
    fc.assert(fc.property(fc.maxSafeNat(), (n) => decodeRowVersion(encodeRowVersion(n)) === n))
  })
})
