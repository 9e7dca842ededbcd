/**
 * What the pattern language says (src/rules/pattern.ts), without HTTP: each refusal's pointer,
 * keyword and message when a pattern is compiled, and each difference and distance a match reports
 * (what near misses and failed assertions show a user), for every part of a request.
 */
import { describe, expect, test } from 'vitest'
import { compileRequestPattern, MAX_ARRAY_SCAN, MAX_DEPTH, MAX_TEXT, type CompiledRequestPattern, type RequestSubject } from '../../src/rules/pattern.ts'

type Input = Parameters<typeof compileRequestPattern>[0]

function compiled(input: Input): CompiledRequestPattern {
  const result = compileRequestPattern(input)
  if (!result.ok) throw new Error(JSON.stringify(result.violations))
  return result.pattern
}

const refused = (input: Input, at?: string) => {
  const result = compileRequestPattern(input, at)
  if (result.ok) throw new Error('was accepted')
  return result.violations
}

const subject = (over: Partial<RequestSubject>): RequestSubject => ({ operationId: 'queryItems', body: null, headers: {}, user: null, ...over })
const secrets = { isSecret: (name: string) => name === 'sessiontoken' || name === 'Password', text: '[redacted]' }

function nested(depth: number): unknown {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

describe('a pattern refused when compiled', () => {
  const HEADER_TEXT = 'must be a text, {"$contains": TEXT} or {"$regex": TEXT}: a header is a text'

  test.each([
    ['an object', { a: 1 }],
    ['a number', 5],
    ['an array', []],
    ['null', null],
  ])('a header asked to be %s: it is a text', (_what, value) => {
    expect(refused({ match: { headers: { 'X-A': value } } })).toEqual([{ pointer: '/match/headers/X-A', keyword: 'type', message: HEADER_TEXT }])
  })

  test('a header pattern that is already refused is not refused twice; its name is escaped in the pointer', () => {
    expect(refused({ match: { headers: { 'X/A': { $nope: 1 } } } })).toEqual([
      {
        pointer: '/match/headers/X~1A',
        keyword: 'operator',
        message: '$nope is not an operator: use $contains or $regex (a member whose name starts with $ cannot be matched)',
      },
    ])
  })

  test('a header may be a text, $contains or $regex', () => {
    expect(compiled({ match: { headers: { 'X-A': { $contains: 'a' }, 'X-B': { $regex: 'a' }, 'X-C': 'c' } } }).operationOnly).toBe(false)
  })

  test('pointers start where the caller says', () => {
    expect(refused({ match: { body: { $contains: 1 } } }, '/body/match')).toEqual([
      { pointer: '/body/match/body', keyword: 'operator', message: '$contains takes a text' },
    ])
  })

  test.each([
    [
      'an array wider than 100 elements',
      Array.from({ length: 101 }, () => 1),
      [
        {
          pointer: '/match/body',
          keyword: 'maxItems',
          message: "has 101 elements, more than the 100 an array of a pattern may have (each is judged against every element of the request's array)",
        },
      ],
    ],
    ['a text longer than 4,096 characters', 'x'.repeat(4_097), [{ pointer: '/match/body', keyword: 'maxLength', message: 'is longer than 4096 characters' }]],
    [
      'a $contains longer than 4,096 characters',
      { $contains: 'x'.repeat(4_097) },
      [{ pointer: '/match/body/$contains', keyword: 'maxLength', message: 'is longer than 4096 characters' }],
    ],
    [
      '$contains beside a member',
      { $contains: 'a', b: 1 },
      [{ pointer: '/match/body', keyword: 'operator', message: "$contains must be the object's only member" }],
    ],
    ['$regex that is not a text', { $regex: 5 }, [{ pointer: '/match/body', keyword: 'operator', message: '$regex takes a text' }]],
    ['a number that is not JSON', Number.NaN, [{ pointer: '/match/body', keyword: 'type', message: 'is not a JSON number' }]],
    ['a value that is not JSON', () => 1, [{ pointer: '/match/body', keyword: 'type', message: 'is not a JSON value' }]],
  ])('%s', (_what, body, violations) => {
    expect(refused({ match: { body } })).toEqual(violations)
  })

  test('an expression the linear engine cannot run names $regex and why', () => {
    const [violation] = refused({ match: { body: { q: { $regex: '(a' } } } })
    expect(violation).toMatchObject({ pointer: '/match/body/q/$regex', keyword: 'regex' })
    expect(violation?.message).toMatch(/missing closing \)/)
  })

  test('one level deeper than 32 is refused at the first value too deep; 32 is taken', () => {
    const [violation] = refused({ match: { body: nested(33) } })
    expect(violation).toEqual({ pointer: `/match/body${'/0'.repeat(33)}`, keyword: 'maxDepth', message: 'nests deeper than 32 levels' })
    expect(compiled({ match: { body: nested(32) } }).operationOnly).toBe(false)
  })

  test('more than 1,000 values: refused once, at the first value over', () => {
    const body = Array.from({ length: 10 }, () => Array.from({ length: 100 }, () => 1))
    expect(refused({ match: { body } })).toEqual([{ pointer: '/match/body/9/89', keyword: 'maxNodes', message: 'makes the pattern larger than 1000 values' }])
  })

  test('exactly 1,000 values are taken', () => {
    // The body array itself, 9 arrays of 100 and one of 90: 1 + 9 * 101 + 91 = 1,001 nodes is one over.
    const body = [...Array.from({ length: 9 }, () => Array.from({ length: 100 }, () => 1)), Array.from({ length: 89 }, () => 1)]
    expect(compiled({ match: { body } }).operationOnly).toBe(false)
  })

  test('every violation is listed, body and headers', () => {
    expect(refused({ match: { body: { $nope: 1 }, headers: { A: 1, B: { $contains: 2 } } } }).map((v) => v.pointer)).toEqual([
      '/match/body',
      '/match/headers/A',
      '/match/headers/B',
    ])
  })
})

