/**
 * The pure parts of `npm run bench:compare` (tested in test/bench/compare.test.ts): its arguments,
 * the spread of one commit's figures, the verdict between two commits, and the per-function
 * difference of two callgrind profiles.
 */
import type { FunctionCost } from './callgrind-output.ts'
import { median } from './load.ts'

/** The workloads the compare command knows. */
export const COMPARE_WORKLOADS = ['w1', 'w4c'] as const
export type CompareWorkload = (typeof COMPARE_WORKLOADS)[number]

/** What `npm run bench:compare -- REF [OTHER] [options]` was asked. */
export interface CompareOptions {
  /** The commit compared against. */
  ref: string
  /** The commit measured against it instead of the checkout (built in a worktree as REF is), as when bisecting. */
  other?: string
  workload: CompareWorkload
  /** Requests counted per callgrind run (after the warm-up), in windows (lib/callgrind.ts). */
  requests: number
  /** Requests sent before the warm-up's windows (lib/callgrind.ts, SETTLING). */
  warmup: number
  /** Callgrind runs per commit (at least 2 for a spread). */
  runs: number
  /** wrk runs per commit, interleaved with the other commit's (at least 5). */
  pairs: number
  /** Seconds of each wrk run. */
  seconds: number
  callgrind: boolean
  wrk: boolean
  /** Functions listed where the two commits differ most (0: none). */
  functions: number
  /** Write the result into test/bench/RESULTS.md's compare section. */
  write: boolean
  /** Copy the callgrind dumps into this folder (for callgrind_annotate or KCachegrind). */
  keep?: string
}

/** A bad argument: the command prints it with the usage and exits 2. */
export class UsageError extends Error {}

export const COMPARE_USAGE = `usage: npm run bench:compare -- REF [OTHER] [--workload ${COMPARE_WORKLOADS.join('|')}] [--requests N] [--warmup N] [--runs N] [--pairs N] [--seconds N] [--only callgrind|wrk] [--functions N] [--write] [--keep DIR]`

const DEFAULTS: Record<CompareWorkload, { requests: number; warmup: number }> = {
  w1: { requests: 5000, warmup: 5000 },
  w4c: { requests: 500, warmup: 100 },
}

/** Reads the command's arguments (after `--`); throws UsageError on anything it does not know. */
export function parseCompareArgs(argv: readonly string[]): CompareOptions {
  const positional: string[] = []
  const given = new Map<string, string | true>()
  const valued = new Set(['--workload', '--requests', '--warmup', '--runs', '--pairs', '--seconds', '--only', '--functions', '--keep'])
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string
    if (!arg.startsWith('--')) {
      positional.push(arg)
      continue
    }
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined]
    if (flag === '--write') {
      if (inline !== undefined) throw new UsageError('--write takes no value')
      given.set(flag, true)
      continue
    }
    if (!valued.has(flag)) throw new UsageError(`unknown option ${flag}`)
    const value = inline ?? argv[++i]
    if (value === undefined || value === '') throw new UsageError(`${flag} needs a value`)
    given.set(flag, value)
  }
  if (positional.length === 0 || positional.length > 2)
    throw new UsageError(positional.length === 0 ? 'name the commit to compare with (REF)' : `REF and at most one OTHER, got ${positional.join(' ')}`)
  const workload = (given.get('--workload') ?? 'w1') as string
  if (!(COMPARE_WORKLOADS as readonly string[]).includes(workload))
    throw new UsageError(`--workload must be one of ${COMPARE_WORKLOADS.join(', ')}, got ${workload}`)
  const whole = (flag: string, fallback: number, min: number): number => {
    const value = given.get(flag)
    if (value === undefined) return fallback
    const n = Number(value)
    if (!Number.isInteger(n) || n < min || String(value).trim() !== String(n))
      throw new UsageError(`${flag} must be a whole number of at least ${min}, got ${String(value)}`)
    return n
  }
  const only = given.get('--only')
  if (only !== undefined && only !== 'callgrind' && only !== 'wrk') throw new UsageError(`--only must be callgrind or wrk, got ${String(only)}`)
  const defaults = DEFAULTS[workload as CompareWorkload]
  return {
    ref: positional[0] as string,
    ...(positional[1] === undefined ? {} : { other: positional[1] }),
    workload: workload as CompareWorkload,
    requests: whole('--requests', defaults.requests, 1),
    warmup: whole('--warmup', defaults.warmup, 0),
    runs: whole('--runs', 3, 1),
    pairs: whole('--pairs', 5, 1),
    seconds: whole('--seconds', 5, 1),
    callgrind: only !== 'wrk',
    wrk: only !== 'callgrind',
    functions: whole('--functions', 15, 0),
    write: given.get('--write') === true,
    ...(typeof given.get('--keep') === 'string' ? { keep: given.get('--keep') as string } : {}),
  }
}

/** One commit's figures of one measure: the median, the extremes, and the spread (max − min) as a share of the median. */
export interface Spread {
  median: number
  min: number
  max: number
  /** (max − min) / median: 0 for one figure. */
  spread: number
  count: number
}

export function spreadOf(values: readonly number[]): Spread {
  if (values.length === 0) throw new Error('no figures')
  const mid = median(values)
  const min = Math.min(...values)
  const max = Math.max(...values)
  return { median: mid, min, max, spread: mid === 0 ? 0 : (max - min) / mid, count: values.length }
}

/** The verdict between the measured side's figures (the checkout's, or OTHER's) and REF's, for one measure. */
export interface Verdict {
  current: Spread
  ref: Spread
  /** median(current) / median(ref) − 1: +0.044 is 4.4 % more. */
  change: number
  /** |median(current) − median(ref)|, in the measure's unit. */
  gap: number
  /** The gap is larger than the spread (max − min) within each commit, and each has two figures or more. */
  differs: boolean
  text: string
}

