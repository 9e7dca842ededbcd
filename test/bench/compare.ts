/**
 * `npm run bench:compare -- REF [OTHER] [--workload w1|w4c] ...`: one workload on two commits side by
 * side, in one run: the checkout as it is (built by the npm script), or OTHER, against REF, each
 * commit built in a temporary git worktree of its own (its own `npm ci` and build, removed at the
 * end). Both are measured two ways:
 *
 * - instructions per request under valgrind's callgrind (test/bench/lib/callgrind.ts): the server
 *   under callgrind, a warm-up, the counters zeroed, N requests in turn over one kept-alive
 *   connection from a loopback client, the counters dumped; the dump's total over N, with nothing
 *   subtracted. Repeatable whatever else the machine runs. `--runs` runs per commit (the two commits'
 *   runs side by side, with the workload's bound);
 * - requests a second by wrk (the bench's load, servers on core 0, wrk on core 1), `--pairs` runs per
 *   commit, interleaved (the order swapped every pair), with the bound in every pair.
 *
 * Each measure is printed with the spread within each commit; a difference counts when the gap
 * between the commits' medians is larger than the spread within each (lib/compare.ts, `judge`).
 * With callgrind, the functions whose instructions per request differ most between the two follow
 * (each function's own cost in each commit's first dump), and the first side's own costliest functions.
 * `--write` puts the tables into test/bench/RESULTS.md's compare section, which `npm run bench`
 * keeps when it rewrites the file. Nothing is asserted; docs/benchmark.md says how to read it.
 */
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { baselineCommand } from './lib/baselines.ts'
import { countInstructions, functionsOf, missingCallgrind, SETTLING, type InstructionRun } from './lib/callgrind.ts'
import {
  byKind,
  COMPARE_USAGE,
  differences,
  judge,
  parseCompareArgs,
  spreadOf,
  UsageError,
  type CompareOptions,
  type CompareWorkload,
  type InstructionKind,
  type Verdict,
} from './lib/compare.ts'
import { load, type LoadSpec } from './lib/load.ts'
import { dataHeaders, items, mockCommand, startMockServer } from './lib/mock.ts'
import { PINNING, pinSelfToLoadCore, ROOT, startServer, stopAll, stopServer, type Server } from './lib/processes.ts'
import { COMPARE_END, COMPARE_START, fixed, markdown, replaceCompareSection, type Table } from './lib/report.ts'
import { ensureWrk, wrkVersion } from './lib/wrk.ts'
import type { LoadRequest } from './lib/wrk-output.ts'
import { W4C_BOUND, CREATE } from './workloads/w4c-creates.ts'

const log = (line: string) => process.stderr.write(`compare: ${line}\n`)
const ITEMS = '/ExplorerApi/api/items'
const SAVE = '/ExplorerApi/api/items/save'
/** Orders in the mock of both workloads, as `npm run bench` has them (W1, W4c). */
const ORDERS = 100_000

/** A workload as the compare command runs it. */
interface Workload {
  title: string
  /** The request number i (the same list on both commits). */
  request: (i: number) => LoadRequest
  check?: (body: Buffer) => string | undefined
  /** wrk's connections, and whether each wrk run counts a fixed number of answers on a fresh server (creates add rows). */
  connections: number
  amount?: { warmup: number; counted: number }
  /** Requests in a window of the warm-up's end (SETTLING): a few seconds of the server's work under callgrind. */
  window: number
  /** The bound the workload's target is a share of: its name, and its command over files written into `dir` from the checkout's probe mock. */
  bound: { name: string; target: string; prepare: (url: string, headers: Record<string, string>, dir: string) => Promise<string[]> }
}

const refusedSave = (body: Buffer) => (body.includes('"IsSaveSuccessfully":true') ? undefined : 'the save was refused')