describe('what a pattern asks for', () => {
  test('only the operation: no body, no headers, no user', () => {
    expect(compiled({ operationId: 'queryItems' }).operationOnly).toBe(true)
    expect(compiled({ match: {} }).operationOnly).toBe(true)
    expect(compiled({ match: { headers: {} } }).operationOnly).toBe(true)
    expect(compiled({ match: { body: {} } }).operationOnly).toBe(false)
    expect(compiled({ match: { headers: { A: 'a' } } }).operationOnly).toBe(false)
    expect(compiled({ match: { user: 'a@b.test' } }).operationOnly).toBe(false)
  })

  test('the user in any case', () => {
    const pattern = compiled({ match: { user: 'Admin@Acme.TEST' } })
    expect(pattern.test(subject({ user: 'admin@acme.test' }))).toBe(true)
    expect(pattern.test(subject({ user: 'ADMIN@ACME.TEST' }))).toBe(true)
    expect(pattern.test(subject({ user: 'other@acme.test' }))).toBe(false)
    expect(pattern.test(subject({ user: null }))).toBe(false)
  })

  test('header names in any case', () => {
    expect(compiled({ match: { headers: { 'X-Tenant': 'a' } } }).test(subject({ headers: { 'x-tenant': 'a' } }))).toBe(true)
  })
})