/**
 * Judges two commits on one measure. A difference counts when the gap between their medians is
 * larger than the range (max − min) of the figures within each commit: smaller, it is within what
 * running the same code again moves. One figure on a side has no range, so it gives no verdict.
 * `higherIsBetter`: requests a second (true) or instructions a request (false), for the wording;
 * `name`: what the first side is called in it.
 */
export function judge(current: readonly number[], ref: readonly number[], higherIsBetter: boolean, name = 'the checkout'): Verdict {
  const a = spreadOf(current)
  const b = spreadOf(ref)
  const gap = Math.abs(a.median - b.median)
  const change = b.median === 0 ? 0 : a.median / b.median - 1
  const enough = a.count >= 2 && b.count >= 2
  const differs = enough && gap > a.max - a.min && gap > b.max - b.min
  const percent = `${change >= 0 ? '+' : '−'}${Math.abs(change * 100).toFixed(1)} %`
  const better = higherIsBetter ? change > 0 : change < 0
  const text = !enough
    ? `${percent}, no verdict: a commit has one figure (no spread to judge against)`
    : differs
      ? `${percent}: ${name} is ${better ? 'better' : 'worse'} (the gap is larger than the spread within each commit)`
      : `${percent}: within the spread (the gap is not larger than the spread within each commit)`
  return { current: a, ref: b, change, gap, differs, text }
}

/** One function's instructions per request on each side, and their difference. */
export interface FunctionDifference {
  name: string
  current: number
  ref: number
  /** current − ref, instructions per request. */
  difference: number
}

/** Code without a symbol (what the JIT made) has a new address in every process: it is counted as one. */
export const JIT_CODE = 'code without a symbol (JIT-compiled JavaScript, stubs)'

function perRequest(costs: readonly FunctionCost[], requests: number): Map<string, number> {
  const out = new Map<string, number>()
  for (const cost of costs) {
    const object = cost.object.slice(cost.object.lastIndexOf('/') + 1)
    const name = /^0x[0-9a-f]+$/i.test(cost.name) && (object === '???' || object === '') ? JIT_CODE : object === '' ? cost.name : `${cost.name} [${object}]`
    out.set(name, (out.get(name) ?? 0) + cost.instructions / requests)
  }
  return out
}

/**
 * The functions whose instructions per request differ most between two callgrind dumps (the
 * checkout's and the other commit's, read by parseCallgrindFunctions), the largest differences first.
 */
export function differences(
  current: readonly FunctionCost[],
  currentRequests: number,
  ref: readonly FunctionCost[],
  refRequests: number,
  count: number,
): FunctionDifference[] {
  const a = perRequest(current, currentRequests)
  const b = perRequest(ref, refRequests)
  const names = new Set([...a.keys(), ...b.keys()])
  return [...names]
    .map((name) => ({ name, current: a.get(name) ?? 0, ref: b.get(name) ?? 0, difference: (a.get(name) ?? 0) - (b.get(name) ?? 0) }))
    .sort((x, y) => Math.abs(y.difference) - Math.abs(x.difference) || x.name.localeCompare(y.name))
    .slice(0, count)
}

/** The kinds an instruction count is split into, to tell the request's own work from what a run may or may not catch. */
export type InstructionKind = 'garbage collection' | 'optimizing compiler' | 'the rest'

const GC_MARKS = [
  'Scaveng',
  'Marking',
  'MarkCompact',
  'Sweep',
  'Evacuat',
  'RememberedSet',
  'SlotSet',
  'PretenuringHandler',
  'heap::base::',
  'cppgc::',
  'LiveObjectRange',
  'MemoryChunk',
  'GCTracer',
  'v8::internal::Heap::',
  'RecordMigratedSlot',
  'MemoryAllocator',
  'FreeList',
  'PagedSpace',
  'MarkBit',
  'IterateAndScavenge',
  'IterateObjectCache',
  'RootVisitor',
  'IterateRoots',
  'GlobalHandles',
  'TracedHandles',
  'BodyDescriptor',
  'SizeFromMap',
  'LinearAllocationArea',
  'ArrayBufferSweeper',
  'HeapVisitor',
]
const COMPILER_MARKS = [
  'v8::internal::compiler::',
  'v8::internal::maglev::',
  'v8::internal::Zone',
  'OptimizedCompilationJob',
  'OptimizingCompileDispatcher',
  'PipelineCompilationJob',
]

/**
 * The kind of a function of a callgrind dump, by its C++ name: V8's garbage collector (scavenges,
 * marking, sweeping, on whichever thread), its optimizing compiler (TurboFan's phases, on the
 * compiler's thread), or the rest: JavaScript (JIT code and V8's builtins), Node, libuv and the C library.
 * A whole major collection, or a function compiled again, lands in a run or not; the rest is what a
 * request costs every time, so a difference there is the steadiest sign of a change in the request's own work.
 */
export function kindOf(name: string): InstructionKind {
  if (GC_MARKS.some((mark) => name.includes(mark))) return 'garbage collection'
  if (COMPILER_MARKS.some((mark) => name.includes(mark))) return 'optimizing compiler'
  return 'the rest'
}

/** A dump's instructions per request by kind. */
export function byKind(costs: readonly FunctionCost[], requests: number): Record<InstructionKind, number> {
  const out: Record<InstructionKind, number> = { 'garbage collection': 0, 'optimizing compiler': 0, 'the rest': 0 }
  for (const cost of costs) out[kindOf(cost.name)] += cost.instructions / requests
  return out
}
