import { describe, expect, it } from 'vitest'
import type { Violation } from '../../src/errors.ts'
import {
  LISTED_VIOLATIONS,
  ViolationTally,
  describeViolations,
  dropEchoes,
  isMisspelling,
  summarizeViolations,
  toViolations,
  violationText,
  violationsProblem,
} from '../../src/document/violations.ts'
import { validatorsFor } from '../../src/document/validators.ts'
import { listOperations } from '../../src/document/reader.ts'
import { buildDocument } from '../../spec/index.ts'

/** The one violation pipeline: echoes dropped, the same fault in many elements merged, ranked, capped, all in linear time. */

const v = (pointer: string, keyword: string, message: string): Violation => ({ pointer, keyword, message })

describe("toViolations: Ajv's errors as violations", () => {
  it('points at the request part, names a missing or unnamed member, and says the values a const or enum wants', () => {
    const found = toViolations('body', [
      {
        instancePath: '/Rows/0',
        schemaPath: '#/required',
        keyword: 'required',
        params: { missingProperty: 'Row' },
        message: "must have required property 'Row'",
      },
      {
        instancePath: '',
        schemaPath: '#/additionalProperties',
        keyword: 'additionalProperties',
        params: { additionalProperty: 'Extra' },
        message: 'must NOT have additional properties',
      },
      { instancePath: '/s', schemaPath: '#/enum', keyword: 'enum', params: { allowedValues: ['a', 1] }, message: 'must be equal to one of the allowed values' },
      { instancePath: '/c', schemaPath: '#/const', keyword: 'const', params: { allowedValue: null }, message: 'must be equal to constant' },
      { instancePath: '/c', schemaPath: '#/const', keyword: 'const', params: { allowedValue: null }, message: 'must be equal to constant' },
      { instancePath: '/n', schemaPath: '#/x', keyword: 'x', params: {} },
    ])
    expect(found).toEqual([
      v('/body/Rows/0/Row', 'required', "must have required property 'Row'"),
      v('/body/Extra', 'additionalProperties', 'must NOT have additional properties'),
      v('/body/s', 'enum', 'must be one of "a", 1'),
      v('/body/c', 'const', 'must be null'),
      v('/body/n', 'x', 'x'),
    ])
    expect(toViolations('query', null)).toEqual([])
    expect(toViolations('query', undefined)).toEqual([])
  })
})