describe('a match reported', () => {
  // Compiled in each test, not when the file loads (a mutation run counts code run at load against every test).
  const full = () => compiled({ operationId: 'saveItems', match: { body: { a: 1 }, headers: { 'X-A': 'a' }, user: 'u@x.test' } })

  test('each part that differs, and a distance that weighs each part the same', () => {
    expect(full().match(subject({ body: { a: 2 }, headers: { 'x-a': 'b' }, user: 'U@x.test' }))).toEqual({
      matched: false,
      distance: 0.75,
      differences: [
        { pointer: '/operationId', expected: 'saveItems', actual: 'queryItems' },
        { pointer: '/body/a', expected: '1', actual: '2' },
        { pointer: '/headers/x-a', expected: '"a"', actual: '"b"' },
      ],
    })
  })

  test('what the journal did not keep, no operation and no user: each said as such', () => {
    expect(full().match(subject({ operationId: null, bodyNote: 'not kept', headersNote: 'nothing kept' }))).toEqual({
      matched: false,
      distance: 1,
      differences: [
        { pointer: '/operationId', expected: 'saveItems', actual: '(none: not an API operation)' },
        { pointer: '/body', expected: 'a body to match (an object)', actual: 'not kept' },
        { pointer: '/headers', expected: 'headers to match (x-a)', actual: 'nothing kept' },
        { pointer: '/user', expected: 'u@x.test', actual: '(no signed-in user)' },
      ],
    })
  })

  test('an exact match is distance 0 with no differences', () => {
    expect(full().match(subject({ operationId: 'saveItems', body: { a: 1, b: 2 }, headers: { 'x-a': 'a' }, user: 'u@x.test' }))).toEqual({
      matched: true,
      distance: 0,
      differences: [],
    })
    expect(compiled({}).match(subject({}))).toEqual({ matched: true, distance: 0, differences: [] })
  })

  test('a header absent, and a header sent twice read as one list', () => {
    const pattern = compiled({ match: { headers: { 'X-A': 'a', 'X-B': { $contains: 'q2' } } } })
    expect(pattern.match(subject({ headers: { 'x-b': ['q1', 'q2'] } }))).toEqual({
      matched: false,
      distance: 0.5,
      differences: [{ pointer: '/headers/x-a', expected: '"a"', actual: 'absent' }],
    })
    expect(compiled({ match: { headers: { 'X-B': 'q1, q2' } } }).test(subject({ headers: { 'x-b': ['q1', 'q2'] } }))).toBe(true)
  })

  test('a secret header matches only as its redacted text, and is shown so', () => {
    const pattern = compiled({ match: { headers: { SessionToken: { $regex: '^abc' } } } })
    expect(pattern.match(subject({ headers: { sessiontoken: 'abcdef' }, redacted: secrets }))).toEqual({
      matched: false,
      distance: 1,
      differences: [{ pointer: '/headers/sessiontoken', expected: 'a text matching /^abc/', actual: '"[redacted]"' }],
    })
    expect(pattern.test(subject({ headers: { sessiontoken: 'abcdef' } }))).toBe(true)
    expect(compiled({ match: { headers: { SessionToken: '[redacted]' } } }).test(subject({ headers: { sessiontoken: 'abcdef' }, redacted: secrets }))).toBe(
      true,
    )
  })

  test('a secret body member: redacted unless empty, every difference reported', () => {
    expect(compiled({ match: { body: { Password: 'p', Other: 'x' } } }).match(subject({ body: { Password: 'p', Other: 'y' }, redacted: secrets }))).toEqual({
      matched: false,
      distance: 1,
      differences: [
        { pointer: '/body/Password', expected: '"p"', actual: '"[redacted]"' },
        { pointer: '/body/Other', expected: '"x"', actual: '"y"' },
      ],
    })
    expect(compiled({ match: { body: { Password: '' } } }).test(subject({ body: { Password: '' }, redacted: secrets }))).toBe(true)
    expect(compiled({ match: { body: { Password: null } } }).test(subject({ body: { Password: null }, redacted: secrets }))).toBe(true)
  })

  test('an array element that differs is reported against the closest element left', () => {
    expect(compiled({ match: { body: [{ a: 1 }, { a: 2 }] } }).match(subject({ body: [{ a: 1 }, { a: 3 }] }))).toEqual({
      matched: false,
      distance: 0.5,
      differences: [{ pointer: '/body/1/a', expected: '2', actual: '3' }],
    })
  })

  test('an array element with nothing left to take', () => {
    expect(compiled({ match: { body: [{ a: 1 }, { a: 1 }] } }).match(subject({ body: [{ a: 1 }] }))).toEqual({
      matched: false,
      distance: 0.5,
      differences: [{ pointer: '/body/-', expected: 'one more element: an object', actual: '1 element(s), each taken by another part of the pattern' }],
    })
  })

  test.each([
    ['an array where a scalar is', { a: [] }, { a: 5 }, { pointer: '/body/a', expected: 'an array', actual: '5' }],
    ['an object where an array is', { a: {} }, { a: [1] }, { pointer: '/body/a', expected: 'an object', actual: '[1]' }],
    ['a long text, cut at 80 characters', { a: 'x' }, { a: 'y'.repeat(100) }, { pointer: '/body/a', expected: '"x"', actual: `"${'y'.repeat(77)}"...` }],
    ['a long array, counted', { a: 1 }, { a: Array.from({ length: 21 }, () => 1) }, { pointer: '/body/a', expected: '1', actual: '[21 elements]' }],
    [
      'a short array, written out',
      { a: 1 },
      { a: Array.from({ length: 20 }, () => 1) },
      { pointer: '/body/a', expected: '1', actual: `[${Array.from({ length: 20 }, () => 1).join(',')}]` },
    ],
    [
      'a large object, counted',
      { a: 1 },
      { a: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 1])) },
      { pointer: '/body/a', expected: '1', actual: '{21 members}' },
    ],
    ['a long object, cut', { a: 1 }, { a: { b: 'c'.repeat(90) } }, { pointer: '/body/a', expected: '1', actual: `{"b":"${'c'.repeat(71)}...` }],
    ['a $regex missed', { a: { $regex: '^x+$' } }, { a: 'y' }, { pointer: '/body/a', expected: 'a text matching /^x+$/', actual: '"y"' }],
    ['a $contains absent', { a: { $contains: 'x' } }, {}, { pointer: '/body/a', expected: 'a text containing "x"', actual: 'absent' }],
    ['a $contains on a number', { a: { $contains: '1' } }, { a: 1 }, { pointer: '/body/a', expected: 'a text containing "1"', actual: '1' }],
    ['a body that is not an object', { a: 1 }, 'text', { pointer: '/body', expected: 'an object', actual: '"text"' }],
    ['null for an object', { a: 1 }, null, { pointer: '/body', expected: 'an object', actual: 'null' }],
  ])('%s', (_what, pattern, body, difference) => {
    expect(compiled({ match: { body: pattern } }).match(subject({ body })).differences).toEqual([difference])
  })

  test('an empty object or array pattern takes any object or array', () => {
    expect(compiled({ match: { body: { a: {}, b: [] } } }).test(subject({ body: { a: { x: 1 }, b: [1, 2] } }))).toBe(true)
  })

  test("a member inherited is not the body's: only own members match", () => {
    expect(compiled({ match: { body: { constructor: { $contains: 'Object' } } } }).test(subject({ body: {} }))).toBe(false)
  })
})

