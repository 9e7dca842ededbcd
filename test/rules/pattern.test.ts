/**
 * The pattern language's bounds and matching (src/rules/pattern.ts), without HTTP: every limit is
 * refused when the pattern is compiled, naming it; an array pattern is a bipartite matching (held
 * to a brute-force search); secrets match only as shown; a large match is done in slices.
 */
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  compileRequestPattern,
  MAX_ARRAY_ELEMENTS,
  MAX_DEPTH,
  MAX_NODES,
  MAX_PATTERN_CELLS,
  MAX_REGEX_SUBJECT,
  MAX_TEXT,
  type RequestMatch,
  type RequestSubject,
} from '../../src/rules/pattern.ts'
import { compileLinearRegex } from '../../src/rules/regex.ts'

function subject(body: unknown, extra: Partial<RequestSubject> = {}): RequestSubject {
  return { operationId: 'saveItems', body, headers: {}, user: 'admin@acme.test', ...extra }
}

function compile(match: RequestMatch) {
  const compiled = compileRequestPattern({ match })
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.violations))
  return compiled.pattern
}

/** An expression of many character classes: a large table, quickly built. */
const WIDE = Array.from({ length: 60 }, (_, i) => `[\\x{${(0x100 + 2 * i).toString(16)}}\\x{${(0x101 + 2 * i).toString(16)}}]`).join('')
/** Its table's cells; computed in the tests that need it, not when the file is loaded (code a file runs at load, a mutation run counts against every test). */
const wideCells = (): number => ((compiled) => (compiled.ok ? compiled.regex.cells : 0))(compileLinearRegex(WIDE))

const nested = (depth: number): unknown => (depth === 0 ? 'x' : { a: nested(depth - 1) })

describe('the pattern limits, refused when compiled', () => {
  test.each([
    ['a pattern deeper than the limit', { body: nested(MAX_DEPTH + 2) }, 'maxDepth'],
    ['more values than the limit', { body: { a: Array.from({ length: 50 }, () => Array.from({ length: 30 }, (_, i) => i)) } }, 'maxNodes'],
    ['an array wider than the limit', { body: { Rows: Array.from({ length: MAX_ARRAY_ELEMENTS + 1 }, () => 1) } }, 'maxItems'],
    ['a text longer than the limit', { body: { Customer: 'x'.repeat(MAX_TEXT + 1) } }, 'maxLength'],
    ['a $contains longer than the limit', { body: { Customer: { $contains: 'x'.repeat(MAX_TEXT + 1) } } }, 'maxLength'],
    ['expressions that take more work in all to build than the limit', { body: { a: [{ $regex: '[a-z]{490}' }, { $regex: '[a-y]{490}' }] } }, 'regex'],
  ])('%s', (_name, match, keyword) => {
    const compiled = compileRequestPattern({ match: match as RequestMatch })
    expect(compiled.ok).toBe(false)
    if (!compiled.ok) expect(compiled.violations.map((v) => v.keyword)).toContain(keyword)
  })

  test('expressions whose tables are larger in all than the limit', () => {
    const compiled = compileRequestPattern({
      match: { body: { a: Array.from({ length: Math.ceil(MAX_PATTERN_CELLS / wideCells()) }, () => ({ $regex: WIDE })) } },
    })
    expect(compiled.ok).toBe(false)
    if (!compiled.ok) expect(compiled.violations.map((v) => v.keyword)).toContain('maxCells')
  })

  test('takes patterns at the limits', () => {
    expect(compileRequestPattern({ match: { body: nested(MAX_DEPTH) } }).ok).toBe(true)
    expect(compileRequestPattern({ match: { body: { Rows: Array.from({ length: MAX_ARRAY_ELEMENTS }, (_, i) => i) } } }).ok).toBe(true)
    expect(
      compileRequestPattern({ match: { body: { a: Array.from({ length: 10 }, () => Array.from({ length: MAX_NODES / 10 - 3 }, (_, i) => i)) } } }).ok,
    ).toBe(true)
    expect(compileRequestPattern({ match: { body: { Customer: 'x'.repeat(MAX_TEXT) } } }).ok).toBe(true)
    expect(
      compileRequestPattern({ match: { body: { a: Array.from({ length: Math.floor(MAX_PATTERN_CELLS / wideCells()) }, () => ({ $regex: WIDE })) } } }).ok,
    ).toBe(true)
    expect(compileRequestPattern({ match: { body: { a: { $regex: '[a-z]{490}' } } } }).ok).toBe(true)
  })

  test('a text longer than a $regex or $contains is run on does not match', () => {
    const long = `${'x'.repeat(MAX_REGEX_SUBJECT)}!`
    expect(compile({ body: { q: { $regex: '!$' } } }).test(subject({ q: long }))).toBe(false)
    expect(compile({ body: { q: { $contains: '!' } } }).test(subject({ q: long }))).toBe(false)
    expect(compile({ body: { q: { $regex: '!$' } } }).test(subject({ q: long.slice(1) }))).toBe(true)
  })
})

