/**
 * The pure parts of `npm run bench:compare`: reading callgrind's dumps, the spread within a commit
 * and the verdict between two, the per-function difference, the command's arguments, and the
 * section of RESULTS.md it writes and `npm run bench` keeps. No server is started here.
 */
import { describe, expect, it } from 'vitest'
import { parseCallgrindFunctions, parseCallgrindTotal } from './lib/callgrind-output.ts'
import { byKind, COMPARE_WORKLOADS, differences, JIT_CODE, judge, kindOf, parseCompareArgs, spreadOf, UsageError } from './lib/compare.ts'
import { COMPARE_END, COMPARE_START, compareSection, keepCompareSection, replaceCompareSection } from './lib/report.ts'

/**
 * A dump as `callgrind_control -d` writes it: main's loop calls a JIT function (whose call line is
 * inclusive: 700), which calls a builtin; names compressed, then referred to by number.
 */
const DUMP = [
  '# callgrind format',
  'version: 1',
  'creator: callgrind-3.19.0',
  'part: 1',
  '',
  'positions: line',
  'events: Ir',
  'summary: 1000',
  '',
  'ob=(1) /usr/bin/node',
  'fl=(1) ???',
  'fn=(1) uv_run',
  '0 250',
  '+2 50',
  'cob=(2) ???',
  'cfn=(2) 0x000000000d045e14',
  'calls=3 0',
  '0 700',
  '',
  'ob=(2)',
  'fl=(1)',
  'fn=(2)',
  '0 400',
  'cob=(1)',
  'cfn=(3) Builtins_LoadIC',
  'calls=10 0',
  '* 300',
  '',
  'ob=(1)',
  'fn=(3)',
  '0 300',
  '',
  'totals: 1000',
  '',
].join('\n')

describe('reading a callgrind dump', () => {
  it('reads the instructions of the summary line', () => {
    expect(parseCallgrindTotal(DUMP)).toBe(1000)
  })

  it("takes Ir's place in the events line when more events are counted", () => {
    expect(parseCallgrindTotal('events: Dr Ir Dw\nsummary: 5 17 9\n')).toBe(17)
  })

  it('falls back to the totals line when there is no summary', () => {
    expect(parseCallgrindTotal('events: Ir\n0 4\ntotals: 4\n')).toBe(4)
  })

  it('refuses a text that is not a dump, counts no instructions, or has no total, rather than reading zero', () => {
    expect(() => parseCallgrindTotal('summary: 10\n')).toThrow(/no "events:" line/)
    expect(() => parseCallgrindTotal('events: Dr\nsummary: 10\n')).toThrow(/counts no instructions/)
    expect(() => parseCallgrindTotal('events: Ir\nfn=(1) main\n0 10\n')).toThrow(/no "summary:" or "totals:"/)
  })

  it("gives each function its own cost: a call's line goes to the callee, not to the caller", () => {
    expect(parseCallgrindFunctions(DUMP)).toEqual([
      { instructions: 400, name: '0x000000000d045e14', object: '???' },
      { instructions: 300, name: 'Builtins_LoadIC', object: '/usr/bin/node' },
      { instructions: 300, name: 'uv_run', object: '/usr/bin/node' },
    ])
  })

  it('adds up to the total of the cost lines', () => {
    const sum = parseCallgrindFunctions(DUMP).reduce((total, cost) => total + cost.instructions, 0)
    expect(sum).toBe(parseCallgrindTotal(DUMP.replace('summary: 1000\n', '')))
  })
})

