/**
 * `npm run bench`: every workload of the benchmark in one go, servers on one core and the load
 * generator (wrk) on the other, compared servers alternated round by round; prints the tables and
 * writes them to test/bench/RESULTS.md, and their targets to docs/performance.md, from
 * the same run. Timings are never asserted anywhere: the machines are shared, so the ratios to
 * baselines measured in the same run are what counts, and every throughput sits beside the load
 * generator's own ceiling (bare node:http answering the same bytes).
 * BENCH_QUICK=1 (a short harness check: one round of 1 s, 20 k orders; its results say so),
 * BENCH_SECONDS (per timed load run, default 5), BENCH_ROUNDS (default 3), BENCH_ONLY (w1,w2,...;
 * writes nothing) and BENCH_WRK (the wrk binary) change the run.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import {
  BLOCK_PAGE,
  markdown,
  BLOCK_END,
  BLOCK_START,
  keepCompareSection,
  replaceBenchBlock,
  targetsTable,
  type Check,
  type Outcome,
  type Table,
} from './lib/report.ts'
import { PINNING, pinSelfToLoadCore, ROOT, stopAll } from './lib/processes.ts'
import { ensureWrk, wrkVersion } from './lib/wrk.ts'
import { pages } from './workloads/w1-pages.ts'
import { queries } from './workloads/w2-w3-queries.ts'
import { writes } from './workloads/w4-writes.ts'
import { creates } from './workloads/w4c-creates.ts'
import { memory, start } from './workloads/w5-w6-start.ts'
import { bigSaves } from './workloads/w7-big-save.ts'
import { peers } from './workloads/w8-peers.ts'
import { proxies } from './workloads/w9-proxy.ts'
import { rules } from './workloads/w10-rules.ts'
import { stateAtScale } from './workloads/w11-state.ts'
import { errorPath } from './workloads/w12-error-path.ts'

export interface Settings {
  /** Seconds of a timed load run. */
  seconds: number
  rounds: number
  quick: boolean
  /** Orders of W1, W4, W7 and W8 (100 k; 20 k quick). */
  orders: number
  /** The data sizes of W2, W3 and W5 (100 k and 1 M orders; 20 k quick). */
  sizes: number[]
  /** W7's save, MB (59, just under the 60 MB limit; 5 quick). */
  bigSaveMb: number
}

const quick = process.env.BENCH_QUICK === '1'
const settings: Settings = {
  seconds: Number(process.env.BENCH_SECONDS ?? (quick ? 1 : 5)),
  rounds: Number(process.env.BENCH_ROUNDS ?? (quick ? 1 : 3)),
  quick,
  orders: quick ? 20_000 : 100_000,
  sizes: quick ? [20_000] : [100_000, 1_000_000],
  bigSaveMb: quick ? 5 : 59,
}
const only = process.env.BENCH_ONLY?.split(',')
const wanted = (name: string) => only === undefined || only.includes(name)
const log = (line: string) => process.stderr.write(`bench: ${line}\n`)
const minutes = (ms: number) => `${(ms / 60_000).toFixed(1)} min`

process.on('exit', stopAll)
pinSelfToLoadCore()
const started = performance.now()
const missing = ensureWrk(log)
if (missing !== undefined) log(`HTTP WORKLOADS NOT MEASURED: ${missing}`)
const generator = missing === undefined ? `${wrkVersion()}, one thread` : 'none (wrk missing)'

