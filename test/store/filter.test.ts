import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { compileFilter, FilterCache, type Predicate } from '../../src/store/filter.ts'
import { printFilter, type CompareOp, type FilterNode, type TextFunction } from '../../src/store/filter-ast.ts'
import { MAX_FILTER_CONDITIONS, MAX_FILTER_NESTING, parseFilter, parseFilterInSlices } from '../../src/store/filter-parser.ts'
import { queryReading } from '../../src/wire/query-string.ts'
import type { FieldType, Row } from '../../src/store/model/types.ts'
import { runs } from '../helpers/property-runs.ts'

const FIELDS = new Map<string, FieldType>([
  ['Id', 'Identity'],
  ['Customer', 'String'],
  ['Amount', 'Numeric'],
  ['Qty', 'Numeric'],
  ['Active', 'Boolean'],
  ['Created', 'DateTime'],
  ['Code', 'String'],
  ['Tags', 'Multiselection'],
  ['Day', 'Date'],
])

const ROWS: Row[] = [
  { Id: 1, TIMESTAMP: 1, Customer: 'Acme', Amount: 10, Qty: 1, Active: 1, Created: 20240105100000, Code: '42', Tags: ['Fragile', 'Express'], Day: 20240105 },
  { Id: 2, TIMESTAMP: 1, Customer: 'Acme Ltd', Amount: 99.5, Qty: 5, Active: 0, Created: 20240201000000, Code: '7', Tags: [], Day: 20240201 },
  { Id: 3, TIMESTAMP: 1, Customer: "O'Brien", Amount: 250, Qty: 12, Active: 1, Created: 20240315083000, Code: null, Tags: ['Express', 7], Day: 20240315 },
  { Id: 4, TIMESTAMP: 1, Customer: null, Amount: null, Qty: null, Active: null, Created: null, Code: 'x', Tags: null, Day: null },
  { Id: 5, TIMESTAMP: 1, Customer: 'acme', Amount: 1000, Qty: 50, Active: 1, Created: 20231231235959, Code: '042', Tags: ['Fragile'], Day: 20231231 },
]

function compile(text: string): Predicate {
  const predicate = compileFilter(text, FIELDS)
  if ('error' in predicate) throw new Error(predicate.message)
  return predicate
}

function ids(text: string): number[] {
  const predicate = compile(text)
  return ROWS.filter(predicate).map((r) => r.Id)
}

describe('compileFilter: comparisons', () => {
  it.each<[string, number[]]>([
    ["Customer eq 'Acme'", [1]],
    ["Customer ne 'Acme'", [2, 3, 5]],
    ["Customer gt 'Acme'", [2, 3, 5]],
    ["Customer lt 'B'", [1, 2]],
    ['Amount eq 10', [1]],
    ["Amount eq '10'", [1]],
    ['Amount ne 10', [2, 3, 5]],
    ['Amount gt 99.5', [3, 5]],
    ['Amount ge 99.5', [2, 3, 5]],
    ['Amount lt 99.5', [1]],
    ['Amount le 99.5', [1, 2]],
    ["Amount gt '9'", [1, 2, 3, 5]],
    ['Amount gt -1e3', [1, 2, 3, 5]],
    ['Qty ge 12', [3, 5]],
    ['Id le 2', [1, 2]],
    // Boolean 0/1; true/false and quoted digits read alike.
    ['Active eq 1', [1, 3, 5]],
    ['Active eq true', [1, 3, 5]],
    ["Active eq 'false'", [2]],
    ["Active eq '0'", [2]],
    ['Active ne 1', [2]],
    // Dates as their numbers, quoted or not.
    ['Created ge 20240201000000', [2, 3]],
    ["Created ge '20240201000000'", [2, 3]],
    ['Created lt 20240101000000', [5]],
    ['Day eq 20240315', [3]],
    ["Day le '20240105'", [1, 5]],
    // Multiselection: eq holds the element, ne does not (the mock's choice).
    ["Tags eq 'Fragile'", [1, 5]],
    ["Tags ne 'Fragile'", [2, 3]],
    ['Tags eq 7', [3]],
    ['Tags eq null', [4]],
    ['Code eq 42', [1]],
    ["Code eq '042'", [5]],
    ['Customer eq null', [4]],
    ['Customer ne null', [1, 2, 3, 5]],
    ['Amount eq null', [4]],
    ["Customer eq 'O''Brien'", [3]],
  ])('%s -> %j', (text, expected) => expect(ids(text)).toEqual(expected))
})