describe('the spread within a commit and the verdict between two', () => {
  it('gives the median, the extremes and (max − min) over the median', () => {
    expect(spreadOf([10, 12, 11])).toEqual({ median: 11, min: 10, max: 12, spread: 2 / 11, count: 3 })
    expect(spreadOf([5]).spread).toBe(0)
    expect(() => spreadOf([])).toThrow()
  })

  it('counts a difference whose gap is larger than the spread within each commit', () => {
    const verdict = judge([0.917, 0.918, 0.916], [0.878, 0.879, 0.877], false)
    expect(verdict.differs).toBe(true)
    expect(verdict.change).toBeCloseTo(0.917 / 0.878 - 1, 10)
    expect(verdict.text).toMatch(/^\+4\.4 %: the checkout is worse/)
  })

  it('does not count a gap that one commit spreads as wide as', () => {
    // The gap is 2; the checkout's own figures span 3.
    const verdict = judge([100, 101, 103], [99, 99.5, 100], true)
    expect(verdict.gap).toBeCloseTo(1.5, 10)
    expect(verdict.differs).toBe(false)
    expect(verdict.text).toMatch(/within the spread/)
    expect(judge([100, 100.5, 101], [90, 95, 110], true).differs).toBe(false)
  })

  it('says better or worse by the measure: fewer instructions, more requests a second', () => {
    expect(judge([9, 9.1], [10, 10.1], false).text).toMatch(/^−10\.\d %: the checkout is better/)
    expect(judge([9, 9.1], [10, 10.1], true).text).toMatch(/^−10\.\d %: the checkout is worse/)
    expect(judge([9, 9.1], [10, 10.1], true, 'a4456c3').text).toMatch(/: a4456c3 is worse/)
  })

  it('gives no verdict when a commit has one figure: no spread to judge against', () => {
    const verdict = judge([1.2], [1.0, 1.01], false)
    expect(verdict.differs).toBe(false)
    expect(verdict.text).toMatch(/no verdict/)
  })
})

describe('where two dumps differ', () => {
  it('puts code without a symbol together, per request, the largest differences first', () => {
    const current = [
      { instructions: 3000, name: '0x000000000d045e14', object: '???' },
      { instructions: 1000, name: '0x000000000d1b03d4', object: '???' },
      { instructions: 2000, name: 'Builtins_LoadIC', object: '/usr/bin/node' },
    ]
    const ref = [
      { instructions: 1500, name: '0x000000000c000000', object: '???' },
      { instructions: 2000, name: 'Builtins_LoadIC', object: '/usr/bin/node' },
      { instructions: 500, name: 'Scavenge', object: '/usr/bin/node' },
    ]
    // The checkout counted 2 requests, the other commit 1.
    expect(differences(current, 2, ref, 1, 10)).toEqual([
      { name: 'Builtins_LoadIC [node]', current: 1000, ref: 2000, difference: -1000 },
      // Equal differences by name.
      { name: JIT_CODE, current: 2000, ref: 1500, difference: 500 },
      { name: 'Scavenge [node]', current: 0, ref: 500, difference: -500 },
    ])
    expect(differences(current, 2, ref, 1, 1)).toHaveLength(1)
  })
})

describe('instructions by kind', () => {
  it("tells V8's collector and optimizing compiler from the rest by the function's name", () => {
    expect(
      kindOf(
        'heap::base::SlotCallbackResult v8::internal::Scavenger::ScavengeObject<v8::internal::FullHeapObjectSlot>(v8::internal::FullHeapObjectSlot, v8::internal::HeapObject)',
      ),
    ).toBe('garbage collection')
    expect(kindOf('v8::internal::ConcurrentMarking::RunMajor(v8::JobDelegate*, v8::base::EnumSet<v8::internal::CodeFlushMode, int>, unsigned int, bool)')).toBe(
      'garbage collection',
    )
    expect(kindOf('v8::internal::Sweeper::RawSweep(v8::internal::Page*, v8::internal::FreeSpaceTreatmentMode, v8::internal::Sweeper::SweepingMode)')).toBe(
      'garbage collection',
    )
    // A collection's walk over the roots and the objects' sizes: the collector's work though no 'Scaveng' or 'Mark' names it.
    expect(
      kindOf(
        'v8::internal::(anonymous namespace)::IterateObjectCache(v8::internal::Isolate*, std::vector<v8::internal::Object, std::allocator<v8::internal::Object> >*, v8::internal::Root, v8::internal::RootVisitor*)',
      ),
    ).toBe('garbage collection')
    expect(kindOf('v8::internal::HeapObject::SizeFromMap(v8::internal::Map) const')).toBe('garbage collection')
    expect(kindOf('v8::internal::compiler::GraphReducer::ReduceTop()')).toBe('optimizing compiler')
    expect(kindOf('Builtins_LoadIC')).toBe('the rest')
    expect(kindOf('0x000000000d045e14')).toBe('the rest')
    expect(kindOf('uv__io_poll')).toBe('the rest')
  })

  it('adds each kind up per request', () => {
    const costs = [
      { instructions: 600, name: 'v8::internal::compiler::Scheduler::ScheduleLate()', object: '/usr/bin/node' },
      { instructions: 300, name: 'v8::internal::Scavenger::Process(v8::JobDelegate*)', object: '/usr/bin/node' },
      { instructions: 900, name: '0x000000000d045e14', object: '???' },
      { instructions: 300, name: 'Builtins_LoadIC', object: '/usr/bin/node' },
    ]
    expect(byKind(costs, 3)).toEqual({ 'garbage collection': 100, 'optimizing compiler': 200, 'the rest': 400 })
  })
})