const workloads: Array<{ name: string; http: boolean; title: string; run: () => Promise<Outcome> }> = [
  { name: 'w1', http: true, title: 'W1: a 200-row page', run: () => pages(settings) },
  { name: 'w2', http: true, title: 'W2 and W3: filtered pages and counts', run: () => queries(settings) },
  { name: 'w4', http: true, title: 'W4 and W4b: writes', run: () => writes(settings) },
  { name: 'w4c', http: true, title: 'W4c: creates of 300 rows', run: () => creates(settings) },
  { name: 'w5', http: false, title: 'W5: memory and start', run: () => memory(settings) },
  { name: 'w6', http: false, title: 'W6: start-up', run: () => start(settings) },
  { name: 'w7', http: true, title: 'W7: a big save beside small reads', run: () => bigSaves(settings) },
  { name: 'w8', http: true, title: 'W8: peers on W1', run: () => peers(settings) },
  { name: 'w9', http: true, title: 'W9: the proxy', run: () => proxies(settings) },
  { name: 'w10', http: true, title: 'W10: answer rules', run: () => rules(settings) },
  { name: 'w11', http: false, title: 'W11: the state file at scale', run: () => stateAtScale(settings) },
  { name: 'w12', http: true, title: 'W12: the error path', run: () => errorPath(settings) },
]
const tables: Table[] = []
const checks: Check[] = []
try {
  for (const workload of workloads.filter((w) => wanted(w.name))) {
    if (workload.http && missing !== undefined) {
      tables.push({ title: workload.title, columns: ['measure'], rows: [['not measured']], notes: [`Not measured: ${missing}`] })
      checks.push({
        workload: workload.name.toUpperCase(),
        target: 'every target of the workload',
        figure: '-',
        verdict: 'not measured: no load generator (wrk)',
      })
      continue
    }
    const begun = performance.now()
    log(`${workload.name} ...`)
    const outcome = await workload.run()
    tables.push(...outcome.tables)
    checks.push(...outcome.checks)
    log(`${workload.name} done in ${((performance.now() - begun) / 1000).toFixed(0)} s`)
  }
} finally {
  stopAll()
}

const took = minutes(performance.now() - started)
const date = new Date().toISOString().slice(0, 10)
const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}`
const label = settings.quick
  ? [
      `> **Quick harness check (\`BENCH_QUICK=1\`), not figures to quote:** ${settings.rounds} round(s) of ${settings.seconds} s per load and ${settings.orders / 1000} k orders instead of three rounds of 5 s over 100 k and 1 M, run to check the bench end to end, on a machine that may be busy with other work. \`npm run bench\` on a quiet machine writes the real figures here.`,
      '',
    ]
  : []
const noGenerator = missing === undefined ? [] : [`> **The HTTP workloads were not measured:** ${missing}.`, '']
const method =
  `Made by \`npm run bench\` on ${date}: ${machine}; load generator ${generator}; ` +
  `${PINNING ? 'servers pinned to core 0, the load generator and the bench itself to core 1 (taskset)' : 'nothing pinned'}; medians of ${settings.rounds} alternating round(s) of ${settings.seconds} s; ` +
  `the whole run took ${took}. Every throughput table has the load generator's ceiling, bare node:http answering the same bytes in the same run; a figure at 90 % of it or more is marked "${'bounded by the load generator'}" and never counted as a target met.`
const text = ['# Benchmark results', '', ...label, ...noGenerator, method, '', markdown(targetsTable(checks)), ...tables.map(markdown)].join('\n')
process.stdout.write(text)
if (only === undefined) {
  // The section `npm run bench:compare -- REF --write` wrote stays: it comes from another command.
  const results = join(ROOT, 'test/bench/RESULTS.md')
  writeFileSync(results, keepCompareSection(existsSync(results) ? readFileSync(results, 'utf8') : '', text))
  const pagePath = join(ROOT, BLOCK_PAGE)
  const block = [
    ...label,
    ...noGenerator,
    `The last run (${date}, ${machine}, load generator ${generator}, ${settings.rounds} round(s) of ${settings.seconds} s, ${took} in all); every table, with each workload's ceiling, is in [\`test/bench/RESULTS.md\`](../test/bench/RESULTS.md):`,
    '',
    markdown({ ...targetsTable(checks), title: 'Targets' }).replace(/^### Targets\n\n/, ''),
  ].join('\n')
  writeFileSync(pagePath, replaceBenchBlock(readFileSync(pagePath, 'utf8'), block))
  log(`wrote test/bench/RESULTS.md and the block of ${BLOCK_PAGE} between ${BLOCK_START.slice(0, 20)}… and ${BLOCK_END}`)
}
log(`the whole run took ${took}`)
// A run that could not measure its HTTP workloads is not a finished benchmark.
if (missing !== undefined) {
  log(`HTTP WORKLOADS NOT MEASURED: ${missing}`)
  process.exitCode = 1
}