/** Whether each pattern value can take a distinct value of `values` it equals (brute force over assignments). */
function assignable(wanted: number[], values: number[]): boolean {
  const used = new Array<boolean>(values.length).fill(false)
  const place = (i: number): boolean => {
    if (i === wanted.length) return true
    for (let j = 0; j < values.length; j++) {
      if (used[j] || values[j] !== wanted[i]) continue
      used[j] = true
      if (place(i + 1)) return true
      used[j] = false
    }
    return false
  }
  return place(0)
}

describe('array patterns', () => {
  test('match exactly when each element takes a distinct element (fixed seed)', () => {
    const small = fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 7 })
    fc.assert(
      fc.property(small, small, (wanted, values) => {
        const pattern = compile({ body: { v: wanted } })
        const expected = assignable(wanted, values)
        expect(pattern.test(subject({ v: values }))).toBe(expected)
        expect(pattern.match(subject({ v: values })).matched).toBe(expected)
      }),
    )
  })

  test('find the assignment a greedy pass misses (an augmenting path)', () => {
    // { a } first takes the element that fits both; the matching must move it to let { a, b } in.
    const pattern = compile({ body: { Rows: [{ a: 1 }, { a: 1, b: 2 }] } })
    expect(pattern.test(subject({ Rows: [{ a: 1, b: 2 }, { a: 1 }] }))).toBe(true)
    expect(pattern.test(subject({ Rows: [{ a: 1, b: 2 }] }))).toBe(false)
  })

  test('a wide pattern against many rows is matched in slices, yielding to other work between them', async () => {
    const rows = Array.from({ length: 3_000 }, (_, i) => ({ Row: { Customer: `Customer ${i}`, Amount: i } }))
    const wanted = Array.from({ length: MAX_ARRAY_ELEMENTS }, (_, i) => ({ Row: { Customer: { $regex: `^Customer ${2_999 - i}$` } } }))
    const pattern = compile({ body: { Rows: wanted } })
    // Slices of no length: a pause at every point a slice may end, whatever the machine's speed.
    let turns = 0
    const count = (): void => {
      turns += 1
      if (turns < 1_000) setImmediate(count)
    }
    setImmediate(count)
    const pending = pattern.matchSliced(subject({ Rows: rows }), { sliceMs: 0 })
    expect(pending).toBeInstanceOf(Promise)
    const result = await pending
    expect(result.matched).toBe(true)
    // 300,000 pairs judged, a pause every 2,048: other work ran between the slices.
    expect(turns).toBeGreaterThan(100)
    expect(pattern.match(subject({ Rows: rows })).matched).toBe(true)
    expect(pattern.test(subject({ Rows: rows.slice(0, -1) }))).toBe(false)
  })
})

describe('secrets', () => {
  const redacted = { isSecret: (name: string) => ['sessiontoken', 'password'].includes(name.toLowerCase()), text: '[redacted]' }

  test('match only as their redacted text where the subject is shown redacted', () => {
    const guess = compile({ headers: { SessionToken: { $regex: '^tok' } } })
    const live = subject(null, { headers: { sessiontoken: 'token-1' } })
    expect(guess.test(live)).toBe(true)
    expect(guess.test({ ...live, redacted })).toBe(false)
    expect(compile({ headers: { SessionToken: '[redacted]' } }).test({ ...live, redacted })).toBe(true)
    const body = subject({ userName: 'a@b.c', password: 'secret-1' }, { redacted })
    expect(compile({ body: { password: { $contains: 'secret' } } }).test(body)).toBe(false)
    expect(compile({ body: { password: '[redacted]', userName: 'a@b.c' } }).test(body)).toBe(true)
    const miss = compile({ body: { password: 'secret-2' } }).match(body)
    expect(miss.differences).toEqual([{ pointer: '/body/password', expected: '"secret-2"', actual: '"[redacted]"' }])
  })
})