const WORKLOADS: Record<CompareWorkload, Workload> = {
  w1: {
    title: `W1: a 200-row page of ${ORDERS / 1000} k orders`,
    request: () => ({ method: 'POST', path: ITEMS, body: JSON.stringify({ query: `$top=200&$skip=${ORDERS / 2}` }) }),
    connections: 50,
    window: 1000,
    bound: {
      name: 'bare node:http, the same page as bytes (the bound)',
      target: '≥ 0.6× the bound',
      prepare: async (url, headers, dir) => {
        const page = Buffer.from(await (await items(url, headers, `$top=200&$skip=${ORDERS / 2}`)).arrayBuffer())
        writeFileSync(join(dir, 'page.json'), page)
        return baselineCommand('node-bytes', join(dir, 'page.json'))
      },
    },
  },
  w4c: {
    title: `W4c: creates of 100 orders + 200 lines over ${ORDERS / 1000} k orders`,
    request: () => ({ method: 'POST', path: SAVE, body: CREATE }),
    check: refusedSave,
    connections: 16,
    amount: { warmup: 200, counted: 2000 },
    window: 100,
    bound: {
      name: `${W4C_BOUND.name} (the bound)`,
      target: '≥ 0.5× the bound',
      prepare: async (url, headers, dir) => W4C_BOUND.command(Buffer.from(await (await items(url, headers, `$top=${ORDERS}`)).arrayBuffer()), dir),
    },
  },
}

const git = (args: string[], cwd = ROOT): string => {
  const result = spawnSync('git', args, { cwd, encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`git ${args.join(' ')}: ${result.stderr.trim()}`)
  return result.stdout.trim()
}

/** Runs a command in `cwd`, its output to this process's error stream; throws when it fails. */
function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, stdio: ['ignore', process.stderr, process.stderr], timeout: 1_800_000 })
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} in ${cwd} failed (${result.status ?? result.signal})`)
}

/** A commit side of the comparison: where it is built, and how to name it. */
interface Side {
  key: 'current' | 'ref'
  label: string
  dir: string
}

/** The full commit a ref names; a UsageError when it names none. */
function commitOf(ref: string): string {
  const resolved = spawnSync('git', ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: ROOT, encoding: 'utf8' })
  if (resolved.status !== 0) throw new UsageError(`${ref} names no commit of this repository`)
  return resolved.stdout.trim()
}

async function main(options: CompareOptions): Promise<void> {
  const workload = WORKLOADS[options.workload]
  const sha = commitOf(options.ref)
  const otherSha = options.other === undefined ? undefined : commitOf(options.other)
  const head = git(['rev-parse', '--short', 'HEAD'])
  const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== ''
  const current: Side =
    options.other === undefined
      ? { key: 'current', label: `checkout (${head}${dirty ? ' + uncommitted changes' : ''})`, dir: ROOT }
      : { key: 'current', label: `${options.other} (${(otherSha as string).slice(0, 7)})`, dir: '' }
  const ref: Side = { key: 'ref', label: `${options.ref} (${sha.slice(0, 7)})`, dir: '' }
  if (options.callgrind) {
    const missing = missingCallgrind()
    if (missing !== undefined) throw new Error(missing)
  }
  if (options.wrk) {
    const missing = ensureWrk(log)
    if (missing !== undefined) throw new Error(missing)
    pinSelfToLoadCore()
  }
  const work = mkdtempSync(join(tmpdir(), 'appdata-kit-compare-'))
  const trees: string[] = []
  /** Builds a commit in a temporary worktree of its own, as a user's checkout would be: its own npm ci and build. */
  const build = (side: Side, commit: string) => {
    const tree = join(work, side.key)
    log(`building ${side.label} in a temporary worktree (${tree}): npm ci, npm run build`)
    git(['worktree', 'add', '--detach', tree, commit])
    trees.push(tree)
    run('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], tree)
    run('npm', ['run', 'build'], tree)
    side.dir = tree
  }
  /** Stops every server, removes the worktrees (their own git metadata with them) and the folder. */
  const cleanUp = () => {
    stopAll()
    for (const tree of trees.splice(0)) spawnSync('git', ['worktree', 'remove', '--force', tree], { cwd: ROOT })
    rmSync(work, { recursive: true, force: true })
  }
  // An interrupted run leaves no worktree behind either.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      cleanUp()
      process.exit(130)
    })
  }
  const started = performance.now()
  try {
    build(ref, sha)
    if (otherSha !== undefined) build(current, otherSha)
    const sides = [current, ref]

    // The bound's files come from the first side's mock: the bytes both commits answer (W1) or the rows they start with (W4c).
    const probe = await startMockServer(ORDERS, [], { cwd: current.dir })
    const boundCommand = await workload.bound.prepare(probe.url, await dataHeaders(probe.url), work).finally(() => stopServer(probe))

    const instructions = new Map<string, InstructionRun[]>()
    if (options.callgrind) {
      const dumps = join(work, 'dumps')
      mkdirSync(dumps)
      for (let round = 0; round < options.runs; round++) {
        log(
          `callgrind round ${round + 1} of ${options.runs}: ${options.warmup} requests and windows of ${workload.window} until the optimizing compiler falls quiet, then ${options.requests} counted, on each commit and the bound side by side`,
        )
        const jobs = [
          ...sides.map((side) => ({ key: side.key, cwd: side.dir, command: mockCommand(ORDERS), prepare: dataHeaders })),
          { key: 'bound', cwd: ROOT, command: boundCommand, prepare: async () => ({}) },
        ]
        const results = await Promise.all(
          jobs.map((job) =>
            countInstructions({
              name: `${job.key}-${round}`,
              cwd: job.cwd,
              command: job.command,
              dir: dumps,
              warmup: options.warmup,
              requests: options.requests,
              prepare: job.prepare,
              request: workload.request,
              settling: { ...SETTLING, window: workload.window },
              ...(workload.check === undefined ? {} : { check: workload.check }),
            }),
          ),
        )
        results.forEach((result, i) => instructions.set(jobs[i]?.key as string, [...(instructions.get(jobs[i]?.key as string) ?? []), result]))
        log(
          `  ${jobs.map((job, i) => `${job.key} ${fixed((results[i]?.perRequest ?? 0) / 1000)} k (after ${results[i]?.warmup})`).join(', ')} instructions a request`,
        )
      }
    }

    const rates = new Map<string, number[]>()
    if (options.wrk) await measureRates(options, workload, sides, boundCommand, rates)

    const tables = report(options, workload, sides, instructions, rates)
    const text = tables.map(markdown).join('\n')
    process.stdout.write(`\n${text}`)
    if (options.write) {
      const path = join(ROOT, 'test/bench/RESULTS.md')
      const date = new Date().toISOString().slice(0, 10)
      const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}`
      const section = [
        `## ${options.workload.toUpperCase()} against another commit (\`npm run bench:compare\`)`,
        '',
        `Made by \`npm run bench:compare -- ${options.ref}${options.other === undefined ? '' : ` ${options.other}`} --workload ${options.workload}\` on ${date}: ${machine}; ${options.callgrind ? `${options.runs} callgrind run(s) per commit, ${options.requests} requests counted in windows of ${workload.window} after a warm-up of at least ${options.warmup}` : 'no callgrind'}; ${options.wrk ? `${options.pairs} wrk run(s) of ${options.seconds} s per commit, interleaved (${wrkVersion()}, ${PINNING ? 'servers on core 0, wrk on core 1' : 'nothing pinned'})` : 'no wrk'}; ${((performance.now() - started) / 60_000).toFixed(1)} min. \`npm run bench\` keeps this section when it rewrites the file.`,
        '',
        text,
      ].join('\n')
      writeFileSync(path, replaceCompareSection(existsSync(path) ? readFileSync(path, 'utf8') : '', section))
      log(`wrote the compare section of test/bench/RESULTS.md (${COMPARE_START.slice(0, 22)}… ${COMPARE_END})`)
    }
    if (options.keep !== undefined && options.callgrind) cpSync(join(work, 'dumps'), options.keep, { recursive: true })
  } finally {
    cleanUp()
  }
  log(`took ${((performance.now() - started) / 60_000).toFixed(1)} min`)
}

