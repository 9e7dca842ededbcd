import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { compileRequestPattern, type RequestMatch, type RequestSubject } from '../../src/rules/pattern.ts'

const SEED = 20261126

function subject(body: unknown, extra: Partial<RequestSubject> = {}): RequestSubject {
  return { operationId: 'saveItems', body, headers: {}, user: 'admin@acme.test', ...extra }
}

function compile(match: RequestMatch, operationId?: string) {
  const compiled = compileRequestPattern({ operationId, match })
  if (!compiled.ok) throw new Error(JSON.stringify(compiled.violations))
  return compiled.pattern
}

const SAVE = {
  Rows: [
    { Row: { Id: -1, Customer: 'Initech', Amount: 10 }, Details: [] },
    { Row: { Id: -2, Customer: 'Globex', Amount: 20 }, Details: [] },
  ],
}

describe('the pattern language', () => {
  test.each([
    ['an object by its members only', { Rows: [{ Row: { Customer: 'Globex' } }] }, true],
    ['a scalar by equality', { Rows: [{ Row: { Customer: 'Hooli' } }] }, false],
    ['array elements against distinct elements', { Rows: [{ Row: { Amount: 10 } }, { Row: { Amount: 20 } }] }, true],
    ['two pattern elements cannot share one element', { Rows: [{ Row: { Customer: 'Initech' } }, { Row: { Amount: 10 } }] }, false],
    ['$contains in a text', { Rows: [{ Row: { Customer: { $contains: 'lob' } } }] }, true],
    ['$regex in a text', { Rows: [{ Row: { Customer: { $regex: '^Ini' } } }] }, true],
    ['$regex only on texts', { Rows: [{ Row: { Amount: { $regex: '10' } } }] }, false],
    ['a member the request lacks', { Rows: [{ Row: { Status: 'Open' } }] }, false],
    ['an empty array asks for an array', { Rows: [] }, true],
  ])('%s', (_name, body, expected) => {
    expect(compile({ body }).match(subject(SAVE)).matched).toBe(expected)
  })

  test('the Get Items query text is matched as sent', () => {
    const pattern = compile({ body: { query: { $contains: "Status eq 'Open'" } } }, 'queryItems')
    expect(pattern.match(subject({ query: "$top=5&$filter=Status eq 'Open'" }, { operationId: 'queryItems' })).matched).toBe(true)
    expect(pattern.match(subject({ query: '$top=5' }, { operationId: 'queryItems' })).matched).toBe(false)
  })

  test('headers by case-insensitive name, the user by e-mail', () => {
    const pattern = compile({ headers: { SessionToken: { $regex: '^tok' } }, user: 'Admin@acme.test' })
    expect(pattern.match(subject(null, { headers: { sessiontoken: 'token-1' } })).matched).toBe(true)
    const miss = pattern.match(subject(null, { headers: {}, user: 'viewer@acme.test' }))
    expect(miss.differences.map((d) => d.pointer)).toEqual(['/headers/sessiontoken', '/user'])
  })

  test('a near miss names the member that differs, at the index of the closest element', () => {
    const result = compile({ body: { Rows: [{ Row: { Customer: 'Globex', Amount: 25 } }] } }).match(subject(SAVE))
    expect(result.matched).toBe(false)
    expect(result.differences).toEqual([{ pointer: '/body/Rows/1/Row/Amount', expected: '25', actual: '20' }])
    expect(result.distance).toBeCloseTo(0.5)
  })

  test('another operation is a far miss however well the body fits', () => {
    const pattern = compile({ body: { Rows: [{ Row: { Customer: 'Globex' } }] } }, 'deleteItems')
    const result = pattern.match(subject(SAVE))
    expect(result.matched).toBe(false)
    expect(result.distance).toBe(0.5)
    expect(result.differences[0]).toEqual({ pointer: '/operationId', expected: 'deleteItems', actual: 'saveItems' })
  })

  test.each([
    ['an unknown operator', { Customer: { $regexp: 'x' } }, '/match/body/Customer'],
    ['an operator beside members', { Customer: { $contains: 'x', other: 1 } }, '/match/body/Customer'],
    ['a regex that does not compile', { Customer: { $regex: '(' } }, '/match/body/Customer/$regex'],
    ['a regex that needs backtracking (a back-reference)', { Customer: { $regex: '(a)\\1' } }, '/match/body/Customer/$regex'],
    ['an object asked of a header', undefined, '/match/headers/X-Run'],
  ])('refused when added: %s', (_name, body, pointer) => {
    const compiled = compileRequestPattern({ match: body === undefined ? { headers: { 'X-Run': { a: 1 } } } : { body } })
    expect(compiled.ok).toBe(false)
    if (!compiled.ok) expect(compiled.violations.map((v) => v.pointer)).toEqual([pointer])
  })

  test('a value matches a pattern made of itself, and the distance is 0 exactly then (fixed seed)', () => {
    const json = fc.jsonValue({ maxDepth: 4 }).filter((value) => JSON.stringify(value).indexOf('"$') === -1)
    fc.assert(
      fc.property(json, json, (pattern, other) => {
        const compiled = compile({ body: pattern })
        const self = compiled.match(subject(pattern))
        expect(self).toEqual({ matched: true, distance: 0, differences: [] })
        const result = compiled.match(subject(other))
        expect(result.matched).toBe(result.distance === 0)
        expect(result.matched).toBe(result.differences.length === 0)
      }),
      { seed: SEED, numRuns: 300 },
    )
  })
})