describe('dropEchoes: one finding per wrong member', () => {
  it('drops a oneOf, anyOf or type violation of a value that has a violation inside it', () => {
    const found = [
      v('/body', 'type', 'must be object'),
      v('/body/0/Id', 'type', 'must be integer'),
      v('/body', 'oneOf', 'must match exactly one schema in oneOf'),
      v('/body/x', 'anyOf', 'must match a schema in anyOf'),
      v('/body/x/y', 'minimum', 'must be >= 1'),
    ]
    expect(dropEchoes(found)).toEqual([found[1], found[4]])
  })

  it("keeps a type or oneOf violation with nothing inside it, and what is not an alternative's even with something inside", () => {
    expect(dropEchoes([v('/body', 'type', 'must be object')])).toEqual([v('/body', 'type', 'must be object')])
    // A required member missing inside a value whose other member is wrong: both are mistakes.
    const found = [v('/body/Rows/0', 'required', "must have required property 'Row'"), v('/body/Rows/0/Details', 'type', 'must be array')]
    expect(dropEchoes(found)).toEqual(found)
    // A sibling's pointer that only starts with the same letters is not inside it.
    const siblings = [v('/body/a', 'type', 'must be string'), v('/body/ab/c', 'type', 'must be integer')]
    expect(dropEchoes(siblings)).toEqual(siblings)
  })

  it('keeps the most precise of several violations of one value: const or enum, then type, then content, oneOf last', () => {
    expect(dropEchoes([v('/body/valueType', 'type', 'must be integer'), v('/body/valueType', 'const', 'must be 1')])).toEqual([
      v('/body/valueType', 'const', 'must be 1'),
    ])
    expect(dropEchoes([v('/body/s', 'enum', 'must be one of "a", "b"'), v('/body/s', 'type', 'must be string')])).toEqual([
      v('/body/s', 'enum', 'must be one of "a", "b"'),
    ])
    expect(dropEchoes([v('/body/s', 'maxLength', 'must NOT have more than 3 characters'), v('/body/s', 'pattern', 'must match pattern "^a"')])).toEqual([
      v('/body/s', 'maxLength', 'must NOT have more than 3 characters'),
    ])
    expect(dropEchoes([v('/body/s', 'oneOf', 'must match exactly one schema in oneOf'), v('/body/s', 'pattern', 'must match pattern "^a"')])).toEqual([
      v('/body/s', 'pattern', 'must match pattern "^a"'),
    ])
    expect(dropEchoes([v('/body/s', 'maxLength', 'must NOT have more than 3 characters'), v('/body/s', 'type', 'must be string')])).toEqual([
      v('/body/s', 'type', 'must be string'),
    ])
    expect(dropEchoes([v('/body/s', 'anyOf', 'must match a schema in anyOf'), v('/body/s', 'pattern', 'must match pattern "^a"')])).toEqual([
      v('/body/s', 'pattern', 'must match pattern "^a"'),
    ])
  })

  it('says the types of several alternatives once', () => {
    const found = [
      v('/body/values', 'type', 'must be integer'),
      v('/body/values', 'type', 'must be array,null'),
      v('/body/values', 'oneOf', 'must match exactly one schema in oneOf'),
    ]
    expect(dropEchoes(found)).toEqual([v('/body/values', 'type', 'must be integer, array or null')])
    // Types that are not Ajv's words are kept as they are, and so is a text that only ends like them.
    expect(dropEchoes([v('/body/a', 'type', 'the row must be integer'), v('/body/a', 'type', 'must be string')])).toEqual([
      v('/body/a', 'type', 'the row must be integer'),
    ])
    expect(dropEchoes([v('/body/a', 'type', 'must be a row Id'), v('/body/a', 'type', 'must be integer')])).toEqual([v('/body/a', 'type', 'must be a row Id')])
  })

  it("gives generateRowLink's wrong values one violation per member, from the document's own validator", () => {
    const document = buildDocument()
    const found = validatorsFor(document).violationsAt('/components/schemas/RowLinkRequest', { relationKey: null, values: ['1'], valueType: 'Id' })
    expect(found.length).toBeGreaterThan(2)
    const kept = dropEchoes(found)
    expect(kept.map((x) => x.pointer).sort()).toEqual(['/body/valueType', '/body/values/0'])
    expect(kept.find((x) => x.pointer === '/body/values/0')?.message).toBe('must be integer')
  })
})