describe('a match asked only for a yes or no', () => {
  const pattern = () => compiled({ operationId: 'saveItems', match: { body: { a: 1, b: 2 }, user: 'u@x.test' } })

  test('another operation or user settles it at once, with no differences', () => {
    expect(pattern().matchSliced(subject({ operationId: 'queryItems', body: { a: 1, b: 2 }, user: 'u@x.test' }), { report: false })).toEqual({
      matched: false,
      distance: 1,
      differences: [],
    })
    expect(pattern().matchSliced(subject({ operationId: 'saveItems', body: { a: 1, b: 2 }, user: 'v@x.test' }), { report: false })).toEqual({
      matched: false,
      distance: 1,
      differences: [],
    })
    expect(pattern().test(subject({ operationId: 'saveItems', body: { a: 1, b: 2 }, user: 'u@x.test' }))).toBe(true)
  })

  test('the first member that differs settles it, with no differences; a report lists them', () => {
    const request = subject({ operationId: 'saveItems', body: { a: 0, b: 0 }, user: 'u@x.test' })
    expect(pattern().matchSliced(request, { report: false })).toEqual({ matched: false, distance: 1, differences: [] })
    expect(pattern().matchSliced(request)).toEqual({
      matched: false,
      distance: 1 / 3,
      differences: [
        { pointer: '/body/a', expected: '1', actual: '0' },
        { pointer: '/body/b', expected: '2', actual: '0' },
      ],
    })
  })

  test('headers that differ settle it too', () => {
    const headed = compiled({ match: { headers: { A: 'a', B: 'b' } } })
    expect(headed.matchSliced(subject({ headers: { a: 'x', b: 'b' } }), { report: false })).toEqual({ matched: false, distance: 1, differences: [] })
    expect(headed.match(subject({ headers: { a: 'x', b: 'b' } })).distance).toBe(0.5)
  })

  test('a large request with a slice of 0 ms answers later, with the same result as at once', async () => {
    const rows = Array.from({ length: 3_000 }, (_, i) => ({ Id: i }))
    const wide = compiled({ match: { body: { Rows: [{ Id: 2_999 }, { Id: -1 }] } } })
    const later = wide.matchSliced(subject({ body: { Rows: rows } }), { sliceMs: 0 })
    expect(later).toBeInstanceOf(Promise)
    expect(await later).toEqual(wide.match(subject({ body: { Rows: rows } })))
    const soon = wide.matchSliced(subject({ body: { Rows: rows.slice(0, 10) } }), { sliceMs: 0 })
    expect(soon).not.toBeInstanceOf(Promise)
  })

  test('a large request within one long slice answers at once', () => {
    const rows = Array.from({ length: 3_000 }, (_, i) => ({ Id: i }))
    const wide = compiled({ match: { body: { Rows: [{ Id: 2_999 }] } } })
    expect(wide.matchSliced(subject({ body: { Rows: rows } }), { sliceMs: 60_000 })).toEqual({ matched: true, distance: 0, differences: [] })
  })
})

