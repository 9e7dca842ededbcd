import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { rowVersion } from '../../../src/client/client.ts'
import { load, median, type LoadResult, type LoadSpec } from '../lib/load.ts'
import { dataHeaders, items, startMockServer } from '../lib/mock.ts'
import { startServer, stopServer, type Server } from '../lib/processes.ts'
import { fixed, ratio, type Table } from '../lib/report.ts'
import type { Settings } from '../run.ts'

const ROWS = 100_000
const WARMUP = 5000
const SAVE = '/ExplorerApi/api/items/save'
const ITEMS = '/ExplorerApi/api/items'


/** One-row updates, each of a row no earlier update touched, with the version it has now. */
function updates(rows: ReadonlyArray<{ Id: number; TIMESTAMP: string }>, from: number, count: number): Array<{ method: 'POST'; path: string; body: string }> {
  return rows.slice(from, from + count).map((row, i) => ({ method: 'POST', path: SAVE, body: JSON.stringify({ Rows: [{ Row: { Id: row.Id, TIMESTAMP: rowVersion(row.TIMESTAMP), Amount: 10 + (i % 1000) }, Details: [] }] }) }))
}

/** Creates of 100 orders with 2 lines each per request. */
function creates(count: number): Array<{ method: 'POST'; path: string; body: string }> {
  const body = JSON.stringify({
    Rows: Array.from({ length: 100 }, (_, i) => ({
      Row: { Id: -(i + 1), IdRow: null, TIMESTAMP: null, Customer: `Bench ${i}`, Amount: i, Status: 'New' },
      Details: [{ RelationKey: 'OrderLines', Rows: [1, 2].map((j) => ({ Id: -(j + i * 2), IdRow: null, TIMESTAMP: null, Product: `Line ${j}`, Quantity: j, UnitPrice: 1.5 })) }],
    })),
  })
  return Array.from({ length: count }, () => ({ method: 'POST', path: SAVE, body }))
}

/**
 * W4: one-row updates (each of another row, with its current TIMESTAMP) over 100 k orders, and
 * creates of 100 orders with 2 lines each, against Fastify parsing the same bodies and appending.
 * W4b: reads ordered by `Id asc` and by a non-key field, 1:1 with one-row updates, against Fastify
 * appending and slicing. Each side of a comparison runs on a fresh server, alternated, median of the rounds.
 */
export async function writes(settings: Settings): Promise<Table[]> {
  const dir = mkdtempSync(join(tmpdir(), 'appdata-kit-bench-w4-'))
  const servers: Server[] = []
  const stop = async () => {
    for (const server of servers.splice(0)) await stopServer(server)
  }
  try {
    const probe = await startMockServer(ROWS)
    servers.push(probe)
    const probeHeaders = await dataHeaders(probe.url)
    const all = Buffer.from(await (await items(probe.url, probeHeaders, `$top=${ROWS}`)).arrayBuffer())
    writeFileSync(join(dir, 'rows.json'), all)
    const rows = JSON.parse(all.toString('utf8')) as Array<{ Id: number; TIMESTAMP: string }>
    await stop()

    const amount = Math.min(ROWS - WARMUP, 10_000 * settings.seconds)
    // Unmeasured first, on rows the measured run never touches: JIT warm-up lands in no figure.
    const warmup = (headers: Record<string, string>, url: string) => load({ url, connections: 50, seconds: 10, amount: WARMUP, headers, requests: updates(rows, ROWS - WARMUP, WARMUP) })
    const cases: Array<{ name: string; mock: (headers: Record<string, string>) => LoadSpec['requests']; amount: number }> = [
      { name: 'one-row updates', mock: () => updates(rows, 0, amount), amount },
      { name: 'creates of 100 orders + 200 lines', mock: () => creates(300 * settings.seconds), amount: 300 * settings.seconds },
      {
        name: 'reads by Id asc, 1:1 with updates',
        mock: () => updates(rows, 0, amount / 2).flatMap((update, i) => [{ method: 'POST' as const, path: ITEMS, body: JSON.stringify({ query: `$orderby=Id asc&$top=200&$skip=${(i % 400) * 200}` }) }, update]),
        amount,
      },
      {
        name: 'reads by Amount desc, 1:1 with updates',
        mock: () => updates(rows, 0, amount / 2).flatMap((update, i) => [{ method: 'POST' as const, path: ITEMS, body: JSON.stringify({ query: `$orderby=Amount desc&$top=200&$skip=${(i % 400) * 200}` }) }, update]),
        amount,
      },
    ]
    const table: Table = {
      title: `W4 and W4b: writes over ${ROWS / 1000} k orders, 50 connections`,
      columns: ['workload', 'mock req/s', 'mock p50 ms', 'mock p99 ms', 'baseline req/s', 'mock vs baseline', 'mock errors'],
      rows: [],
      notes: [
        'Baseline: Fastify parsing each body and appending its rows to an array, and answering reads by slicing and `JSON.stringify`ing 200 rows (no order kept). Every run starts a fresh server of each kind, so each update names a row with its current TIMESTAMP; alternated, median of the rounds.',
        'Targets: one-row updates ≥ 0.6× the baseline; reads 1:1 with updates ≥ 0.5× with either order.',
      ],
    }
    for (const item of cases) {
      const mockRuns: LoadResult[] = []
      const baseRuns: LoadResult[] = []
      for (let round = 0; round < settings.rounds; round++) {
        const mock = await startMockServer(ROWS)
        servers.push(mock)
        const headers = await dataHeaders(mock.url)
        // Orders a reader asks for are kept from the first read on; read once so the run measures keeping them.
        await items(mock.url, headers, '$orderby=Amount desc&$top=1').then((answer) => answer.arrayBuffer())
        await warmup(headers, mock.url)
        mockRuns.push(await load({ url: mock.url, connections: 50, seconds: settings.seconds, amount: item.amount, headers, requests: item.mock(headers) }))
        const base = await startServer('fastify-append', [process.execPath, '--import', 'tsx', 'test/bench/servers/baseline.ts', 'fastify-append', join(dir, 'rows.json')])
        servers.push(base)
        await warmup({}, base.url)
        baseRuns.push(await load({ url: base.url, connections: 50, seconds: settings.seconds, amount: item.amount, headers: {}, requests: item.mock({}) }))
        await stop()
      }
      const mockRps = median(mockRuns.map((r) => r.rps))
      const baseRps = median(baseRuns.map((r) => r.rps))
      table.rows.push([item.name, fixed(mockRps), fixed(median(mockRuns.map((r) => r.p50)), 1), fixed(median(mockRuns.map((r) => r.p99)), 1), fixed(baseRps), ratio(mockRps, baseRps), mockRuns.reduce((sum, r) => sum + r.errors + r.non2xx, 0)])
    }
    return [table]
  } finally {
    await stop()
    rmSync(dir, { recursive: true, force: true })
  }
}
