/**
 * `npm run bench`: every workload of the benchmark in one go, servers on one core and the load
 * generator on the other, compared servers alternated round by round; prints the tables and
 * writes them to test/bench/RESULTS.md. Timings are never asserted anywhere: the machines are
 * shared, so the ratios to baselines measured in the same run are what counts.
 * BENCH_SECONDS (per load run, default 5), BENCH_ROUNDS (default 3) and BENCH_ONLY (w1,w2,...) change the run.
 */
import { writeFileSync } from 'node:fs'
import { cpus } from 'node:os'
import { join } from 'node:path'
import { markdown, type Table } from './lib/report.ts'
import { PINNING, ROOT, stopAll } from './lib/processes.ts'
import { pages } from './workloads/w1-pages.ts'
import { queries } from './workloads/w2-w3-queries.ts'
import { writes } from './workloads/w4-writes.ts'
import { memory, start } from './workloads/w5-w6-start.ts'
import { bigSaves } from './workloads/w7-big-save.ts'
import { peers } from './workloads/w8-peers.ts'

export interface Settings {
  seconds: number
  rounds: number
}

const settings: Settings = { seconds: Number(process.env.BENCH_SECONDS ?? 5), rounds: Number(process.env.BENCH_ROUNDS ?? 3) }
const only = process.env.BENCH_ONLY?.split(',')
const wanted = (name: string) => only === undefined || only.includes(name)

process.on('exit', stopAll)
const tables: Table[] = []
const started = performance.now()
try {
  if (wanted('w1')) tables.push(await pages(settings))
  if (wanted('w2')) tables.push(...(await queries(settings)))
  if (wanted('w4')) tables.push(...(await writes(settings)))
  if (wanted('w5')) tables.push(await memory())
  if (wanted('w6')) tables.push(await start(settings))
  if (wanted('w7')) tables.push(await bigSaves(settings))
  if (wanted('w8')) tables.push(await peers(settings))
} finally {
  stopAll()
}
const header = [
  '# Benchmark results',
  '',
  `Made by \`npm run bench\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown CPU'}), Node ${process.version}; ` +
    `${PINNING ? 'servers pinned to core 0 and the load generator to core 1 (taskset)' : 'nothing pinned'}; medians of ${settings.rounds} alternating rounds of ${settings.seconds} s; ` +
    `the whole run took ${((performance.now() - started) / 60_000).toFixed(1)} min. The machine is shared: read the ratios, which compare servers measured in the same run.`,
  '',
].join('\n')
const text = `${header}\n${tables.map(markdown).join('\n')}`
process.stdout.write(text)
if (only === undefined) writeFileSync(join(ROOT, 'test/bench/RESULTS.md'), text)
