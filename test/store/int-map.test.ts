import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { IntMap } from '../../src/store/engine/int-map.ts'
import { Lru } from '../../src/store/engine/lru.ts'

describe('IntMap', () => {
  it('behaves like a Map, dense or sparse, and iterates dense keys ascending', () => {
    const key = fc.oneof(fc.integer({ min: 0, max: 200 }), fc.constantFrom(1e9, -5, 2.5))
    const op = fc.oneof(fc.tuple(fc.constant('set' as const), key, fc.string()), fc.tuple(fc.constant('delete' as const), key, fc.constant('')))
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const map = new IntMap<string>()
        const model = new Map<number, string>()
        let sparse = false
        for (const [kind, k, v] of ops) {
          if (kind === 'set') {
            if (!(Number.isInteger(k) && k >= 0 && k <= 1000)) sparse = true
            map.set(k, v)
            model.set(k, v)
          } else {
            expect(map.delete(k)).toBe(model.delete(k))
          }
          expect(map.size).toBe(model.size)
        }
        for (const [k, v] of model) expect(map.get(k)).toBe(v)
        const seen: number[] = []
        map.forEach((_v, k) => seen.push(k))
        expect(map.keys()).toEqual(seen)
        expect([...seen].sort((a, b) => a - b)).toEqual([...model.keys()].sort((a, b) => a - b))
        if (!sparse) expect(seen).toEqual([...seen].sort((a, b) => a - b))
      }),
    )
  })
})

describe('Lru', () => {
  it('forgets the least recently used entry beyond its size', () => {
    const lru = new Lru<string, number>(2)
    lru.set('a', 1)
    lru.set('b', 2)
    expect(lru.get('a')).toBe(1)
    lru.set('c', 3)
    expect(lru.get('b')).toBeUndefined()
    expect([lru.get('a'), lru.get('c'), lru.size]).toEqual([1, 3, 2])
    expect(() => new Lru(0)).toThrow(RangeError)
  })
})