describe('ViolationTally: the same fault in many elements is one violation', () => {
  it('merges a keyword and message at the same place of many array elements into a * pointer with a count and the first pointer', () => {
    const tally = new ViolationTally()
    tally.add([v('/body/Rows/0/Row/Id', 'type', 'must be integer'), v('/body/Rows/0/Details', 'required', "must have required property 'Details'")])
    tally.add([v('/body/Rows/1/Row/Id', 'type', 'must be integer'), v('/body/Rows/12/Row/Id', 'type', 'must be integer')])
    expect(tally.summary().violations).toEqual([
      { pointer: '/body/Rows/*/Row/Id', keyword: 'type', message: 'must be integer', count: 3, first: '/body/Rows/0/Row/Id' },
      v('/body/Rows/0/Details', 'required', "must have required property 'Details'"),
    ])
  })

  it('merges an index at the end of a pointer too', () => {
    expect(summarizeViolations([v('/body/values/0', 'type', 'must be integer'), v('/body/values/3', 'type', 'must be integer')]).violations).toEqual([
      { pointer: '/body/values/*', keyword: 'type', message: 'must be integer', count: 2, first: '/body/values/0' },
    ])
  })

  it('keeps apart what differs in keyword, message or place, and never takes a negative Id or a name for an index', () => {
    const tally = new ViolationTally()
    tally.add([
      v('/body/Rows/0/Row/Id', 'type', 'must be integer'),
      v('/body/Rows/1/Row/Id', 'minimum', 'must be >= 1'),
      v('/body/Rows/2/Row/Amount', 'type', 'must be integer'),
      v('/body/ReturnData/PrimaryKeyData/-1/x', 'type', 'must be string'),
      v('/body/ReturnData/PrimaryKeyData/-2/x', 'type', 'must be string'),
      v('/body/a007/x', 'type', 'must be string'),
      v('/body/a008/x', 'type', 'must be string'),
    ])
    expect(tally.summary().violations.every((x) => x.count === undefined)).toBe(true)
    expect(tally.size).toBe(7)
  })

  it('keeps an index all the merged violations share, and counts every one of them in total', () => {
    const tally = new ViolationTally()
    tally.add([v('/body/0/Rows/1/Row/Id', 'type', 'must be integer'), v('/body/0/Rows/7/Row/Id', 'type', 'must be integer')])
    expect(tally.summary().violations[0]).toMatchObject({ pointer: '/body/0/Rows/*/Row/Id', count: 2, first: '/body/0/Rows/1/Row/Id' })
    tally.add([v('/body/3/Rows/7/Row/Id', 'type', 'must be integer'), v('/body/x', 'type', 'must be string')])
    expect(tally.summary().violations[0]).toMatchObject({ pointer: '/body/*/Rows/*/Row/Id', count: 3 })
    expect(tally.total).toBe(4)
    expect(tally.size).toBe(2)
  })

  it('adds counts already merged, and clear() forgets', () => {
    const tally = new ViolationTally()
    tally.add([{ pointer: '/body/Rows/*/Row/Id', keyword: 'type', message: 'must be integer', count: 5, first: '/body/Rows/3/Row/Id' }])
    tally.add([v('/body/Rows/9/Row/Id', 'type', 'must be integer')])
    expect(tally.summary().violations).toEqual([
      { pointer: '/body/Rows/*/Row/Id', keyword: 'type', message: 'must be integer', count: 6, first: '/body/Rows/3/Row/Id' },
    ])
    tally.clear()
    expect(tally.size).toBe(0)
    expect(tally.summary()).toEqual({ violations: [], unlisted: 0 })
  })

  it('ranks the telling ones first (a wrong value, then a missing member, then a failed oneOf), each rank in the order found', () => {
    const found = [
      v('/body/x', 'oneOf', 'must match exactly one schema in oneOf'),
      v('/body/a', 'required', "must have required property 'a'"),
      v('/body/b', 'type', 'must be string'),
      v('/body/y', 'anyOf', 'must match a schema in anyOf'),
      v('/body/c', 'maximum', 'must be <= 3'),
    ]
    expect(summarizeViolations(found).violations.map((x) => x.pointer)).toEqual(['/body/b', '/body/c', '/body/a', '/body/x', '/body/y'])
  })

  it(`lists at most ${LISTED_VIOLATIONS} and counts the rest after merging`, () => {
    const distinct = Array.from({ length: LISTED_VIOLATIONS + 50 }, (_, i) => v(`/body/m${i}`, 'type', 'must be string'))
    const rows = Array.from({ length: 1000 }, (_, i) => v(`/body/Rows/${i}/Row/Id`, 'type', 'must be integer'))
    const summary = summarizeViolations([...rows, ...distinct])
    expect(summary.violations).toHaveLength(LISTED_VIOLATIONS)
    expect(summary.unlisted).toBe(51)
    expect(summary.violations[0]).toMatchObject({ pointer: '/body/Rows/*/Row/Id', count: 1000 })
    expect(summarizeViolations(distinct.slice(0, LISTED_VIOLATIONS)).unlisted).toBe(0)
    expect(summarizeViolations(distinct, 3)).toMatchObject({ unlisted: LISTED_VIOLATIONS + 47 })
  })
})

