/**
 * Where a request's time goes: `npm run bench:profile -- WORKLOAD` runs one workload's load (wrk,
 * as `npm run bench` drives it) against the built mock started with V8's sampling profiler
 * (`--cpu-prof`, a sample every 200 µs), keeps the samples taken while the load ran, and prints
 * the mock's time per answered request by where it went: the kernel's writes, `JSON.parse`,
 * Fastify, Node's HTTP and streams, the collector, and the mock's own code by folder, then the
 * functions that cost most. It asserts nothing and writes nothing to RESULTS.md: it is the
 * profile behind the misses that docs/performance.md explains.
 *
 * WORKLOAD: `w1` (a 200-row page, 50 connections), `w1-log` (the same with the default log line),
 * `w4` (one-row updates, 50 connections), `w4c` (creates of 300 rows, 16 connections).
 * BENCH_SECONDS sets the timed loads (default 8); `--keep DIR` keeps the .cpuprofile there (it
 * opens in Chrome's DevTools, Performance tab).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, cpSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { rowVersion } from '../../src/client/client.ts'
import { load, type LoadSpec } from './lib/load.ts'
import { dataHeaders, items } from './lib/mock.ts'
import { pinSelfToLoadCore, startServer, stopAll, stopServer } from './lib/processes.ts'
import { ensureWrk } from './lib/wrk.ts'
import { CREATE } from './workloads/w4c-creates.ts'
import { summarise, type CpuProfile } from './lib/profile-summary.ts'

const SAVE = '/ExplorerApi/api/items/save'
const ITEMS = '/ExplorerApi/api/items'
const ORDERS = 100_000

type Load = Omit<LoadSpec, 'url' | 'headers' | 'seconds'>

/**
 * The workload's load, and an unmeasured one before it (the JIT's warm-up lands in no figure), on
 * a mock already started. W4 reads every row's TIMESTAMP first: each update names a row no earlier
 * one touched, with the version it has now, and the warm-up takes the last rows, which the
 * measured run never reaches.
 */
async function workload(name: string, url: string, headers: Record<string, string>, seconds: number): Promise<{ measured: Load; warm: Load }> {
  if (name === 'w1' || name === 'w1-log') {
    const measured: Load = { connections: 50, requests: [{ method: 'POST', path: ITEMS, body: JSON.stringify({ query: `$top=200&$skip=${ORDERS / 2}` }) }] }
    return { measured, warm: { ...measured, amount: 3000 } }
  }
  if (name === 'w4') {
    const rows = JSON.parse(Buffer.from(await (await items(url, headers, `$top=${ORDERS}`)).arrayBuffer()).toString('utf8')) as Array<{
      Id: number
      TIMESTAMP: string
    }>
    const update = (row: { Id: number; TIMESTAMP: string }, i: number) => ({
      method: 'POST' as const,
      path: SAVE,
      body: JSON.stringify({ Rows: [{ Row: { Id: row.Id, TIMESTAMP: rowVersion(row.TIMESTAMP), Amount: 10 + (i % 1000) }, Details: [] }] }),
    })
    const amount = Math.min(ORDERS - 5000, 12_000 * seconds)
    return {
      measured: { connections: 50, amount, requests: rows.slice(0, amount + 100).map(update) },
      warm: { connections: 50, amount: 3000, requests: rows.slice(ORDERS - 3100).map(update) },
    }
  }
  if (name === 'w4c') {
    // W4c's own body (w4c-creates.ts), not a copy of it: the profile explains that workload's figures.
    const body = CREATE
    const measured: Load = { connections: 16, amount: 2000, requests: [{ method: 'POST', path: SAVE, body }] }
    return { measured, warm: { ...measured, amount: 200 } }
  }
  throw new Error(`unknown workload ${name}: w1, w1-log, w4 or w4c`)
}

async function main(): Promise<void> {
  const [name = 'w4', ...rest] = process.argv.slice(2)
  const keep = rest[0] === '--keep' ? rest[1] : undefined
  const seconds = Number(process.env.BENCH_SECONDS ?? 8)
  const missing = ensureWrk((line) => console.log(line))
  if (missing !== undefined) throw new Error(missing)
  pinSelfToLoadCore()
  const dir = mkdtempSync(join(tmpdir(), 'appdata-kit-profile-'))
  try {
    const quiet = name === 'w1-log' ? [] : ['--quiet']
    const command = [
      process.execPath,
      '--cpu-prof',
      '--cpu-prof-dir',
      dir,
      '--cpu-prof-interval',
      '200',
      '--max-semi-space-size=32',
      'dist/src/mock/server.js',
      '--port',
      '0',
      '--rows',
      String(ORDERS - 25),
      ...quiet,
    ]
    const mock = await startServer(`mock ${name}`, command)
    const headers = await dataHeaders(mock.url)
    const { measured, warm } = await workload(name, mock.url, headers, seconds)
    await load({ url: mock.url, headers, seconds, ...warm })
    const from = Number(process.hrtime.bigint() / 1000n)
    const result = await load({ url: mock.url, headers, seconds, ...measured })
    const to = Number(process.hrtime.bigint() / 1000n)
    await stopServer(mock)
    const file = readdirSync(dir).find((entry) => entry.endsWith('.cpuprofile'))
    if (file === undefined) throw new Error('the mock wrote no profile')
    if (keep !== undefined) cpSync(join(dir, file), join(keep, file))
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile
    const { byComponent, byFunction, sampled } = summarise(profile, from, to)
    const requests = result.requests
    const perRequest = (us: number) => (us / requests).toFixed(us / requests < 10 ? 2 : 1)
    const busy = sampled - (byComponent.get('idle') ?? 0)
    console.log(
      `\n${name}: ${requests} answers in ${((to - from) / 1e6).toFixed(2)} s, ${result.rps.toFixed(0)} req/s (profiled: the profiler's own cost is in the figures), p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms`,
    )
    console.log(`the mock's thread was busy ${perRequest(busy)} µs per answer, idle ${perRequest(byComponent.get('idle') ?? 0)} µs\n`)
    console.log('| where | µs per answer | share of busy |\n|---|---|---|')
    for (const [component, us] of [...byComponent].filter(([c]) => c !== 'idle').sort((a, b) => b[1] - a[1])) {
      if (us / requests < 0.05) continue
      console.log(`| ${component} | ${perRequest(us)} | ${((100 * us) / busy).toFixed(1)} % |`)
    }
    console.log('\nThe 25 functions that cost most (self time):\n')
    for (const [fn, us] of [...byFunction]
      .filter(([f]) => !f.startsWith('(idle)'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 25))
      console.log(`${perRequest(us).padStart(8)} µs  ${fn}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  console.error(error)
  stopAll()
  process.exitCode = 1
})
