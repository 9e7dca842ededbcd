import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { decodePercent, MAX_IGNORED_OPTIONS, parseQueryString, parseQueryStringInSlices, queryReading } from '../../src/wire/query-string.ts'
import { parseQueryStringAsBefore } from './query-string-reference.ts'
import { runs } from '../helpers/property-runs.ts'
import type { ParsedQuery } from '../../src/store/model/types.ts'

const NONE: ParsedQuery = {
  top: null,
  skip: 0,
  orderBy: [],
  filter: null,
  relationKey: null,
  inlineCount: false,
  ignoredOptions: [],
  emptyRelationKey: false,
  quotedAmpersand: false,
}

describe('parseQueryString: what it understands', () => {
  it.each<[string, Partial<ParsedQuery>]>([
    ['', {}],
    ['$top=200', { top: 200 }],
    ['$top=0&$skip=40', { top: 0, skip: 40 }],
    ['$orderby=Customer', { orderBy: [{ field: 'Customer', direction: 'asc' }] }],
    ['$orderby=Amount desc', { orderBy: [{ field: 'Amount', direction: 'desc' }] }],
    [
      '$orderby=Status ASC, Amount DESC,Id',
      {
        orderBy: [
          { field: 'Status', direction: 'asc' },
          { field: 'Amount', direction: 'desc' },
          { field: 'Id', direction: 'asc' },
        ],
      },
    ],
    ["$filter=Customer eq 'Acme'", { filter: "Customer eq 'Acme'" }],
    ['relationKey=OrderLines', { relationKey: 'OrderLines' }],
    ['RelationKey=OrderLines', { relationKey: 'OrderLines' }],
    ['$inlinecount=allpages', { inlineCount: true }],
    ['$inlinecount=none', { inlineCount: false }],
    ["$inlinecount=allpages&$filter=MasterId eq '3'&relationKey=OrderLines", { inlineCount: true, filter: "MasterId eq '3'", relationKey: 'OrderLines' }],
    ['$top=5&&$skip=1&', { top: 5, skip: 1 }],
    ['relationKey=', { emptyRelationKey: true }],
    ['relationKey= &$top=1', { emptyRelationKey: true, top: 1 }],
    ['$select=Id', { ignoredOptions: ['$select'] }],
    ['$select=Id&$expand=X&$top=1&$count=true', { ignoredOptions: ['$select', '$expand', '$count'], top: 1 }],
    // Names of Object.prototype members are unknown options like any other, never a lookup hit.
    ['constructor=x&__proto__=y&toString', { ignoredOptions: ['constructor', '__proto__', 'toString'] }],
  ])('%j', (text, expected) => {
    expect(parseQueryString(text)).toEqual({ ...NONE, ...expected })
  })

  it('keeps an ampersand inside a quoted filter value, and says so (the caller warns: the text is &-separated)', () => {
    expect(parseQueryString("$filter=Customer eq 'Hoffmann & Söhne KG'&$top=1")).toEqual({
      ...NONE,
      filter: "Customer eq 'Hoffmann & Söhne KG'",
      top: 1,
      quotedAmpersand: true,
    })
    // Outside quotes, or encoded, an ampersand is no such case.
    expect(parseQueryString("$filter=Customer eq 'O''Brien'&$top=1")).toEqual({ ...NONE, filter: "Customer eq 'O''Brien'", top: 1 })
    expect(parseQueryString("$filter=Customer eq 'A%26B'")).toEqual({ ...NONE, filter: "Customer eq 'A&B'" })
  })

  it('decodes percent-escapes per parameter, so an encoded & stays in its value', () => {
    const text = `$filter=${encodeURIComponent("Customer eq 'A&B Café'")}&%24top=3`
    expect(parseQueryString(text)).toEqual({ ...NONE, filter: "Customer eq 'A&B Café'", top: 3 })
  })

  it('reads + as a space, as %20 is read, and %2B as a plus (form-encoded text)', () => {
    expect(parseQueryString("$filter=Customer+eq+'North+Wind'&$orderby=Id+desc")).toEqual({
      ...NONE,
      filter: "Customer eq 'North Wind'",
      orderBy: [{ field: 'Id', direction: 'desc' }],
    })
    expect(parseQueryString("$filter=Customer%20eq%20'North%20Wind'")).toEqual({ ...NONE, filter: "Customer eq 'North Wind'" })
    expect(parseQueryString("$filter=Phone eq '%2B49 30'")).toEqual({ ...NONE, filter: "Phone eq '+49 30'" })
  })

  it('keeps a % that starts no valid escape', () => {
    expect(decodePercent("contains(Note,'100% sure')")).toBe("contains(Note,'100% sure')")
    expect(decodePercent('50%25 off %E2%82%AC')).toBe('50% off €')
    expect(decodePercent('%FF')).toBe('%FF')
  })
})

