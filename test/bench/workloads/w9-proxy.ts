import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBaseline } from '../lib/baselines.ts'
import { load, median, medianOf, type LoadResult, type LoadSpec } from '../lib/load.ts'
import { mockWithPages } from '../lib/mock.ts'
import { PINNING, peakRssMb, rssMb, startServer, stopServer, type Server } from '../lib/processes.ts'
import { atLeast, fixed, holds, ratio, rpsCell, type Outcome } from '../lib/report.ts'
import { cpuSplit, namedThread, pinThread, processCpuMs, threadsOf } from '../lib/threads.ts'
import { JUDGE_THREAD_NAME } from '../../../src/commands/proxy/judge-thread.ts'
import type { ProxyReport } from '../../../src/commands/proxy/inspector.ts'
import { bigSave } from './w7-big-save.ts'
import type { Settings } from '../run.ts'

const ITEMS = '/ExplorerApi/api/items'
/** The latency target: what the proxy may add to a direct call's p50, ms. */
const ADDED_P50_MS = 1

/** Cores of a two-core machine as the bench uses them (processes.ts): the servers on 0, wrk and the bench on 1. */
const SERVER_CORE = 0
const LOAD_CORE = 1

/** A load run of W9 with what happens just before it (a thread moved) and the process whose CPU time it counts. */
interface Run {
  name: string
  spec: () => LoadSpec
  /** Just before each of its runs. */
  before?: () => void
}

/**
 * Runs each load `rounds` times, alternating (A B C A B C ...) as lib/load.ts's `alternate` does,
 * calling each one's `before` just before its run; the medians of each.
 */
async function alternateRuns(runs: readonly Run[], rounds: number): Promise<Map<string, LoadResult>> {
  const results = new Map<string, LoadResult[]>()
  for (let round = 0; round < rounds; round++) {
    for (const run of runs) {
      run.before?.()
      results.set(run.name, [...(results.get(run.name) ?? []), await load(run.spec())])
    }
  }
  return new Map([...results].map(([name, found]) => [name, medianOf(found)]))
}

/** The proxy's report so far (it waits, up to 10 s, for what ended before it to be judged). */
async function proxyReport(url: string): Promise<ProxyReport> {
  return (await (await fetch(`${url}/__proxy/report`)).json()) as ProxyReport
}

/** The judging thread of an appdata-kit proxy, which names itself once it started (the proxy starts it as it listens). */
async function judgeThread(proxy: Server): Promise<number> {
  // One exchange judged: the thread is up, named and ready.
  await proxyReport(proxy.url)
  const found = namedThread(proxy.child.pid as number, JUDGE_THREAD_NAME)
  if (found === undefined) throw new Error(`appdata-kit proxy has no thread named ${JUDGE_THREAD_NAME}`)
  return found.tid
}

/**
 * W9: `appdata-kit proxy` in front of the mock. W1's page (200 rows of 100 k orders, 50
 * connections) straight to the mock, through a bare node:http pass-through proxy (the bound: moving
 * the bytes and nothing else) and through `appdata-kit proxy` (which also parses and judges every
 * request and answer, on its judging thread), alternated round by round; the load generator's
 * ceiling (bare node:http answering the page's bytes) beside them. The proxy runs twice over: its
 * judging thread on the load generator's core (the forwarding thread on the servers' core, as the
 * design has it: judging off the forwarding path, on a core of its own), and on the servers' core
 * with everything else (one core for the whole proxy). Each proxy's CPU time per request, by
 * thread, is counted over a fixed number of requests (utime + stime from /proc, which a busy
 * machine does not inflate as it does wall-clock rates), and the proxy's report says how many
 * exchanges passed unjudged. The p50 each adds is measured on one connection, where it is the
 * call's own latency rather than time spent queued. Then a save of W7's size through the proxy: its
 * answer, and the proxy's peak resident memory (VmHWM) for it.
 */
