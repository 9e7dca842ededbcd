import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonBeyondLimits, type JsonLimits } from '../../src/http/json-limits.ts'
import { runAtOnce } from '../../src/http/json-slices.ts'

/** The levels of objects and arrays of a value (a scalar is 0) and the most members any one of its objects holds. */
function measure(value: unknown): { depth: number; members: number } {
  if (value === null || typeof value !== 'object') return { depth: 0, members: 0 }
  const children = Array.isArray(value) ? value : Object.values(value)
  let depth = 0
  let members = Array.isArray(value) ? 0 : children.length
  for (const child of children) {
    const inner = measure(child)
    depth = Math.max(depth, inner.depth)
    members = Math.max(members, inner.members)
  }
  return { depth: depth + 1, members }
}

const beyond = (text: string, limits: JsonLimits) => runAtOnce(jsonBeyondLimits(text, limits))

describe('the nesting and members limits of a JSON text', () => {
  it('takes a value exactly at both limits, and refuses it one under either, whatever its strings hold and however it is spaced', () => {
    // Strings of brackets, braces, colons, quotes and backslashes: none of them may count.
    const tricky = fc.stringMatching(/^[[\]{}:"\\a,]*$/)
    const values = fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, tricky, fc.integer(), fc.constant(null), tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 4 }),
      object: fc.dictionary(tricky, tie('value'), { maxKeys: 5 }),
    })).value
    fc.assert(
      fc.property(values, fc.boolean(), (value, spaced) => {
        const text = spaced ? JSON.stringify(value, null, 2) : JSON.stringify(value)
        const { depth, members } = measure(value)
        expect(beyond(text, { depth, members })).toBeUndefined()
        if (depth > 0) expect(beyond(text, { depth: depth - 1, members })?.message).toMatch(/nests deeper than/)
        if (members > 0) expect(beyond(text, { depth, members: members - 1 })?.message).toMatch(/members/)
      }),
    )
  })

  it('names where it goes past: the bracket one level too deep, the colon of the member one too many', () => {
    const deep = beyond('{"a":[[1]]}', { depth: 2, members: 10 })
    expect([deep?.code, deep?.extra]).toEqual(['BAD_JSON', { position: 6, limit: 2 }])
    expect(deep?.message).toBe('The body nests deeper than 2 levels of objects and arrays (at character 7): the mock reads at most 2.')
    const wide = beyond('{"a":1,"b":{"c":1},"d":2}', { depth: 5, members: 2 })
    expect([wide?.code, wide?.extra]).toEqual(['BAD_JSON', { position: 22, limit: 2 }])
    expect(wide?.message).toBe(
      'An object of the body has more than 2 members (the one at character 23 is past the limit): the mock reads at most 2 members an object.',
    )
  })

  it('counts the members of each object apart, and again from none in the next object at the same level', () => {
    expect(beyond('[{"a":1,"b":2},{"c":3,"d":4}]', { depth: 2, members: 2 })).toBeUndefined()
    expect(beyond('{"a":{"b":1,"c":2},"d":{"e":3,"f":4}}', { depth: 2, members: 2 })).toBeUndefined()
  })

  it('leaves a text that is no JSON to the parser (which says where), and lets no stray character change the count', () => {
    // A string never closed, colons outside any object: nothing to count, nothing past a limit.
    expect(beyond('{"a":"[[[[', { depth: 1, members: 1 })).toBeUndefined()
    expect(beyond('"a":1,"b":2,"c":3', { depth: 1, members: 1 })).toBeUndefined()
    expect(beyond('[1:2,3:4]', { depth: 1, members: 1 })).toBeUndefined()
    // Closing brackets with nothing open buy no depth for the brackets after them.
    expect(beyond(']]][[[', { depth: 2, members: 1 })?.extra).toEqual({ position: 5, limit: 2 })
  })

  it('pauses every 65,536 characters, so a large text is scanned in slices', () => {
    const pausesOf = (text: string) => {
      const work = jsonBeyondLimits(text, { depth: 1, members: 1 })
      let count = 0
      for (let step = work.next(); step.done !== true; step = work.next()) count++
      return count
    }
    // The first pause comes before the character at 65,536 is read: 65,536 characters take none, one more takes one.
    expect([pausesOf(' '.repeat(65_536)), pausesOf(' '.repeat(65_537))]).toEqual([0, 1])
    // At characters 65,536, 131,072 and 196,608 of 200,003.
    expect(pausesOf(`[${'0,'.repeat(100_000)}0]`)).toBe(3)
  })
})
