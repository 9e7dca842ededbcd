import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, watch } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { rowVersion } from '../../../src/client/client.ts'
import { dataHeaders, items, startMockServer } from '../lib/mock.ts'
import { ROOT, rssMb, stopServer, type Server } from '../lib/processes.ts'
import { fixed, holds, type Check, type Outcome } from '../lib/report.ts'
import type { Settings } from '../run.ts'

/** Seconds between the state file's snapshots in W11: the snapshot it times comes soon after a save. */
const INTERVAL_S = 5
/** A small request's longest wait beside the state's work, and the restart's bounds. */
const FREEZE_MS = 50
const READY_MS = 10_000
const READY_GOAL_MS = 5_000
const RSS_MB = 1024

/** Slowest, p99 and count of the small requests a probe sent. */
interface Probe {
  max: number
  p99: number
  count: number
}

/**
 * Small Get Items requests (`$top=10`), one at a time with 5 ms between them, from now until
 * `until` settles and half a second more: each one's time from sending to its last byte. The
 * slowest is about the longest the mock did nothing but the work beside it.
 */
async function probe(url: string, headers: Record<string, string>, until: Promise<unknown>): Promise<Probe> {
  let done = false
  void until.finally(() => setTimeout(() => (done = true), 500))
  const times: number[] = []
  // Five minutes at most, whatever `until` does.
  const limit = performance.now() + 300_000
  while (!done && performance.now() < limit) {
    const begun = performance.now()
    await (await items(url, headers, '$top=10')).arrayBuffer()
    times.push(performance.now() - begun)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  times.sort((a, b) => a - b)
  return { max: times[times.length - 1] ?? Number.NaN, p99: times[Math.floor(times.length * 0.99)] ?? Number.NaN, count: times.length }
}

/** Resolves when `file` is replaced by a rename (a new snapshot put in place), or rejects after `ms`. */
function replaced(file: string, ms: number): Promise<void> {
  const before = statSync(file).ino
  return new Promise((resolve, reject) => {
    const watcher = watch(dirname(file), () => {
      if (existsSync(file) && statSync(file).ino !== before) finish()
    })
    const timer = setTimeout(() => finish(new Error(`${basename(file)} was not written again in ${ms / 1000} s`)), ms)
    const finish = (error?: Error) => {
      clearTimeout(timer)
      watcher.close()
      if (error === undefined) resolve()
      else reject(error)
    }
  })
}

/** A started mock's resident memory after a second to settle. */
async function settledRss(server: Server): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1000))
  return rssMb(server.child.pid as number)
}

/**
 * W11: `--state-file` at W5's size (1 M orders and 2 M lines; 20 k orders in a quick run). The first
 * start with `--rows` and a new state file; the slowest small request (probe) beside a snapshot of the
 * interval (after one save), a fixture load of as many generated orders over HTTP and a reset; the
 * state's size on disk; and a restart from the state file after each origin of the data (generated at
 * the first start, loaded over HTTP): time to the listening line and resident memory.
 */
