import { rowVersion } from '../../../src/client/client.ts'
import { alternate, median } from '../lib/load.ts'
import { dataHeaders, items, startMockServer } from '../lib/mock.ts'
import { stopServer } from '../lib/processes.ts'
import { fixed, type Table } from '../lib/report.ts'
import type { Settings } from '../run.ts'

/** Milliseconds one call takes. */
async function timed(call: () => Promise<unknown>): Promise<number> {
  const begun = performance.now()
  await call()
  return performance.now() - begun
}

async function ok(answer: Promise<Response>): Promise<unknown> {
  const response = await answer
  if (response.status !== 200) throw new Error(`answered ${response.status}: ${await response.text()}`)
  return response.json()
}

const TRIES = 15

/**
 * W2 and W3 over 100 k and 1 M orders: a page filtered on a string field and ordered on a
 * non-key field, and a filtered Count: steady (the same query again and again, under load), the
 * first read of a query never asked before, and the first read after a write to one of its rows.
 */
export async function queries(settings: Settings): Promise<Table[]> {
  const rows: Array<Array<string | number>> = []
  const counts: Array<Array<string | number>> = []
  for (const size of [100_000, 1_000_000]) {
    const mock = await startMockServer(size)
    try {
      const headers = await dataHeaders(mock.url)
      const page = "$filter=Status eq 'Open'&$orderby=Amount desc&$top=200&$skip=1000"
      const count = "$inlinecount=allpages&$filter=Status eq 'Open' and Amount gt 100"
      await ok(items(mock.url, headers, page))
      await ok(items(mock.url, headers, count))
      const steady = await alternate(
        [
          { name: 'page', spec: () => ({ url: mock.url, connections: 10, seconds: settings.seconds, headers, requests: [{ method: 'POST', path: '/ExplorerApi/api/items', body: JSON.stringify({ query: page }) }] }) },
          { name: 'count', spec: () => ({ url: mock.url, connections: 10, seconds: settings.seconds, headers, requests: [{ method: 'POST', path: '/ExplorerApi/api/items', body: JSON.stringify({ query: count }) }] }) },
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
        const [row] = (await ok(items(mock.url, headers, `$filter=Status eq 'Open'&$orderby=Amount desc&$top=1&$skip=${1000 + i}`))) as Array<{ Id: number; TIMESTAMP: string }>
        const saved = await fetch(`${mock.url}/ExplorerApi/api/items/save`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ Rows: [{ Row: { Id: row?.Id, TIMESTAMP: rowVersion(String(row?.TIMESTAMP)), Amount: 50 + i }, Details: [] }] }),
        })
        await saved.arrayBuffer()
        afterWrite.push(await timed(() => ok(items(mock.url, headers, page))))
        countAfterWrite.push(await timed(() => ok(items(mock.url, headers, count))))
      }
      const p = steady.get('page') as { p50: number; p99: number; rps: number }
      const c = steady.get('count') as { p50: number; p99: number; rps: number }
      const label = size === 1_000_000 ? '1 M' : '100 k'
      rows.push([label, fixed(p.rps), fixed(p.p50, 1), fixed(p.p99, 1), fixed(median(firstPage), 1), fixed(median(afterWrite), 1)])
      counts.push([label, fixed(c.rps), fixed(c.p50, 1), fixed(c.p99, 1), fixed(median(firstCount), 1), fixed(median(countAfterWrite), 1)])
    } finally {
      await stopServer(mock)
    }
  }
  const columns = ['orders', 'req/s steady', 'p50 ms steady', 'p99 ms steady', 'first read ms (median)', 'first read after a write ms (median)']
  return [
    {
      title: "W2: `$filter=Status eq 'Open'&$orderby=Amount desc`, 200 rows at $skip 1000, 10 connections",
      columns,
      rows,
      notes: [`Steady: under load (autocannon's latency, 1 ms resolution). First read and after a write: one request at a time from the bench, median of ${TRIES}. Targets: steady p50 ≤ 1 ms and first read after a write ≤ 5 ms at 1 M.`],
    },
    { title: "W3: `$inlinecount=allpages&$filter=Status eq 'Open' and Amount gt 100`", columns, rows: counts },
  ]
}