describe('compileFilter: text functions (case-sensitive)', () => {
  it.each<[string, number[]]>([
    ["contains(Customer,'cme')", [1, 2, 5]],
    ["contains(Customer,'Ltd')", [2]],
    ["contains(Customer, 'ACME')", []],
    ["startswith(Customer,'Acme')", [1, 2]],
    ["startswith(Customer,'acme')", [5]],
    ["endswith(Customer,'Ltd')", [2]],
    ["endswith(Customer,'''Brien')", [3]],
    ["not contains(Customer,'cme')", [3]],
  ])('%s -> %j', (text, expected) => expect(ids(text)).toEqual(expected))
})

describe('compileFilter: logic and precedence (not > and > or)', () => {
  it.each<[string, number[]]>([
    ["Customer eq 'Acme' or Amount gt 200", [1, 3, 5]],
    ['Amount gt 50 and Amount lt 500', [2, 3]],
    // and binds tighter than or: Id eq 1 or (Id eq 2 and Amount gt 1000)
    ['Id eq 1 or Id eq 2 and Amount gt 1000', [1]],
    ['(Id eq 1 or Id eq 2) and Amount gt 50', [2]],
    // not binds tighter than and: (not Id eq 1) and Amount lt 100
    ['not Id eq 1 and Amount lt 100', [2]],
    ['not (Id eq 1 and Amount lt 100)', [2, 3, 4, 5]],
    ['not not Id eq 3', [3]],
    ['Id eq 1 or Id eq 2 or Id eq 3', [1, 2, 3]],
    ['((Id eq 5))', [5]],
    ['ID EQ 1 OR id eq 2'.replace('ID', 'Id').replace('id', 'Id'), [1, 2]],
    ['Id Eq 1 AND Amount GT 5', [1]],
  ])('%s -> %j', (text, expected) => expect(ids(text)).toEqual(expected))

  it('treats a comparison with a null field as unknown, which neither matches nor its negation (SQL)', () => {
    expect(ids("Customer ne 'Acme'")).not.toContain(4)
    expect(ids("not (Customer eq 'Acme')")).not.toContain(4)
    expect(ids("Customer eq 'Acme' or Id eq 4")).toEqual([1, 4])
    // unknown and false is false, so the negation holds even for the null row (Kleene logic).
    expect(ids("not (Customer eq 'Acme' and Id eq 99)")).toEqual([1, 2, 3, 4, 5])
    // unknown or false stays unknown, and so does its negation.
    expect(ids("not (Customer eq 'Acme' or Id eq 99)")).toEqual([2, 3, 5])
  })

  it('reports the fields a filter reads', () => {
    expect(compile("Amount gt 1 and (contains(Customer,'a') or Amount lt 5)").fields).toEqual(['Amount', 'Customer'])
  })
})

