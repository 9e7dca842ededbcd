import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { dateTimeIn, isTimeZone, utcMsToWall, wallToUtcMs } from '../../src/store/model/data-types.ts'

/** The DateTime number of an instant as its ISO text spells it: what utcMsToWall must always give. */
const fromIsoText = (ms: number) => Number(new Date(ms).toISOString().slice(0, 19).replace(/[-T:]/g, ''))

/** Every instant a Date holds (±8.64e15 ms), and the years with four digits in ISO text (0000 to 9999). */
const anyInstant = fc.integer({ min: -8.64e15, max: 8.64e15 })
const fourDigitYears = fc.integer({ min: -62_167_219_200_000, max: 253_402_300_799_999 })

describe('utcMsToWall', () => {
  it('gives the digits of the ISO text for any instant', () => {
    fc.assert(fc.property(fc.oneof(anyInstant, fourDigitYears), (ms) => utcMsToWall(ms) === fromIsoText(ms)))
  })

  it('gives them for instants in order a few seconds to minutes apart, across days (the generator calls it so)', () => {
    fc.assert(
      fc.property(fourDigitYears, fc.array(fc.integer({ min: 1, max: 200_000_000 }), { minLength: 1, maxLength: 200 }), (start, steps) => {
        let ms = start
        for (const step of steps) {
          ms += step
          if (utcMsToWall(ms) !== fromIsoText(ms)) return false
        }
        return true
      }),
    )
  })

  it('is exact at the edges of a day and of the four-digit years, and for fractions', () => {
    const edges = [
      0, -1, 1, 86_399_999, 86_400_000, -86_400_000, -86_400_001, -62_167_219_200_000, -62_167_219_200_001, 253_402_300_799_999, 253_402_300_800_000, 1.5, -1.5,
      8.64e15, -8.64e15,
    ]
    for (const ms of edges) expect([ms, utcMsToWall(ms)]).toEqual([ms, fromIsoText(ms)])
    expect(utcMsToWall(Date.parse('2024-02-29T23:59:59.999Z'))).toBe(20240229235959)
    expect(utcMsToWall(Date.parse('2024-03-01T00:00:00.000Z'))).toBe(20240301000000)
  })

  it('inverts wallToUtcMs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: Date.UTC(1000, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59) }),
        (ms) => wallToUtcMs(utcMsToWall(ms)) === Math.floor(ms / 1000) * 1000,
      ),
    )
  })
})

describe('time zones', () => {
  it('knows UTC and IANA names, and refuses others', () => {
    expect(isTimeZone('UTC')).toBe(true)
    expect(isTimeZone('Europe/Rome')).toBe(true)
    expect(isTimeZone('Mars/Olympus')).toBe(false)
    expect(dateTimeIn(Date.parse('2024-06-01T08:00:00Z'), 'UTC')).toBe(20240601080000)
    expect(dateTimeIn(Date.parse('2024-06-01T08:00:00Z'), 'Europe/Rome')).toBe(20240601100000)
  })
})
