/**
 * The maps a big save fills row by row (src/store/model/segmented-map.ts) behave as a Map and a
 * Set, insertion order included, whatever the segment size: a property over sequences of sets,
 * deletes and lookups, against the built-in collections, with segments of 1 to 4 entries so that
 * every sequence crosses segments. And no segment grows past its size.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SEGMENT, SegmentedMap, SegmentedSet } from '../../src/store/model/segmented-map.ts'

const operation = fc.oneof(
  fc.record({ op: fc.constant('set' as const), key: fc.integer({ min: -6, max: 6 }), value: fc.integer() }),
  fc.record({ op: fc.constant('delete' as const), key: fc.integer({ min: -6, max: 6 }) }),
)

describe('SegmentedMap', () => {
  it('answers and iterates as a Map after any sets and deletes, at any segment size', () => {
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 60 }), fc.integer({ min: 1, max: 4 }), (operations, segment) => {
        const map = new SegmentedMap<number, number>(segment)
        const set = new SegmentedSet<number>(segment)
        const expectedMap = new Map<number, number>()
        const expectedSet = new Set<number>()
        for (const step of operations) {
          if (step.op === 'set') {
            expect(map.set(step.key, step.value)).toBe(map)
            expectedMap.set(step.key, step.value)
            expect(set.add(step.key)).toBe(set)
            expectedSet.add(step.key)
          } else {
            expect(map.delete(step.key)).toBe(expectedMap.delete(step.key))
            expect(set.delete(step.key)).toBe(expectedSet.delete(step.key))
          }
          expect(map.size).toBe(expectedMap.size)
          expect(set.size).toBe(expectedSet.size)
        }
        for (let key = -7; key <= 7; key++) {
          expect(map.get(key)).toBe(expectedMap.get(key))
          expect(map.has(key)).toBe(expectedMap.has(key))
          expect(set.has(key)).toBe(expectedSet.has(key))
        }
        expect([...map]).toEqual([...expectedMap])
        expect([...map.entries()]).toEqual([...expectedMap.entries()])
        expect([...map.keys()]).toEqual([...expectedMap.keys()])
        expect([...map.values()]).toEqual([...expectedMap.values()])
        expect([...set]).toEqual([...expectedSet])
      }),
    )
  })

  it('begins a new segment once one holds its size, so no Map inside doubles past it', () => {
    const map = new SegmentedMap<number, number>(3)
    for (let i = 0; i < 6; i++) map.set(i, i)
    expect(map.segments).toBe(2)
    map.set(6, 6)
    expect(map.segments).toBe(3)
    // A key set again keeps its place in its old segment; a new key goes to the last one.
    map.set(1, 10)
    expect([...map.keys()]).toEqual([0, 1, 2, 3, 4, 5, 6])
    expect(map.get(1)).toBe(10)
    map.delete(1)
    map.set(1, 11)
    expect([...map.keys()]).toEqual([0, 2, 3, 4, 5, 6, 1])
    expect(map.segments).toBe(3)
    // The default: a save of up to 65,536 rows keeps one Map, as before.
    const big = new SegmentedMap<number, number>()
    for (let i = 0; i <= SEGMENT; i++) big.set(i, i)
    expect(big.segments).toBe(2)
  })
})
