import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { PrimaryKeys } from '../../src/store/model/primary-keys.ts'

/** A master's new keys as the save writes them: JSON members, names of any characters. */
const newKeys = fc.dictionary(fc.string(), fc.nat().map(String), { minKeys: 1, maxKeys: 4 })
const members = (keys: Record<string, string>) => JSON.stringify(keys).slice(1, -1)
/** Temporary Ids, existing Ids (array indexes, ordered first by JSON.stringify) and Ids past the largest index. */
const masterId = fc.oneof(fc.integer({ min: -50, max: -1 }), fc.nat({ max: 50 }), fc.constantFrom(4294967294, 4294967295, 2 ** 53 - 1))
const additions = fc.array(fc.tuple(masterId, newKeys), { maxLength: 12 })

/** What the answer wrote before: an object, a property per master, serialized by JSON.stringify. */
function asObject(...saves: Array<Array<[number, Record<string, string>]>>): Record<string, { newKeys: Record<string, string> }> {
  const data: Record<string, { newKeys: Record<string, string> }> = {}
  for (const save of saves) for (const [master, keys] of save) data[String(master)] = { newKeys: keys }
  return data
}

function kept(save: Array<[number, Record<string, string>]>): PrimaryKeys {
  const keys = new PrimaryKeys()
  for (const [master, values] of save) keys.add(master, members(values))
  return keys
}

describe('PrimaryKeys', () => {
  it('writes exactly what JSON.stringify writes for the object form: existing masters first, ascending; a master named again keeps its place', () => {
    fc.assert(
      fc.property(additions, (save) => {
        expect(kept(save).text()).toBe(JSON.stringify(asObject(save)))
      }),
    )
  })

  it('merges as spreading one object over another does (the per-row save mode)', () => {
    fc.assert(
      fc.property(additions, additions, (first, later) => {
        const merged = kept(first).merged(kept(later))
        expect(merged.text()).toBe(JSON.stringify({ ...asObject(first), ...asObject(later) }))
        expect(merged.toObject()).toEqual(asObject(first, later))
      }),
    )
  })

  it('is an empty object with no new keys', () => {
    expect(new PrimaryKeys().text()).toBe('{}')
    expect([...new PrimaryKeys().pieces()].join('')).toBe('{}')
  })

  it('writes the same text in pieces (a big save writes its answer a slice at a time)', () => {
    fc.assert(
      fc.property(additions, (save) => {
        const pieces = [...kept(save).pieces()]
        expect(pieces.join('')).toBe(JSON.stringify(asObject(save)))
        // A piece per master at most, and the braces: no piece holds the whole text of many masters.
        expect(pieces.length).toBe(new Set(save.map(([master]) => master)).size + 2)
      }),
    )
  })

  it('pauses with an empty piece every 4,096 existing masters read, before and after sorting them, and writes the same text', () => {
    // 10,000 existing masters out of order and 10 new ones: two passes over the masters, each pausing twice.
    const save: Array<[number, Record<string, string>]> = Array.from({ length: 10_000 }, (_, i) => [(i * 7919) % 10_000, { Id: String(i) }])
    for (let i = 1; i <= 10; i++) save.push([-i, { Id: String(20_000 + i) }])
    const pieces = [...kept(save).pieces()]
    expect(pieces.join('')).toBe(JSON.stringify(asObject(save)))
    expect(pieces.filter((piece) => piece === '')).toHaveLength(4)
    // New rows only: no pass over existing masters, no pause.
    expect([...kept(save.slice(10_000)).pieces()].filter((piece) => piece === '')).toHaveLength(0)
  })
})