describe('the edges of a report', () => {
  test('a text of 80 characters and one of 81 are both shown cut, each as it is cut', () => {
    const pattern = compiled({ match: { body: { a: 'x' } } })
    expect(pattern.match(subject({ body: { a: 'y'.repeat(80) } })).differences[0]?.actual).toBe(`"${'y'.repeat(76)}...`)
    expect(pattern.match(subject({ body: { a: 'y'.repeat(81) } })).differences[0]?.actual).toBe(`"${'y'.repeat(77)}"...`)
    expect(pattern.match(subject({ body: { a: 'y'.repeat(10) } })).differences[0]?.actual).toBe(`"${'y'.repeat(10)}"`)
  })

  test('an object of 20 members is written out (and cut), one of 21 is counted', () => {
    const twenty = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, 1]))
    expect(compiled({ match: { body: { a: 1 } } }).match(subject({ body: { a: twenty } })).differences[0]?.actual).toBe(
      `${JSON.stringify(twenty).slice(0, 77)}...`,
    )
  })

  test('a short object is written out whole', () => {
    expect(compiled({ match: { body: { a: 1 } } }).match(subject({ body: { a: { b: 2 } } })).differences[0]?.actual).toBe('{"b":2}')
  })

  test('member names with / and ~ are escaped in pointers', () => {
    expect(compiled({ match: { body: { 'a/b': { 'c~d': 1 } } } }).match(subject({ body: { 'a/b': { 'c~d': 2 } } })).differences).toEqual([
      { pointer: '/body/a~1b/c~0d', expected: '1', actual: '2' },
    ])
  })

  test('an array element that fits nowhere is reported against the element closest to it, the first of equals', () => {
    const pattern = compiled({ match: { body: [{ a: 1, b: 2 }] } })
    expect(
      pattern.match(
        subject({
          body: [
            { a: 9, b: 9 },
            { a: 1, b: 9 },
          ],
        }),
      ).differences,
    ).toEqual([{ pointer: '/body/1/b', expected: '2', actual: '9' }])
    expect(
      pattern.match(
        subject({
          body: [
            { a: 1, b: 9 },
            { a: 1, b: 8 },
          ],
        }),
      ).differences,
    ).toEqual([{ pointer: '/body/0/b', expected: '2', actual: '9' }])
  })

  test('an array element that shares nothing with any element is still reported against one', () => {
    expect(compiled({ match: { body: [{ a: 1 }] } }).match(subject({ body: [{ b: 2 }] })).differences).toEqual([
      { pointer: '/body/0/a', expected: '1', actual: 'absent' },
    ])
  })

  test('what the journal did not keep never matches, even when the operation does', () => {
    expect(compiled({ operationId: 'queryItems', match: { body: { a: 1 } } }).test(subject({ bodyNote: 'not kept' }))).toBe(false)
    expect(compiled({ operationId: 'queryItems', match: { headers: { A: 'a' } } }).test(subject({ headersNote: 'not kept' }))).toBe(false)
  })

  test(`objects nest ${MAX_DEPTH} levels at most, as arrays do`, () => {
    const deep = (depth: number): unknown => {
      let value: unknown = 1
      for (let i = 0; i < depth; i++) value = { a: value }
      return value
    }
    expect(compileRequestPattern({ match: { body: deep(MAX_DEPTH) } }).ok).toBe(true)
    expect(refused({ match: { body: deep(MAX_DEPTH + 1) } })).toEqual([
      { pointer: `/match/body${'/a'.repeat(MAX_DEPTH + 1)}`, keyword: 'maxDepth', message: `nests deeper than ${MAX_DEPTH} levels` },
    ])
  })

  test(`texts of ${MAX_TEXT} characters are taken, as a value and in $contains`, () => {
    const text = 'x'.repeat(MAX_TEXT)
    expect(compiled({ match: { body: { a: text, b: { $contains: text } } } }).test(subject({ body: { a: text, b: `${text}!` } }))).toBe(true)
  })

  test(`an array is looked at up to its ${MAX_ARRAY_SCAN}th element`, () => {
    const values = Array.from({ length: MAX_ARRAY_SCAN + 1 }, () => 0)
    const pattern = compiled({ match: { body: [7] } })
    values[MAX_ARRAY_SCAN] = 7
    expect(pattern.test(subject({ body: values }))).toBe(false)
    values[MAX_ARRAY_SCAN - 1] = 7
    expect(pattern.test(subject({ body: values }))).toBe(true)
  })
})