export async function proxies(settings: Settings): Promise<Outcome> {
  const dir = mkdtempSync(join(tmpdir(), 'appdata-kit-bench-w9-'))
  const servers: Server[] = []
  try {
    const { mock, headers, query, page } = await mockWithPages(settings.orders)
    servers.push(mock)
    writeFileSync(join(dir, 'page.json'), page)
    const ceiling = await startBaseline('node-bytes', join(dir, 'page.json'))
    const bare = await startServer('bare node:http proxy', [process.execPath, 'test/bench/servers/bare-proxy.mjs', mock.url])
    // --timeout long enough for the mock's plan and apply of W7's save, which it answers only when done (the default 30 s of silence gives the client 504 on a busy machine).
    const proxyCommand = [process.execPath, 'bin/appdata-kit.js', 'proxy', '--target', mock.url, '--port', '0', '--timeout', '300000']
    const proxy = await startServer('appdata-kit proxy', proxyCommand)
    // The same proxy with its judging thread left on the servers' core: what one core for the whole proxy gives.
    const shared = await startServer('appdata-kit proxy (one core)', proxyCommand)
    servers.push(ceiling, bare, proxy, shared)
    const body = JSON.stringify({ query })
    const spec =
      (url: string, connections: number, withHeaders = true): (() => LoadSpec) =>
      () => ({ url, connections, seconds: settings.seconds, headers: withHeaders ? headers : {}, requests: [{ method: 'POST', path: ITEMS, body }] })
    // A warm-up through each proxy: sockets to the mock opened, the proxy's validators compiled.
    for (const url of [bare.url, proxy.url, shared.url]) await load({ ...spec(url, 50)(), seconds: 1 })
    const judge = await judgeThread(proxy)
    const sharedJudge = await judgeThread(shared)
    // Placed before each of its runs (and read back into the table below): the judging thread on the load core, or left with the servers.
    const ownCore = () => pinThread(judge, LOAD_CORE)
    const oneCore = () => pinThread(sharedJudge, SERVER_CORE)
    ownCore()
    const CEILING = 'node:http, pre-encoded bytes (the ceiling)'
    const DIRECT = 'the mock, direct'
    const BARE = 'bare node:http pass-through proxy → the mock'
    const OURS = 'appdata-kit proxy → the mock (judging on core 1)'
    const SHARED = 'appdata-kit proxy → the mock (judging on core 0: one core for it all)'
    const loaded = await alternateRuns(
      [
        { name: CEILING, spec: spec(ceiling.url, 50, false) },
        { name: DIRECT, spec: spec(mock.url, 50) },
        { name: BARE, spec: spec(bare.url, 50) },
        { name: OURS, spec: spec(proxy.url, 50), before: ownCore },
        { name: SHARED, spec: spec(shared.url, 50), before: oneCore },
      ],
      settings.rounds,
    )
    const single = await alternateRuns(
      [
        { name: DIRECT, spec: spec(mock.url, 1) },
        { name: BARE, spec: spec(bare.url, 1) },
        { name: OURS, spec: spec(proxy.url, 1), before: ownCore },
        { name: SHARED, spec: spec(shared.url, 1), before: oneCore },
      ],
      settings.rounds,
    )

    // CPU time per request: each proxy (and the mock behind it) over the same number of requests, 50 connections, alternated;
    // the proxy's CPU read after its report says every exchange of the run was judged, so the judging of the last ones counts.
    const amount = settings.quick ? 2000 : 5000
    const amountSpec = (url: string) => ({
      url,
      connections: 50,
      seconds: settings.seconds,
      amount,
      headers,
      requests: Array.from({ length: amount + 50 }, () => ({ method: 'POST' as const, path: ITEMS, body })),
    })
    const cpuRuns: Array<{ name: string; server: Server; before?: () => void }> = [
      { name: BARE, server: bare },
      { name: OURS, server: proxy, before: ownCore },
      { name: SHARED, server: shared, before: oneCore },
    ]
    const perRequest = new Map<string, Array<{ main: number; judge: number; others: number; total: number; mock: number }>>()
    for (let round = 0; round < settings.rounds; round++) {
      for (const { name, server, before } of cpuRuns) {
        before?.()
        const pid = server.child.pid as number
        const [was, mockWas] = [cpuSplit(pid, JUDGE_THREAD_NAME), processCpuMs(mock.child.pid as number)]
        const result = await load(amountSpec(server.url))
        if (server !== bare) await proxyReport(server.url)
        const [now, mockNow] = [cpuSplit(pid, JUDGE_THREAD_NAME), processCpuMs(mock.child.pid as number)]
        const us = (ms: number) => (ms * 1000) / result.requests
        perRequest.set(name, [
          ...(perRequest.get(name) ?? []),
          {
            main: us(now.main - was.main),
            judge: us(now.named - was.named),
            others: us(now.others - was.others),
            total: us(now.total - was.total),
            mock: us(mockNow - mockWas),
          },
        ])
      }
    }
    const cpu = (name: string, key: 'main' | 'judge' | 'others' | 'total' | 'mock') => median((perRequest.get(name) ?? []).map((entry) => entry[key]))
    const reports: Record<string, ProxyReport | undefined> = { [OURS]: await proxyReport(proxy.url), [SHARED]: await proxyReport(shared.url) }
    const notJudged = (name: string) => reports[name]?.notJudged.count ?? NaN

    // Where each thread runs, as the kernel has them placed after the runs.
    const placed = (server: Server, judging?: number) => {
      const threads = threadsOf(server.child.pid as number)
      const main = threads.find((thread) => thread.tid === server.child.pid)?.cores ?? '?'
      const judgeCores = threads.find((thread) => thread.tid === judging)?.cores
      const others = [...new Set(threads.filter((thread) => thread.tid !== server.child.pid && thread.tid !== judging).map((thread) => thread.cores))].join(
        ', ',
      )
      return { main, judge: judgeCores ?? '-', others }
    }
    const placement = [
      { name: 'the mock (the target)', ...placed(mock) },
      { name: 'bare node:http pass-through proxy', ...placed(bare) },
      { name: 'appdata-kit proxy (judging on core 1)', ...placed(proxy, judge) },
      { name: 'appdata-kit proxy (one core)', ...placed(shared, sharedJudge) },
    ]
    const rps = (name: string) => loaded.get(name)?.rps ?? 0
    const p50 = (name: string) => single.get(name)?.p50 ?? 0
    const top = rps(CEILING)
    const added = p50(OURS) - p50(DIRECT)
    const addedShared = p50(SHARED) - p50(DIRECT)
    const addedBare = p50(BARE) - p50(DIRECT)

    // W7's save through the proxy: the body streams through (past --check-limit it is not kept).
    const before = rssMb(proxy.child.pid as number)
    const save = bigSave(settings.bigSaveMb)
    const begun = performance.now()
    const answer = await fetch(`${proxy.url}${ITEMS}/save`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: save })
    const saved = (await answer.json()) as { IsSaveSuccessfully?: boolean; CreatedItems?: number; code?: string }
    const saveMs = performance.now() - begun
    const peak = peakRssMb(proxy.child.pid as number)
    const after = rssMb(proxy.child.pid as number)
    const megabytes = Buffer.byteLength(save) / 1024 / 1024
    const row = (name: string, r: LoadResult | undefined) => [
      name,
      r === undefined ? '-' : name === CEILING ? fixed(r.rps) : rpsCell(r.rps, top),
      fixed(r?.p50 ?? 0, 2),
      fixed(r?.p99 ?? 0, 2),
      (r?.errors ?? 0) + (r?.non2xx ?? 0),
      ratio(r?.rps ?? 0, top),
      ratio(r?.rps ?? 0, rps(BARE)),
    ]
    const judgedCell = (name: string) => (name === OURS || name === SHARED ? String(notJudged(name)) : '-')
    return {
      tables: [
        {
          title: `W9: W1's page (${page.length} bytes) through a proxy, 50 connections`,
          columns: ['path', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs node:http bytes (ceiling)', 'vs bare proxy', 'not judged'],
          rows: [...loaded].map(([name, r]) => [...row(name, r), judgedCell(name)]),
          notes: [
            `Target: appdata-kit proxy ≥ 0.5× the bare node:http pass-through proxy, every exchange judged (not judged: the proxy's own report, \`notJudged.count\`, after all its runs). Its forwarding thread runs on the servers' core with the mock and the bare proxy, its judging thread on core 1 beside wrk: judging off the forwarding path, on a core of its own. The same proxy with its judging thread on the servers' core (one core for the whole proxy) is measured beside it. The proxy runs with its defaults: every request and every answer up to 16 MB is parsed and judged after it was passed on.`,
          ],
        },
        {
          title: 'W9: where each runs',
          columns: ['process', 'main thread: cores', 'judging thread: cores', 'other threads (V8, libuv): cores'],
          rows: [
            ...placement.map((p) => [p.name, p.main, p.judge, p.others]),
            ['wrk (the load generator) and the bench', String(PINNING ? LOAD_CORE : 'any'), '-', '-'],
          ],
          notes: [
            PINNING
              ? "Read back from /proc (Cpus_allowed_list) after the runs; the bench moves the judging thread (named appdata-judge) with taskset before each of the proxy's runs."
              : 'Nothing pinned: this machine has one core, or no taskset.',
          ],
        },
        {
          title: `W9: CPU time per request (µs, over ${amount} requests, 50 connections; medians of ${settings.rounds})`,
          columns: ['proxy', 'main thread', 'judging thread', 'other threads (V8 collector and compiler, libuv)', 'all', 'vs bare proxy', 'the mock behind it'],
          rows: cpuRuns.map(({ name }) => [
            name,
            fixed(cpu(name, 'main')),
            name === BARE ? '-' : fixed(cpu(name, 'judge')),
            fixed(cpu(name, 'others')),
            fixed(cpu(name, 'total')),
            ratio(cpu(name, 'total'), cpu(BARE, 'total')),
            fixed(cpu(name, 'mock')),
          ]),
          notes: [
            "utime + stime of each thread from /proc/PID/task/*/stat, before and after a run of a fixed number of requests (the proxy's read once its report says they were all judged), divided by the requests. Unlike a rate, a CPU time is not inflated by other work on a shared machine, so this is the figure to compare a change by.",
          ],
        },
        {
          title: "W9: the page's latency on one connection (what a proxy adds to a call)",
          columns: ['path', 'req/s', 'p50 ms', 'p99 ms', 'p50 added to the direct call, ms'],
          rows: [...single].map(([name, r]) => [name, fixed(r.rps), fixed(r.p50, 2), fixed(r.p99, 2), name === DIRECT ? '-' : fixed(r.p50 - p50(DIRECT), 2)]),
          notes: [
            `Target: appdata-kit proxy adds ≤ ${ADDED_P50_MS} ms to the direct call's p50 (its judging thread on core 1; on core 0 with the rest, it judges the last answer while the next request is forwarded on the same core).`,
          ],
        },
        {
          title: `W9: a ${fixed(megabytes, 1)} MB save through appdata-kit proxy`,
          columns: ['measure', 'value'],
          rows: [
            ['save answered in (ms)', fixed(saveMs)],
            [
              'save succeeded',
              `${saved.IsSaveSuccessfully === true} (status ${answer.status}${saved.code === undefined ? '' : ` ${saved.code}`}, ${saved.CreatedItems ?? 0} rows)`,
            ],
            ['proxy RSS before the save (MB)', fixed(before)],
            ['proxy peak RSS since its start (VmHWM, MB)', fixed(peak)],
            ['proxy RSS after the save (MB)', fixed(after)],
          ],
          notes: [
            'The body streams through with backpressure; past --check-limit (16 MB) its bytes are counted, not kept, so the peak stays far below the body. The peak is since the proxy started, the load runs above included.',
          ],
        },
      ],
      checks: [
        {
          workload: 'W9',
          target: 'appdata-kit proxy ≥ 0.5× a bare node:http pass-through proxy (W1 page; judging on a core of its own)',
          figure: `${fixed(rps(OURS))} req/s, ${ratio(rps(OURS), rps(BARE))} of ${fixed(rps(BARE))} (one core for the whole proxy: ${ratio(rps(SHARED), rps(BARE))})`,
          verdict: atLeast({ value: rps(OURS), base: rps(BARE), min: 0.5, ceiling: top }),
        },
        {
          workload: 'W9',
          target: 'every exchange through appdata-kit proxy judged (notJudged 0)',
          figure: `${notJudged(OURS)} of ${reports[OURS]?.exchanges ?? '?'} not judged (one core: ${notJudged(SHARED)} of ${reports[SHARED]?.exchanges ?? '?'})`,
          verdict: Number.isNaN(notJudged(OURS)) ? 'not measured' : holds(notJudged(OURS) === 0),
        },
        {
          workload: 'W9',
          target: `appdata-kit proxy adds ≤ ${ADDED_P50_MS} ms to the direct call's p50 (one connection)`,
          figure: `${fixed(added, 2)} ms (${fixed(p50(DIRECT), 2)} → ${fixed(p50(OURS), 2)} ms; one core: ${fixed(addedShared, 2)} ms; the bare proxy adds ${fixed(addedBare, 2)} ms)`,
          verdict: p50(OURS) > 0 ? holds(added <= ADDED_P50_MS) : 'not measured',
        },
        {
          workload: 'W9',
          target: "appdata-kit proxy's CPU time per request (W1 page)",
          figure: `${fixed(cpu(OURS, 'total'))} µs (main thread ${fixed(cpu(OURS, 'main'))}, judging ${fixed(cpu(OURS, 'judge'))}, others ${fixed(cpu(OURS, 'others'))}) against ${fixed(cpu(BARE, 'total'))} µs for the bare proxy: ${ratio(cpu(OURS, 'total'), cpu(BARE, 'total'))}`,
          verdict: 'measured',
        },
        {
          workload: 'W9',
          target: `a ${fixed(megabytes, 0)} MB save through the proxy: its peak RSS (no target)`,
          figure: `${fixed(peak)} MB peak, ${saved.IsSaveSuccessfully === true ? 'saved' : 'NOT saved'} in ${fixed(saveMs)} ms`,
          verdict: 'measured',
        },
      ],
    }
  } finally {
    for (const server of servers) await stopServer(server)
    rmSync(dir, { recursive: true, force: true })
  }
}