describe('compileFilter: errors name the position and what was expected', () => {
  it.each<[string, 'BAD_FILTER' | 'UNKNOWN_FIELD', number, string]>([
    ['', 'BAD_FILTER', 1, 'the filter is empty'],
    ['   ', 'BAD_FILTER', 1, 'the filter is empty'],
    ['Customer', 'BAD_FILTER', 9, 'expected a comparison operator (eq, ne, gt, ge, lt, le) after the field Customer, found the end of the filter'],
    ["Customer is 'x'", 'BAD_FILTER', 10, "expected a comparison operator (eq, ne, gt, ge, lt, le) after the field Customer, found 'is'"],
    ['Customer eq', 'BAD_FILTER', 12, "expected a value after 'eq': a quoted text, a number, null, true or false, found the end of the filter"],
    ['Customer eq Acme', 'BAD_FILTER', 13, "expected a value after 'eq'"],
    ["Customer eq 'Acme", 'BAD_FILTER', 13, 'this quoted text is never closed'],
    ["(Customer eq 'a'", 'BAD_FILTER', 17, "expected ')' to close the '(' at character 1"],
    ["Customer eq 'a')", 'BAD_FILTER', 16, "this ')' closes nothing"],
    ["Customer eq 'a' Amount eq 1", 'BAD_FILTER', 17, "expected 'and', 'or' or the end of the filter, found 'Amount'"],
    ["Customer eq 'a' and", 'BAD_FILTER', 20, "expected a field name, a function (contains, startswith, endswith), 'not' or '('"],
    ['and Id eq 1', 'BAD_FILTER', 1, 'expected a field name'],
    ['Id eq 1 # 2', 'BAD_FILTER', 9, "unexpected character '#'"],
    ['Id eq -', 'BAD_FILTER', 7, "expected a number after '-'"],
    ["contains(Customer 'a')", 'BAD_FILTER', 19, "',' after the field name in contains()"],
    ['contains(Customer,5)', 'BAD_FILTER', 19, 'a quoted text as the second argument of contains()'],
    ["contains(Amount,'5')", 'BAD_FILTER', 10, 'contains() applies to text fields; Amount is Numeric'],
    ["startswith(Created,'2024')", 'BAD_FILTER', 12, 'startswith() applies to text fields; Created is DateTime'],
    ["contains(Tags,'Fra')", 'BAD_FILTER', 10, 'contains() applies to text fields; Tags is Multiselection'],
    ["Amount eq 'ten'", 'BAD_FILTER', 11, "expected a number, found 'ten' for Amount (Numeric)"],
    ['Amount gt null', 'BAD_FILTER', 11, 'null can only be compared with eq or ne, not gt'],
    ['Active gt 0', 'BAD_FILTER', 11, 'Boolean fields can only be compared with eq or ne'],
    ['Active eq 2', 'BAD_FILTER', 11, 'expected 0 or 1, found 2'],
    ["Tags gt 'a'", 'BAD_FILTER', 9, 'Multiselection fields can only be compared with eq or ne'],
    ['Created gt 2024', 'BAD_FILTER', 12, 'expected a number yyyyMMddHHmmss (20240301101500), found 2024, which is not one'],
    ["Created gt '2024-02-01T00:00:00Z'", 'BAD_FILTER', 12, "expected a number yyyyMMddHHmmss (20240301101500), found '2024-02-01T00:00:00Z'"],
    ['Day eq 20240231', 'BAD_FILTER', 8, 'expected a number yyyyMMdd (20240301), found 20240231, which is not one'],
    ['Customer eq true', 'BAD_FILTER', 13, 'expected a quoted text, found true'],
    ["Colour eq 'red'", 'UNKNOWN_FIELD', 1, 'unknown field Colour; fields: Id, Customer, Amount'],
    ["Id eq 1 and contains(Colour,'r')", 'UNKNOWN_FIELD', 22, 'unknown field Colour'],
  ])('%j -> %s at %d', (text, error, position, message) => {
    const result = compileFilter(text, FIELDS)
    expect(result).toMatchObject({ error, position })
    expect((result as { message: string }).message).toContain(`character ${position}: `)
    expect((result as { message: string }).message).toContain(message)
  })
})

describe('FilterCache', () => {
  it('compiles a text once and hands out the same predicate', () => {
    const cache = new FilterCache(FIELDS)
    const first = cache.get('Id eq 1')
    expect(cache.get('Id eq 1')).toBe(first)
    expect(cache.get('Id eq 2')).not.toBe(first)
  })

  it('is bounded: the least recently used text is compiled again', () => {
    const cache = new FilterCache(FIELDS, 2)
    const a = cache.get('Id eq 1')
    cache.get('Id eq 2')
    cache.get('Id eq 1')
    cache.get('Id eq 3')
    expect(cache.get('Id eq 1')).toBe(a)
    const b = cache.get('Id eq 2')
    expect(cache.get('Id eq 2')).toBe(b)
    expect(cache.get('Id eq 3')).not.toBeUndefined()
  })
})