describe('where a match gives other clients a turn (a slice of 0 ms ends at the first chance)', () => {
  // PAUSE_EVERY in pattern.ts: 2,048 pairs judged, or 2,048 × 64 characters run through $contains or $regex.
  const PAUSE = 2_048

  test('a text of 2,048 × 64 characters gives one; a character less gives none', async () => {
    const pattern = compiled({ match: { body: { q: { $contains: 'needle' } } } })
    const at = pattern.matchSliced(subject({ body: { q: 'a'.repeat(PAUSE * 64) } }), { sliceMs: 0, report: false })
    expect(at).toBeInstanceOf(Promise)
    expect(await at).toEqual({ matched: false, distance: 1, differences: [] })
    expect(pattern.matchSliced(subject({ body: { q: 'a'.repeat(PAUSE * 64 - 1) } }), { sliceMs: 0, report: false })).not.toBeInstanceOf(Promise)
  })

  test('a $regex reads a long text a piece of 2,048 × 64 characters at a time, with a chance before each piece', async () => {
    const pattern = compiled({ match: { body: { q: { $regex: 'needle' } } } })
    let turns = 0
    const count = (): void => {
      turns += 1
      if (turns < 100) setImmediate(count)
    }
    setImmediate(count)
    const at = pattern.matchSliced(subject({ body: { q: 'a'.repeat(PAUSE * 64 * 4) } }), { sliceMs: 0, report: false })
    expect(at).toBeInstanceOf(Promise)
    expect(await at).toEqual({ matched: false, distance: 1, differences: [] })
    // Four pieces, four pauses (a pause before the whole text alone would give one turn).
    expect(turns).toBeGreaterThanOrEqual(4)
  })

  test('2,048 array elements judged give one; 2,047 give none', async () => {
    const pattern = compiled({ match: { body: [5] } })
    const at = pattern.matchSliced(subject({ body: Array.from({ length: PAUSE }, () => 0) }), { sliceMs: 0, report: false })
    expect(at).toBeInstanceOf(Promise)
    expect(await at).toEqual({ matched: false, distance: 1, differences: [] })
    expect(pattern.matchSliced(subject({ body: Array.from({ length: PAUSE - 1 }, () => 0) }), { sliceMs: 0, report: false })).not.toBeInstanceOf(Promise)
  })
})