describe('the arguments of npm run bench:compare', () => {
  it('takes a commit and defaults to W1: 5,000 requests counted after at least 5,000, three callgrind runs and five wrk pairs a commit', () => {
    expect(parseCompareArgs(['a38c1c4'])).toEqual({
      ref: 'a38c1c4',
      workload: 'w1',
      requests: 5000,
      warmup: 5000,
      runs: 3,
      pairs: 5,
      seconds: 5,
      callgrind: true,
      wrk: true,
      functions: 15,
      write: false,
    })
  })

  it('reads every option, with a space or an equals sign', () => {
    const options = parseCompareArgs([
      '--workload=w4c',
      'main~3',
      '--requests',
      '100',
      '--warmup=0',
      '--runs',
      '2',
      '--pairs',
      '7',
      '--seconds',
      '3',
      '--only',
      'wrk',
      '--functions',
      '0',
      '--write',
      '--keep',
      '/tmp/dumps',
    ])
    expect(options).toEqual({
      ref: 'main~3',
      workload: 'w4c',
      requests: 100,
      warmup: 0,
      runs: 2,
      pairs: 7,
      seconds: 3,
      callgrind: false,
      wrk: true,
      functions: 0,
      write: true,
      keep: '/tmp/dumps',
    })
    expect(parseCompareArgs(['x', '--only', 'callgrind'])).toMatchObject({ callgrind: true, wrk: false })
    expect(parseCompareArgs(['x', '--workload', 'w4c'])).toMatchObject({ requests: 500, warmup: 100 })
    expect(parseCompareArgs(['a38c1c4', 'a4456c3'])).toMatchObject({ ref: 'a38c1c4', other: 'a4456c3' })
  })

  it.each([
    [[], /name the commit/],
    [['a', 'b', 'c'], /at most one OTHER/],
    [['a', '--fast'], /unknown option --fast/],
    [['a', '--runs'], /--runs needs a value/],
    [['a', '--runs', '0'], /at least 1/],
    [['a', '--requests', '1e3'], /whole number/],
    [['a', '--pairs', '2.5'], /whole number/],
    [['a', '--workload', 'w9'], new RegExp(`one of ${COMPARE_WORKLOADS.join(', ')}`)],
    [['a', '--only', 'both'], /callgrind or wrk/],
    [['a', '--write=yes'], /takes no value/],
  ])('refuses %j with a UsageError', (argv, message) => {
    expect(() => parseCompareArgs(argv as string[])).toThrow(UsageError)
    expect(() => parseCompareArgs(argv as string[])).toThrow(message as RegExp)
  })
})

describe("RESULTS.md's compare section", () => {
  const results = '# Benchmark results\n\n### W1\n\n| a |\n|---|\n'

  it('is added at the end of the file, between its markers, and replaced in place after', () => {
    const once = replaceCompareSection(results, '## W1 against another commit\n\nfirst')
    expect(once.startsWith(results.trimEnd())).toBe(true)
    expect(compareSection(once)).toBe(`${COMPARE_START}\n## W1 against another commit\n\nfirst\n${COMPARE_END}`)
    const twice = replaceCompareSection(once, 'second $& $1')
    expect(twice.match(new RegExp(COMPARE_END, 'g'))).toHaveLength(1)
    expect(compareSection(twice)).toBe(`${COMPARE_START}\nsecond $& $1\n${COMPARE_END}`)
  })

  it('is kept when a full run of npm run bench writes the file again, and not made up when there was none', () => {
    const previous = replaceCompareSection('# Benchmark results\n\nold tables\n', 'compared')
    const kept = keepCompareSection(previous, '# Benchmark results\n\nnew tables\n')
    expect(kept).toContain('new tables')
    expect(kept).not.toContain('old tables')
    expect(compareSection(kept)).toBe(`${COMPARE_START}\ncompared\n${COMPARE_END}`)
    expect(keepCompareSection('# Benchmark results\n\nold tables\n', 'new')).toBe('new')
  })
})
