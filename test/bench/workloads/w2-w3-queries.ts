import { rowVersion } from '../../../src/client/client.ts'
import { startCeiling } from '../lib/baselines.ts'
import { alternate, median, type LoadSpec } from '../lib/load.ts'
import { dataHeaders, items, startMockServer } from '../lib/mock.ts'
import { stopServer, type Server } from '../lib/processes.ts'
import { fixed, holds, ratio, rpsCell, type Check, type Outcome } from '../lib/report.ts'
import type { Settings } from '../run.ts'

/** Milliseconds one call takes. */
async function timed(call: () => Promise<unknown>): Promise<number> {
  const begun = performance.now()
  await call()
  return performance.now() - begun
}

async function ok(answer: Promise<Response>): Promise<unknown> {
  return JSON.parse((await bytesOf(answer)).toString('utf8'))
}

async function bytesOf(answer: Promise<Response>): Promise<Buffer> {
  const response = await answer
  if (response.status !== 200) throw new Error(`answered ${response.status}: ${await response.text()}`)
  return Buffer.from(await response.arrayBuffer())
}

const TRIES = 15

/**
 * W2 and W3 over 100 k and 1 M orders: a page filtered on a string field and ordered on a
 * non-key field, and a filtered Count: steady (the same query again and again, under load, beside
 * the load generator's ceiling: bare node:http answering the same bytes), the first read of a query
 * never asked before, and the first read after a write to one of its rows.
 */
export async function queries(settings: Settings): Promise<Outcome> {
  const rows: Array<Array<string | number>> = []
  const counts: Array<Array<string | number>> = []
  const checks: Check[] = []
  for (const size of settings.sizes) {
    const mock = await startMockServer(size)
    const servers: Server[] = [mock]
    try {
      const headers = await dataHeaders(mock.url)
      const page = "$filter=Status eq 'Open'&$orderby=Amount desc&$top=200&$skip=1000"
      const count = "$inlinecount=allpages&$filter=Status eq 'Open' and Amount gt 100"
      const pageCeiling = await startCeiling('W2 page', await bytesOf(items(mock.url, headers, page)))
      servers.push(pageCeiling)
      const countCeiling = await startCeiling('W3 count', await bytesOf(items(mock.url, headers, count)))
      servers.push(countCeiling)
      const spec = (url: string, query: string, requestHeaders: Record<string, string>) => (): LoadSpec => ({
        url,
        connections: 10,
        seconds: settings.seconds,
        headers: requestHeaders,
        requests: [{ method: 'POST', path: '/ExplorerApi/api/items', body: JSON.stringify({ query }) }],
      })
      const steady = await alternate(
        [
          { name: 'page', spec: spec(mock.url, page, headers) },
          { name: 'page ceiling', spec: spec(pageCeiling.url, page, {}) },
          { name: 'count', spec: spec(mock.url, count, headers) },
          { name: 'count ceiling', spec: spec(countCeiling.url, count, {}) },
        ],
        settings.rounds,
      )
      // A query never asked before: another amount each time, so nothing is kept for it.
      const firstPage: number[] = []
      const firstCount: number[] = []
      for (let i = 0; i < TRIES; i++) {
        firstPage.push(await timed(() => ok(items(mock.url, headers, `$filter=Status eq 'Open' and Amount gt ${i + 0.5}&$orderby=Amount desc&$top=200`))))
        firstCount.push(await timed(() => ok(items(mock.url, headers, `$inlinecount=allpages&$filter=Status eq 'Open' and Amount gt ${i + 0.25}`))))
      }
      // A write to a row the query selects, then the same query: its kept result is brought up to date, not made again.
      const afterWrite: number[] = []
      const countAfterWrite: number[] = []
      for (let i = 0; i < TRIES; i++) {
        const [row] = (await ok(items(mock.url, headers, `$filter=Status eq 'Open'&$orderby=Amount desc&$top=1&$skip=${1000 + i}`))) as Array<{
          Id: number
          TIMESTAMP: string
        }>
        const saved = await fetch(`${mock.url}/ExplorerApi/api/items/save`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ Rows: [{ Row: { Id: row?.Id, TIMESTAMP: rowVersion(String(row?.TIMESTAMP)), Amount: 50 + i }, Details: [] }] }),
        })
        await saved.arrayBuffer()
        afterWrite.push(await timed(() => ok(items(mock.url, headers, page))))
        countAfterWrite.push(await timed(() => ok(items(mock.url, headers, count))))
      }
      const get = (name: string) => steady.get(name) as { p50: number; p99: number; rps: number }
      const [p, pc, c, cc] = [get('page'), get('page ceiling'), get('count'), get('count ceiling')]
      const label = size >= 1_000_000 ? `${size / 1_000_000} M` : `${size / 1000} k`
      rows.push([
        label,
        rpsCell(p.rps, pc.rps),
        fixed(pc.rps),
        ratio(p.rps, pc.rps),
        fixed(p.p50, 2),
        fixed(p.p99, 2),
        fixed(median(firstPage), 1),
        fixed(median(afterWrite), 1),
      ])
      counts.push([
        label,
        rpsCell(c.rps, cc.rps),
        fixed(cc.rps),
        ratio(c.rps, cc.rps),
        fixed(c.p50, 2),
        fixed(c.p99, 2),
        fixed(median(firstCount), 1),
        fixed(median(countAfterWrite), 1),
      ])
      if (size === Math.max(...settings.sizes)) {
        checks.push(
          { workload: 'W2', target: `steady p50 ≤ 1 ms (${label} orders)`, figure: `${fixed(p.p50, 2)} ms`, verdict: holds(p.p50 <= 1) },
          {
            workload: 'W2',
            target: `first read after a write ≤ 5 ms (${label} orders)`,
            figure: `${fixed(median(afterWrite), 1)} ms`,
            verdict: holds(median(afterWrite) <= 5),
          },
        )
      }
    } finally {
      for (const server of servers) await stopServer(server)
    }
  }
  const columns = [
    'orders',
    'req/s steady',
    'ceiling req/s (node:http, same bytes)',
    'vs ceiling',
    'p50 ms steady',
    'p99 ms steady',
    'first read ms (median)',
    'first read after a write ms (median)',
  ]
  return {
    tables: [
      {
        title: "W2: `$filter=Status eq 'Open'&$orderby=Amount desc`, 200 rows at $skip 1000, 10 connections",
        columns,
        rows,
        notes: [
          `Steady: under load (wrk's latency). First read and after a write: one request at a time from the bench, median of ${TRIES}. Targets: steady p50 ≤ 1 ms and first read after a write ≤ 5 ms at 1 M.`,
        ],
      },
      { title: "W3: `$inlinecount=allpages&$filter=Status eq 'Open' and Amount gt 100`, 10 connections", columns, rows: counts },
    ],
    checks,
  }
}