describe('the problem and its sentence', () => {
  it('names the first three, how often each came, and how many more there are', () => {
    const rows = Array.from({ length: 40 }, (_, i) => v(`/body/Rows/${i}/Row/Id`, 'type', 'must be integer'))
    const others = Array.from({ length: 150 }, (_, i) => v(`/body/m${i}`, 'required', `must have required property 'm${i}'`))
    const summary = summarizeViolations([...others, ...rows])
    const text = describeViolations(summary)
    expect(text.startsWith('/body/Rows/*/Row/Id must be integer (40 times, first at /body/Rows/0/Row/Id); /body/m0 must have')).toBe(true)
    // 151 distinct: 3 named, 97 more listed, 51 unlisted.
    expect(text.endsWith('(and 148 more)')).toBe(true)
    expect(violationText(v('', 'fixture', 'must be an object'))).toBe('/ must be an object')
    expect(describeViolations([v('/body/a', 'required', 'r'), v('/body/b', 'type', 't')])).toBe('/body/b t; /body/a r')
  })

  it("is a 400 problem with the list, unlisted when cut, and the caller's sentence", () => {
    const many = Array.from({ length: LISTED_VIOLATIONS + 2 }, (_, i) => v(`/body/m${i}`, 'type', 'must be string'))
    const problem = violationsProblem(many, 'BAD_FIXTURE', { hint: 'h' }, (text) => `Refused: ${text}.`)
    const body = problem.toBody()
    expect(body).toMatchObject({ status: 400, code: 'BAD_FIXTURE', hint: 'h', unlisted: 2 })
    expect(body.violations).toHaveLength(LISTED_VIOLATIONS)
    expect(body.detail).toBe('Refused: /body/m0 must be string; /body/m1 must be string; /body/m2 must be string (and 99 more).')
    expect(violationsProblem([v('/body/a', 'type', 't')]).toBody()).not.toHaveProperty('unlisted')
  })
})