describe('printFilter / parseFilter', () => {
  const fieldName = fc.constantFrom('Id', 'Customer', 'Amount', 'Status_2', '_x')
  const text = fc.string({ maxLength: 8 })
  const number = fc
    .oneof(fc.integer({ min: -1_000_000, max: 1_000_000 }), fc.double({ noNaN: true, noDefaultInfinity: true }))
    .map((n) => (Object.is(n, -0) ? 0 : n))
  const literal = fc.oneof(
    text.map((value) => ({ type: 'string' as const, value })),
    number.map((value) => ({ type: 'number' as const, value, raw: String(value) })),
    fc.boolean().map((value) => ({ type: 'boolean' as const, value })),
    fc.constant({ type: 'null' as const }),
  )
  const leaf: fc.Arbitrary<FilterNode> = fc.oneof(
    fc.record({
      kind: fc.constant('compare' as const),
      op: fc.constantFrom<CompareOp>('eq', 'ne', 'gt', 'ge', 'lt', 'le'),
      field: fieldName,
      fieldPos: fc.constant(0),
      value: literal,
      valuePos: fc.constant(0),
    }),
    fc.record({
      kind: fc.constant('call' as const),
      fn: fc.constantFrom<TextFunction>('contains', 'startswith', 'endswith'),
      field: fieldName,
      fieldPos: fc.constant(0),
      value: text,
      valuePos: fc.constant(0),
    }),
  )
  const tree = fc.letrec<{ node: FilterNode }>((tie) => ({
    node: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.record({ kind: fc.constantFrom('and' as const, 'or' as const), left: tie('node'), right: tie('node') }),
      fc.record({ kind: fc.constant('not' as const), operand: tie('node') }),
    ),
  })).node

  /** Positions depend on the text, so compare trees without them. */
  const withoutPositions = (node: unknown): unknown =>
    JSON.parse(JSON.stringify(node, (key, value: unknown) => (key === 'fieldPos' || key === 'valuePos' ? undefined : value)))

  it('parse(print(tree)) gives the same tree back, shape and precedence included', () => {
    fc.assert(
      fc.property(tree, (node) => {
        const parsed = parseFilter(printFilter(node))
        expect('error' in parsed ? parsed : withoutPositions(parsed)).toEqual(withoutPositions(node))
      }),
      { numRuns: runs(300) },
    )
  })

  it('read in slices (its tokens first, a window of a long quoted text at a time), a text parses as it does whole, errors and positions included', async () => {
    const pieces = { ...queryReading }
    // Printed trees, texts with quotes doubled, and texts broken in many ways (a piece of one, quotes left open, stray characters).
    const broken = fc
      .tuple(tree.map(printFilter), fc.nat(), fc.constantFrom('', "'", "''", '(', ')', '$', ' and', "'x''"))
      .map(([printed, at, insert]) => printed.slice(0, at % (printed.length + 1)) + insert + printed.slice(at % (printed.length + 1)))
    try {
      await fc.assert(
        fc.asyncProperty(fc.oneof(tree.map(printFilter), broken), fc.integer({ min: 2, max: 9 }), async (filter, size) => {
          Object.assign(queryReading, { pieceChars: size })
          let pauses = 0
          const sliced = await parseFilterInSlices(filter, async () => void pauses++, 0)
          Object.assign(queryReading, pieces)
          expect(sliced).toEqual(parseFilter(filter))
        }),
        { numRuns: runs(300) },
      )
    } finally {
      Object.assign(queryReading, pieces)
    }
  })

  it('a quoted text of a million doubled quotes is read in slices, with the same value', async () => {
    const filter = `Customer eq '${"''x".repeat(1_000_000)}'`
    let pauses = 0
    const sliced = await parseFilterInSlices(filter, async () => void pauses++, 0)
    expect(pauses).toBeGreaterThan(100)
    expect(sliced).toEqual(parseFilter(filter))
    expect((sliced as { value: { value: string } }).value.value).toBe("'x".repeat(1_000_000))
  })

  it('prints only the parentheses the shape needs', () => {
    const parsed = parseFilter('(Id eq 1 or (Id eq 2 and not (Id eq 3))) and (Id eq 4 and Id eq 5)')
    expect(printFilter(parsed as FilterNode)).toBe('(Id eq 1 or Id eq 2 and not Id eq 3) and (Id eq 4 and Id eq 5)')
  })
})

describe('bounds on the shape of a filter', () => {
  const nested = (n: number) => `${'('.repeat(n)}Id eq 1${')'.repeat(n)}`
  const negated = (n: number) => `${'not '.repeat(n)}Id eq 1`
  const joined = (n: number, op: string) => Array.from({ length: n }, (_, i) => `Id eq ${i}`).join(` ${op} `)

  it.each([
    ['parentheses', nested],
    ['not', negated],
  ])('accepts %s nested up to the limit and refuses one level more, by message', (_name, build) => {
    expect('error' in compileFilter(build(MAX_FILTER_NESTING), FIELDS)).toBe(false)
    const refused = compileFilter(build(MAX_FILTER_NESTING + 1), FIELDS)
    expect(refused).toMatchObject({ error: 'BAD_FILTER' })
    expect((refused as { message: string }).message).toContain(`nest more than ${MAX_FILTER_NESTING} deep`)
  })

  it.each(['and', 'or'])('accepts %s-joined conditions up to the limit and refuses one more', (op) => {
    expect('error' in compileFilter(joined(MAX_FILTER_CONDITIONS, op), FIELDS)).toBe(false)
    expect(compileFilter(joined(MAX_FILTER_CONDITIONS + 1, op), FIELDS)).toMatchObject({ error: 'BAD_FILTER' })
  })

  it('refuses a hundred thousand levels without exhausting the stack', () => {
    expect(compileFilter(nested(100_000), FIELDS)).toMatchObject({ error: 'BAD_FILTER' })
    expect(compileFilter(negated(100_000), FIELDS)).toMatchObject({ error: 'BAD_FILTER' })
    expect(compileFilter(joined(100_000, 'and'), FIELDS)).toMatchObject({ error: 'BAD_FILTER' })
  })
})