/**
 * Requests a second by wrk: the two commits interleaved, their order swapped every pair, the bound
 * in every pair. W1 keeps its servers for the whole run (warmed up by one unmeasured load each);
 * W4c starts every server fresh for each run and counts a fixed number of answers after a warm-up,
 * as `npm run bench` does, so the rows it adds stay bounded.
 */
async function measureRates(options: CompareOptions, workload: Workload, sides: Side[], boundCommand: string[], rates: Map<string, number[]>): Promise<void> {
  const starters: Record<string, () => Promise<{ server: Server; headers: Record<string, string> }>> = {
    bound: async () => ({ server: await startServer('bound', boundCommand), headers: {} }),
  }
  for (const side of sides)
    starters[side.key] = async () => {
      const server = await startMockServer(ORDERS, [], { cwd: side.dir })
      return { server, headers: await dataHeaders(server.url) }
    }
  const requests = Array.from({ length: workload.amount === undefined ? 1 : workload.amount.counted + workload.connections + 1 }, (_, i) => workload.request(i))
  const spec = (url: string, headers: Record<string, string>, amount?: number): LoadSpec => ({
    url,
    connections: workload.connections,
    seconds: options.seconds,
    headers,
    requests,
    ...(amount === undefined ? {} : { amount }),
  })
  const kept = new Map<string, { server: Server; headers: Record<string, string> }>()
  try {
    if (workload.amount === undefined) {
      for (const [key, start] of Object.entries(starters)) {
        const started = await start()
        kept.set(key, started)
        await load(spec(started.server.url, started.headers))
      }
    }
    for (let pair = 0; pair < options.pairs; pair++) {
      const order = pair % 2 === 0 ? ['current', 'ref', 'bound'] : ['ref', 'current', 'bound']
      for (const key of order) {
        let measured: number
        if (workload.amount === undefined) {
          const { server, headers } = kept.get(key) as { server: Server; headers: Record<string, string> }
          measured = (await load(spec(server.url, headers))).rps
        } else {
          const { server, headers } = await (starters[key] as () => Promise<{ server: Server; headers: Record<string, string> }>)()
          try {
            await load(spec(server.url, headers, workload.amount.warmup))
            measured = (await load(spec(server.url, headers, workload.amount.counted))).rps
          } finally {
            await stopServer(server)
          }
        }
        rates.set(key, [...(rates.get(key) ?? []), measured])
      }
      log(`wrk pair ${pair + 1} of ${options.pairs}: ${order.map((key) => `${key} ${fixed(rates.get(key)?.at(-1) ?? 0)}`).join(', ')} req/s`)
    }
  } finally {
    for (const { server } of kept.values()) await stopServer(server)
  }
}

