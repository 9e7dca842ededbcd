import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBaseline } from '../lib/baselines.ts'
import { alternate, load, type LoadResult, type LoadSpec } from '../lib/load.ts'
import { mockWithPages } from '../lib/mock.ts'
import { peakRssMb, rssMb, startServer, stopServer, type Server } from '../lib/processes.ts'
import { atLeast, fixed, holds, ratio, rpsCell, type Outcome } from '../lib/report.ts'
import { bigSave } from './w7-big-save.ts'
import type { Settings } from '../run.ts'

const ITEMS = '/ExplorerApi/api/items'
/** The latency target: what the proxy may add to a direct call's p50, ms. */
const ADDED_P50_MS = 1

/**
 * W9: `appdata-kit proxy` in front of the mock. W1's page (200 rows of 100 k orders, 50
 * connections) straight to the mock, through a bare node:http pass-through proxy (the bound: moving
 * the bytes and nothing else) and through `appdata-kit proxy` (which also parses and judges every
 * request and answer), alternated round by round; the load generator's ceiling (bare node:http
 * answering the page's bytes) beside them. The p50 each adds is measured on one connection, where
 * it is the call's own latency rather than time spent queued. Then a save of W7's size through the
 * proxy: its answer, and the proxy's peak resident memory (VmHWM) for it.
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
    const proxy = await startServer('appdata-kit proxy', [process.execPath, 'bin/appdata-kit.js', 'proxy', '--target', mock.url, '--port', '0', '--timeout', '300000'])
    servers.push(ceiling, bare, proxy)
    const body = JSON.stringify({ query })
    const spec = (url: string, connections: number, withHeaders = true): (() => LoadSpec) => () => ({ url, connections, seconds: settings.seconds, headers: withHeaders ? headers : {}, requests: [{ method: 'POST', path: ITEMS, body }] })
    // A warm-up through each proxy: sockets to the mock opened, the proxy's validators compiled.
    for (const url of [bare.url, proxy.url]) await load({ ...spec(url, 50)(), seconds: 1 })
    const CEILING = 'node:http, pre-encoded bytes (the ceiling)'
    const DIRECT = 'the mock, direct'
    const BARE = 'bare node:http pass-through proxy → the mock'
    const OURS = 'appdata-kit proxy → the mock'
    const loaded = await alternate(
      [
        { name: CEILING, spec: spec(ceiling.url, 50, false) },
        { name: DIRECT, spec: spec(mock.url, 50) },
        { name: BARE, spec: spec(bare.url, 50) },
        { name: OURS, spec: spec(proxy.url, 50) },
      ],
      settings.rounds,
    )
    const single = await alternate(
      [
        { name: DIRECT, spec: spec(mock.url, 1) },
        { name: BARE, spec: spec(bare.url, 1) },
        { name: OURS, spec: spec(proxy.url, 1) },
      ],
      settings.rounds,
    )
    const rps = (name: string) => loaded.get(name)?.rps ?? 0
    const p50 = (name: string) => single.get(name)?.p50 ?? 0
    const top = rps(CEILING)
    const added = p50(OURS) - p50(DIRECT)
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
    const row = (name: string, r: LoadResult | undefined) => [name, r === undefined ? '-' : name === CEILING ? fixed(r.rps) : rpsCell(r.rps, top), fixed(r?.p50 ?? 0, 2), fixed(r?.p99 ?? 0, 2), (r?.errors ?? 0) + (r?.non2xx ?? 0), ratio(r?.rps ?? 0, top), ratio(r?.rps ?? 0, rps(BARE))]
    return {
      tables: [
        {
          title: `W9: W1's page (${page.length} bytes) through a proxy, 50 connections`,
          columns: ['path', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs node:http bytes (ceiling)', 'vs bare proxy'],
          rows: [...loaded].map(([name, r]) => row(name, r)),
          notes: [
            "Target: appdata-kit proxy ≥ 0.5× the bare node:http pass-through proxy, both in front of the same mock on the server core (the proxy, the mock and the bare proxy share core 0; wrk runs on core 1). The proxy runs with its defaults: every request and every answer up to 16 MB is parsed and judged after it was passed on.",
          ],
        },
        {
          title: "W9: the page's latency on one connection (what a proxy adds to a call)",
          columns: ['path', 'req/s', 'p50 ms', 'p99 ms', 'p50 added to the direct call, ms'],
          rows: [...single].map(([name, r]) => [name, fixed(r.rps), fixed(r.p50, 2), fixed(r.p99, 2), name === DIRECT ? '-' : fixed(r.p50 - p50(DIRECT), 2)]),
          notes: [`Target: appdata-kit proxy adds ≤ ${ADDED_P50_MS} ms to the direct call's p50.`],
        },
        {
          title: `W9: a ${fixed(megabytes, 1)} MB save through appdata-kit proxy`,
          columns: ['measure', 'value'],
          rows: [
            ['save answered in (ms)', fixed(saveMs)],
            ['save succeeded', `${saved.IsSaveSuccessfully === true} (status ${answer.status}${saved.code === undefined ? '' : ` ${saved.code}`}, ${saved.CreatedItems ?? 0} rows)`],
            ['proxy RSS before the save (MB)', fixed(before)],
            ['proxy peak RSS since its start (VmHWM, MB)', fixed(peak)],
            ['proxy RSS after the save (MB)', fixed(after)],
          ],
          notes: ['The body streams through with backpressure; past --check-limit (16 MB) its bytes are counted, not kept, so the peak stays far below the body. The peak is since the proxy started, the load runs above included.'],
        },
      ],
      checks: [
        { workload: 'W9', target: 'appdata-kit proxy ≥ 0.5× a bare node:http pass-through proxy (W1 page)', figure: `${fixed(rps(OURS))} req/s, ${ratio(rps(OURS), rps(BARE))} of ${fixed(rps(BARE))}`, verdict: atLeast({ value: rps(OURS), base: rps(BARE), min: 0.5, ceiling: top }) },
        { workload: 'W9', target: `appdata-kit proxy adds ≤ ${ADDED_P50_MS} ms to the direct call's p50 (one connection)`, figure: `${fixed(added, 2)} ms (${fixed(p50(DIRECT), 2)} → ${fixed(p50(OURS), 2)} ms; the bare proxy adds ${fixed(addedBare, 2)} ms)`, verdict: p50(OURS) > 0 ? holds(added <= ADDED_P50_MS) : 'not measured' },
        { workload: 'W9', target: `a ${fixed(megabytes, 0)} MB save through the proxy: its peak RSS (no target)`, figure: `${fixed(peak)} MB peak, ${saved.IsSaveSuccessfully === true ? 'saved' : 'NOT saved'} in ${fixed(saveMs)} ms`, verdict: 'measured' },
      ],
    }
  } finally {
    for (const server of servers) await stopServer(server)
    rmSync(dir, { recursive: true, force: true })
  }
}