describe('parseQueryString: errors say what was not understood', () => {
  it.each([
    ['$top=-1', "$top must be a non-negative integer, got '-1'"],
    ['$top=ten', "$top must be a non-negative integer, got 'ten'"],
    ['$skip=1.5', "$skip must be a non-negative integer, got '1.5'"],
    ['$top=99999999999999999999', '$top must be a whole number up to 9007199254740991, got a number of 20 digits; leave $top out to read every row'],
    ['$skip=99999999999999999999', '$skip must be a whole number up to 9007199254740991, got a number of 20 digits'],
    ['$orderby=', '$orderby is empty'],
    ['$orderby=Amount sideways', "$orderby item 'Amount sideways' is not 'Field', 'Field asc' or 'Field desc'"],
    ['$orderby=Amount desc,', "$orderby item '' is not"],
    ['$inlinecount=some', "$inlinecount must be 'allpages' or 'none', got 'some'"],
    ['$top', "$top has no '=' and value"],
    ['$top=1&$top=2', '$top appears more than once'],
  ])('%j -> BAD_QUERY %s', (text, message) => {
    const result = parseQueryString(text)
    expect(result).toMatchObject({ error: 'BAD_QUERY' })
    expect((result as { message: string }).message).toContain(message)
  })
})

describe('parseQueryString: a long text read in pieces answers as the text read whole', () => {
  const pieces = { ...queryReading }
  afterEach(() => Object.assign(queryReading, pieces))
  const unit = fc.constantFrom(
    '%41',
    '%E2%82%AC',
    '%C3',
    '%A9',
    '%ED%A0%80',
    '%80',
    '%',
    '%4',
    '+',
    '&',
    "'",
    '=',
    'a',
    'A',
    '4',
    ' ',
    '$top',
    '$filter',
    '$orderby',
    '$skip',
    'relationKey',
    '$inlinecount',
    'Id',
    'é',
    '😀',
  )
  const text = fc.array(unit, { maxLength: 60 }).map((units) => units.join(''))

  it('whatever the size of a piece (fixed seed)', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 1, max: 12 }), (query, size) => {
        Object.assign(queryReading, { pieceChars: size })
        const sliced = parseQueryString(query)
        Object.assign(queryReading, pieces)
        expect(sliced).toEqual(parseQueryStringAsBefore(query))
        expect(parseQueryString(query)).toEqual(parseQueryStringAsBefore(query))
      }),
      { numRuns: runs(500) },
    )
  })

  it('in slices, awaiting a turn between them, with the same answer', async () => {
    Object.assign(queryReading, { pieceChars: 5 })
    const query = `$filter=Customer eq '${'%E2%82%AC+%41'.repeat(50)}'&$top=2&$select=x&${'%FF'.repeat(20)}=1`
    let pauses = 0
    const sliced = await parseQueryStringInSlices(query, async () => void pauses++, 0)
    Object.assign(queryReading, pieces)
    expect(pauses).toBeGreaterThan(10)
    expect(sliced).toEqual(parseQueryString(query))
    expect(sliced).toMatchObject({ filter: `Customer eq '${'€ A'.repeat(50)}'`, top: 2, ignoredOptions: ['$select', '%FF'.repeat(20)] })
  })

  it(`lists at most ${MAX_IGNORED_OPTIONS} unknown options`, () => {
    const parsed = parseQueryString(`${'a&'.repeat(MAX_IGNORED_OPTIONS + 10)}$top=1`) as ParsedQuery
    expect(parsed.ignoredOptions).toHaveLength(MAX_IGNORED_OPTIONS)
    expect(parsed.top).toBe(1)
  })
})