const range = (values: readonly number[], scale: number, digits: number) => {
  const min = Math.min(...values) / scale
  const max = Math.max(...values) / scale
  return `${min.toFixed(digits)}–${max.toFixed(digits)}`
}

/** The tables: both measures per commit with their spread and the bound, the verdicts, and the functions that differ. */
function report(
  options: CompareOptions,
  workload: Workload,
  sides: Side[],
  instructions: Map<string, InstructionRun[]>,
  rates: Map<string, number[]>,
): Table[] {
  const perRequest = (key: string) => (instructions.get(key) ?? []).map((run) => run.perRequest)
  // Each run's count split by kind (its dump read again): the rest is what every request costs.
  const kinds = new Map([...instructions].map(([key, runs]) => [key, runs.map((run) => byKind(functionsOf(run.dump), run.window))]))
  const kind = (key: string, which: InstructionKind) => (kinds.get(key) ?? []).map((split) => split[which])
  const names: Record<string, string> = { current: sides[0]?.label as string, ref: sides[1]?.label as string, bound: workload.bound.name }
  const boundInstructions = perRequest('bound')
  const boundRate = rates.get('bound') ?? []
  const cell = (values: readonly number[], scale: number, digits: number) => {
    if (values.length === 0) return '-'
    const s = spreadOf(values)
    return `${(s.median / scale).toFixed(digits)} (${range(values, scale, digits)}, spread ${(s.spread * 100).toFixed(1)} %)`
  }
  const medianOf = (values: readonly number[]) => (values.length === 0 ? Number.NaN : spreadOf(values).median)
  const rows = ['current', 'ref', 'bound'].map((key) => {
    const ins = perRequest(key)
    const rps = rates.get(key) ?? []
    const split = (['garbage collection', 'optimizing compiler', 'the rest'] as const).map((which) =>
      ins.length === 0 ? '-' : fixed(medianOf(kind(key, which)) / 1000),
    )
    const means = (instructions.get(key) ?? []).map((run) => run.mean)
    return [
      names[key] as string,
      cell(ins, 1e6, 4),
      means.length === 0 ? '-' : range(means, 1e6, 4),
      ins.length === 0 ? '-' : split.join(' / '),
      key === 'bound' || ins.length === 0 ? '-' : `${(medianOf(boundInstructions) / medianOf(ins)).toFixed(2)}×`,
      cell(rps, 1, 0),
      key === 'bound' || rps.length === 0 ? '-' : `${(medianOf(rps) / medianOf(boundRate)).toFixed(2)}×`,
    ]
  })
  const warmedUp = [...instructions.values()].flat().map((run) => run.warmup)
  const warmups = warmedUp.length === 0 ? '-' : `${Math.min(...warmedUp)}–${Math.max(...warmedUp)}`
  const verdicts: Array<[string, Verdict]> = []
  const first = options.other ?? 'the checkout'
  if (perRequest('current').length > 0) {
    verdicts.push(['instructions a request', judge(perRequest('current'), perRequest('ref'), false, first)])
    verdicts.push([
      'instructions a request, the rest (neither collector nor optimizing compiler)',
      judge(kind('current', 'the rest'), kind('ref', 'the rest'), false, first),
    ])
  }
  if ((rates.get('current') ?? []).length > 0)
    verdicts.push(['requests a second (wrk)', judge(rates.get('current') ?? [], rates.get('ref') ?? [], true, first)])
  const tables: Table[] = [
    {
      title: `${workload.title}: ${first} against ${options.ref}`,
      columns: [
        'server',
        'M instructions a request (median, min–max, spread)',
        'M, the mean of all windows (min–max)',
        'of which k: collector / optimizing compiler / the rest (medians)',
        'the bound ÷ this, in instructions',
        'req/s by wrk (median, min–max, spread)',
        'this ÷ the bound, in req/s',
      ],
      rows,
      notes: [
        ...verdicts.map(([measure, verdict]) => `**${measure}**, ${first} against ${options.ref}: ${verdict.text}.`),
        `Instructions: valgrind's callgrind, requests sent one at a time over one kept-alive connection; after a warm-up (${options.warmup} requests, then windows of ${workload.window} until one spends under ${SETTLING.share * 100} % of its instructions in V8's optimizing compiler: ${warmups} requests in all), ${options.requests} requests counted in windows of ${workload.window}, each window every instruction of the server's process (all its threads) between two dumps divided by its requests, nothing subtracted. A run's figure is its median window (a major collection of the old generation, which lands in one window of some runs and in none of others, left out); the mean over its windows, collections included, is in the next column. ${options.runs} run(s) a commit. Split by function: V8's garbage collector, its optimizing compiler (a function optimized late or again), and the rest (JavaScript, V8's builtins, Node, libuv, the C library), which every request pays and runs move least. Requests a second: wrk, ${workload.connections} connections, ${workload.amount === undefined ? `${options.seconds} s a run on servers kept for the whole run` : `${workload.amount.counted} answers counted a run after ${workload.amount.warmup} on a fresh server`}, ${options.pairs} run(s) a commit interleaved with the other's. Spread: (max − min) ÷ median. Target: ${workload.bound.target}. A difference counts when the gap between the medians is larger than the spread within each commit.`,
      ],
    },
  ]
  const current = instructions.get('current')?.[0]
  const other = instructions.get('ref')?.[0]
  if (options.functions > 0 && current !== undefined && other !== undefined) {
    const a = functionsOf(current.dump)
    const b = functionsOf(other.dump)
    const scale = (value: number) => fixed(value / 1000, 1)
    tables.push({
      title: `${workload.title}: where the two commits differ, instructions a request (each function's own, in the median window of each side's first run)`,
      columns: ['function [object]', `${options.other ?? 'checkout'}, k`, `${options.ref}, k`, 'difference, k'],
      rows: differences(a, current.window, b, other.window, options.functions).map((d) => [
        `\`${d.name}\``,
        scale(d.current),
        scale(d.ref),
        `${d.difference >= 0 ? '+' : ''}${scale(d.difference)}`,
      ]),
      notes: [
        "Functions of the node binary and its libraries by name (V8's builtins are `Builtins_…`, its optimizing compiler `v8::internal::compiler::…`, garbage collection `v8::internal::Scavenger…`, `…Marking…`); code without a symbol (what the JIT compiled from JavaScript) is one row, since its addresses change from process to process: a CPU profile (`npm run bench:profile`) splits it by JavaScript function.",
      ],
    })
    tables.push({
      title: `${workload.title}: ${options.other ?? 'the checkout'}'s costliest functions, instructions a request`,
      columns: ['function [object]', 'k'],
      rows: differences(a, current.window, [], 1, options.functions).map((d) => [`\`${d.name}\``, scale(d.current)]),
    })
  }
  return tables
}

process.on('exit', stopAll)
try {
  await main(parseCompareArgs(process.argv.slice(2)))
} catch (error) {
  // Bad input (an unknown option, a REF that names no commit) exits 2 with the usage; a failed measurement 1.
  const usage = error instanceof UsageError
  process.stderr.write(`compare: ${error instanceof Error ? error.message : String(error)}\n${usage ? `${COMPARE_USAGE}\n` : ''}`)
  process.exitCode = usage ? 2 : 1
}