export async function stateAtScale(settings: Settings): Promise<Outcome> {
  const masters = Math.max(...settings.sizes)
  const dir = mkdtempSync(join(tmpdir(), 'appdata-kit-bench-w11-'))
  const file = join(dir, 'sandbox.state')
  const flags = ['--state-file', file, '--state-interval', String(INTERVAL_S)]
  const rows: Array<Array<string | number>> = []
  const checks: Check[] = []
  const data = `${masters / 1000} k orders + ${(2 * masters) / 1000} k lines`
  const fixture = readFileSync(join(ROOT, 'fixtures/default.json'), 'utf8')
  const servers: Server[] = []
  try {
    const first = await startMockServer(masters, flags)
    servers.push(first)
    const firstRss = await settledRss(first)
    rows.push([`first start, \`--rows\` and a new state file (${data})`, fixed(first.readyMs / 1000, 2), fixed(firstRss), '-'])
    checks.push({
      workload: 'W11',
      target: `first start with \`--rows\` and \`--state-file\` (${data}) ready in ≤ ${READY_MS / 1000} s`,
      figure: `${fixed(first.readyMs / 1000, 2)} s`,
      verdict: holds(first.readyMs <= READY_MS),
    })

    const headers = await dataHeaders(first.url)
    const alone = await probe(first.url, headers, new Promise((resolve) => setTimeout(resolve, 2000)))
    rows.push(['small Get Items alone', '-', '-', `${fixed(alone.max, 1)} (p99 ${fixed(alone.p99, 1)}, ${alone.count} requests)`])

    // A snapshot of the interval: one save, and the next snapshot comes within INTERVAL_S.
    const written = replaced(file, (INTERVAL_S + 120) * 1000)
    const duringSnapshot = probe(first.url, headers, written)
    const [row] = (await (await items(first.url, headers, '$top=1')).json()) as Array<{ Id: number; TIMESTAMP: string }>
    const save = await fetch(`${first.url}/ExplorerApi/api/items/save`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ Rows: [{ Row: { Id: row?.Id, TIMESTAMP: rowVersion(String(row?.TIMESTAMP)), Amount: 1 }, Details: [] }] }),
    })
    await save.arrayBuffer()
    const snapshot = await duringSnapshot
    await written
    rows.push([
      'small Get Items during a snapshot of the interval',
      '-',
      '-',
      `${fixed(snapshot.max, 1)} (p99 ${fixed(snapshot.p99, 1)}, ${snapshot.count} requests)`,
    ])

    // A fixture load over HTTP of as many generated orders.
    let answered: () => void = () => {}
    const loadDone = new Promise<void>((resolve) => (answered = resolve))
    const duringLoad = probe(first.url, headers, loadDone)
    const loadBegun = performance.now()
    const loaded = await fetch(`${first.url}/__mock/fixture?rows=${masters - 25}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: fixture,
    })
    await loaded.arrayBuffer()
    const loadMs = performance.now() - loadBegun
    answered()
    const load = await duringLoad
    rows.push([
      `small Get Items during a fixture load (\`POST /__mock/fixture?rows=${masters - 25}\`, answered ${loaded.status} in ${fixed(loadMs / 1000, 1)} s)`,
      '-',
      '-',
      `${fixed(load.max, 1)} (p99 ${fixed(load.p99, 1)}, ${load.count} requests)`,
    ])

    // A reset: back to the data of the first start.
    let reset: () => void = () => {}
    const resetDone = new Promise<void>((resolve) => (reset = resolve))
    const duringReset = probe(first.url, headers, resetDone)
    const resetBegun = performance.now()
    const resetAnswer = await fetch(`${first.url}/__mock/reset`, { method: 'POST' })
    await resetAnswer.arrayBuffer()
    const resetMs = performance.now() - resetBegun
    reset()
    const during = await duringReset
    rows.push([
      `small Get Items during a reset (answered ${resetAnswer.status} in ${fixed(resetMs / 1000, 1)} s)`,
      '-',
      '-',
      `${fixed(during.max, 1)} (p99 ${fixed(during.p99, 1)}, ${during.count} requests)`,
    ])
    const slowest = Math.max(snapshot.max, load.max, during.max)
    checks.push({
      workload: 'W11',
      target: `no small request waits beyond ${FREEZE_MS} ms beside a snapshot, a fixture load or a reset (${data})`,
      figure: `slowest ${fixed(snapshot.max, 1)} / ${fixed(load.max, 1)} / ${fixed(during.max, 1)} ms`,
      verdict: loaded.status !== 200 || resetAnswer.status !== 200 ? 'not measured: the load or the reset failed' : holds(slowest <= FREEZE_MS),
    })

    // Restarts from the state file: after the reset (the generated data of the first start), then after a fixture load.
    await stopServer(first)
    servers.length = 0
    const sizes = () => `${fixed(statSync(file).size / 1024 / 1024, 1)} MB + log ${fixed(statSync(`${file}.log`).size / 1024, 1)} KB`
    const onDisk = sizes()
    const restarts: Array<{ origin: string; ms: number; rss: number }> = []
    for (const origin of ['generated (`--rows` at the first start, then a reset)', 'loaded over HTTP (`POST /__mock/fixture?rows=`)']) {
      const again = await startMockServer(0, flags)
      servers.push(again)
      const rss = await settledRss(again)
      restarts.push({ origin, ms: again.readyMs, rss })
      rows.push([`restart from the state file, data ${origin}`, fixed(again.readyMs / 1000, 2), fixed(rss), '-'])
      if (restarts.length === 1) {
        // The data of the next restart: a fixture load, kept by the state file.
        const answer = await fetch(`${again.url}/__mock/fixture?rows=${masters - 25}&seed=2`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: fixture,
        })
        await answer.arrayBuffer()
      }
      await stopServer(again)
      servers.length = 0
    }
    const readyMs = Math.max(...restarts.map((r) => r.ms))
    const rss = Math.max(...restarts.map((r) => r.rss))
    checks.push(
      {
        workload: 'W11',
        target: `a restart from the state file (${data}) ready in ≤ ${READY_MS / 1000} s (goal ${READY_GOAL_MS / 1000} s), whatever the data's origin`,
        figure: `${fixed(readyMs / 1000, 2)} s at most`,
        verdict: holds(readyMs <= READY_MS),
      },
      {
        workload: 'W11',
        target: `a restart from the state file (${data}) in ≤ ${RSS_MB / 1024} GB RSS`,
        figure: `${fixed(rss)} MB at most`,
        verdict: holds(rss <= RSS_MB),
      },
    )
    rows.push(['the state on disk after the first start, a save, a load and a reset', '-', '-', onDisk])
    return {
      tables: [
        {
          title: `W11: the state file at scale (${data})`,
          columns: ['measure', 'ready s', 'RSS MB', 'slowest small request ms / size'],
          rows,
          notes: [
            `Small Get Items (\`$top=10\`) one at a time, 5 ms apart, from before each piece of work to half a second after it. \`--state-interval ${INTERVAL_S}\`. Targets: ready in ≤ ${READY_MS / 1000} s (goal ${READY_GOAL_MS / 1000} s) and ≤ 1 GB RSS after a restart and at the first start; no small request beside a snapshot, fixture load or reset waits beyond ${FREEZE_MS} ms.`,
          ],
        },
      ],
      checks,
    }
  } finally {
    for (const server of servers) await stopServer(server)
    rmSync(dir, { recursive: true, force: true })
  }
}