describe('linear in the violations', () => {
  /** Each row's violations as Ajv gives them for a row that fits nothing: wrong values, alternatives' echoes, a member missing, one unnamed member of its own. */
  const rowOf = (i: number): Violation[] => [
    v(`/body/Rows/${i}/Row`, 'type', 'must be object'),
    v(`/body/Rows/${i}/Row/Id`, 'type', 'must be integer'),
    v(`/body/Rows/${i}/Row/Id`, 'oneOf', 'must match exactly one schema in oneOf'),
    v(`/body/Rows/${i}/Details`, 'required', "must have required property 'Details'"),
    v(`/body/Rows/${i}/x${i}`, 'additionalProperties', 'must NOT have additional properties'),
  ]
  /** The pipeline as the mock runs it on a big body: echoes dropped per slice of 256 rows, every slice into one tally. */
  const bySlices = (rows: number) => () => {
    const tally = new ViolationTally()
    for (let from = 0; from < rows; from += 256) {
      const slice: Violation[] = []
      for (let i = from; i < Math.min(rows, from + 256); i++) for (const one of rowOf(i)) slice.push(one)
      tally.add(dropEchoes(slice))
    }
    return tally.summary()
  }

  // The HTTP tests and the bench hold a body to 10 times the time for 8 times the rows; in the test runner's
  // own process, beside other test files, allocation-heavy work is noisier, so this one tells linear (8) from
  // quadratic (64) with room for that noise: medians of five, taken in turns.
  it('takes 8 times the rows in far less than the 64 times a pairwise comparison took, merged and capped however many there are', () => {
    const n: number[] = []
    const n8: number[] = []
    const time = (work: () => unknown): number => {
      const start = performance.now()
      work()
      return performance.now() - start
    }
    bySlices(2_000)()
    bySlices(16_000)()
    for (let round = 0; round < 5; round++) {
      n.push(time(bySlices(2_000)))
      n8.push(time(bySlices(16_000)))
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[2] as number
    expect(median(n8) / Math.max(median(n), 0.5)).toBeLessThanOrEqual(20)
    const summary = bySlices(16_000)()
    expect(summary.violations[0]).toMatchObject({ pointer: '/body/Rows/*/Row/Id', count: 16_000 })
    expect(summary.violations).toHaveLength(LISTED_VIOLATIONS)
    expect(summary.unlisted).toBe(16_000 + 2 - LISTED_VIOLATIONS)
  })

  it("takes a list far past the stack's limit for a spread into a call", () => {
    const many = Array.from({ length: 300_000 }, (_, i) => v(`/body/Rows/${i}/Row/Id`, 'type', 'must be integer'))
    expect(summarizeViolations(many).violations).toEqual([
      { pointer: '/body/Rows/*/Row/Id', keyword: 'type', message: 'must be integer', count: 300_000, first: '/body/Rows/0/Row/Id' },
    ])
  })
})

describe('a misspelt member is named beside the missing one', () => {
  it('takes a name in another case, or one edit away (two for long names, a swap of neighbours one), for a misspelling', () => {
    expect(isMisspelling('expires_In', 'expires_in')).toBe(true)
    expect(isMisspelling('Detials', 'Details')).toBe(true)
    expect(isMisspelling('Detail', 'Details')).toBe(true)
    expect(isMisspelling('Dtails', 'Details')).toBe(true)
    expect(isMisspelling('access_tokn', 'access_token')).toBe(true)
    expect(isMisspelling('acess_tokn', 'access_token')).toBe(true)
    expect(isMisspelling('axess_tokn', 'access_token')).toBe(false)
    expect(isMisspelling('Rows', 'Row')).toBe(true)
    expect(isMisspelling('Id', 'IdRow')).toBe(false)
    expect(isMisspelling('Details', 'Details')).toBe(false)
    expect(isMisspelling('Amount', 'Status')).toBe(false)
    expect(isMisspelling(`${'a'.repeat(65)}b`, `${'a'.repeat(65)}c`)).toBe(false)
    expect(isMisspelling(`${'A'.repeat(65)}`, `${'a'.repeat(65)}`)).toBe(true)
  })

  it('says the missing member and the unnamed one as one violation', () => {
    const found = [
      v('/body/Rows/0/Details', 'required', "must have required property 'Details'"),
      v('/body/Rows/0/Detials', 'additionalProperties', 'must NOT have additional properties'),
      v('/body/Rows/0/Other', 'additionalProperties', 'must NOT have additional properties'),
    ]
    expect(dropEchoes(found)).toEqual([
      v('/body/Rows/0/Details', 'required', '`Detials` came where `Details` was expected'),
      v('/body/Rows/0/Other', 'additionalProperties', 'must NOT have additional properties'),
    ])
    // Another object's unnamed member is no misspelling of this one's.
    const apart = [
      v('/body/a/Details', 'required', "must have required property 'Details'"),
      v('/body/b/Detials', 'additionalProperties', 'must NOT have additional properties'),
    ]
    expect(dropEchoes(apart)).toEqual(apart)
  })

  it('finds the member that came in the body where the schema allows any other', () => {
    const found = [v('/body/expires_in', 'required', "must have required property 'expires_in'")]
    const body = { access_token: 't', expires_In: 3600, scope: '' }
    expect(dropEchoes(found, { value: body, prefix: '/body' })).toEqual([
      v('/body/expires_in', 'required', '`expires_In` came where `expires_in` was expected'),
    ])
    expect(dropEchoes(found, { value: { access_token: 't' }, prefix: '/body' })).toEqual(found)
    expect(dropEchoes(found)).toEqual(found)
    // Escaped names (RFC 6901) are found and dropped as the same member.
    const escaped = [
      v('/body/x/a~1b', 'required', "must have required property 'a/b'"),
      v('/body/x/A~1b', 'additionalProperties', 'must NOT have additional properties'),
    ]
    expect(dropEchoes(escaped)).toEqual([v('/body/x/a~1b', 'required', '`A/b` came where `a/b` was expected')])
  })

  it('compares a bounded number of names, whatever an object holds', () => {
    const unnamed = Array.from({ length: 20_000 }, (_, i) =>
      v(`/body/m${String(i).padStart(5, '0')}`, 'additionalProperties', 'must NOT have additional properties'),
    )
    const missing = Array.from({ length: 50 }, (_, i) => v(`/body/zz${String(i).padStart(4, '0')}`, 'required', 'must have required property'))
    const start = performance.now()
    const kept = dropEchoes([...unnamed, ...missing])
    expect(performance.now() - start).toBeLessThan(2_000)
    expect(kept).toHaveLength(20_050)
  })

  it("names a misspelt member of an answer in verify's check (the sign-in's token)", () => {
    const document = buildDocument()
    const validators = validatorsFor(document)
    const entry = listOperations(document).find((operation) => operation.operationId === 'signIn')
    if (entry === undefined) throw new Error('no signIn in the document')
    const found = validators.responseProblems(entry, {
      status: 200,
      contentType: 'application/json',
      body: { access_token: 't', expires_In: 3600, 'token-type': '', scope: '' },
    })
    expect(found).toHaveLength(1)
    expect(found[0]).toMatch(/^signIn 200: \/expires_in `expires_In` came where `expires_in` was expected \(schema .*required\)$/)
  })
})
