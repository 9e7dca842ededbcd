import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { alternate, type LoadSpec } from '../lib/load.ts'
import { mockWithPages } from '../lib/mock.ts'
import { startServer, stopServer, type Server } from '../lib/processes.ts'
import { fixed, ratio, type Table } from '../lib/report.ts'
import type { Settings } from '../run.ts'

/**
 * W1: a 200-row page of 100 k orders, against bare node:http serving the same page as
 * pre-encoded bytes, bare Fastify serving it pre-serialized, and Fastify slicing and
 * stringifying row objects.
 */
export async function pages(settings: Settings): Promise<Table> {
  const dir = mkdtempSync(join(tmpdir(), 'appdata-kit-bench-w1-'))
  const servers: Server[] = []
  try {
    const { mock, headers, query, page, all } = await mockWithPages()
    servers.push(mock)
    writeFileSync(join(dir, 'page.json'), page)
    writeFileSync(join(dir, 'rows.json'), all)
    const baseline = (mode: string, file: string) => startServer(mode, [process.execPath, '--import', 'tsx', 'test/bench/servers/baseline.ts', mode, join(dir, file)])
    const bytes = await baseline('node-bytes', 'page.json')
    const text = await baseline('fastify-text', 'page.json')
    const stringify = await baseline('fastify-stringify', 'rows.json')
    servers.push(bytes, text, stringify)
    const spec = (url: string, requestHeaders: Record<string, string>, body: string): (() => LoadSpec) => () => ({
      url,
      connections: 50,
      seconds: settings.seconds,
      headers: requestHeaders,
      requests: [{ method: 'POST', path: '/ExplorerApi/api/items', body }],
    })
    let n = 0
    const walk = (): LoadSpec => ({
      url: mock.url,
      connections: 50,
      seconds: settings.seconds,
      headers,
      // 500 different pages in turn, so the figure is not one page's bytes copied again and again.
      requests: Array.from({ length: 500 }, () => ({ method: 'POST' as const, path: '/ExplorerApi/api/items', body: JSON.stringify({ query: `$top=200&$skip=${((n++ % 500) + 1) * 200}` }) })),
    })
    const body = JSON.stringify({ query })
    const results = await alternate(
      [
        { name: 'node:http, pre-encoded bytes', spec: spec(bytes.url, {}, body) },
        { name: 'Fastify, pre-serialized text', spec: spec(text.url, {}, body) },
        { name: 'Fastify, slice + JSON.stringify', spec: spec(stringify.url, {}, body) },
        { name: 'appdata-kit mock', spec: spec(mock.url, headers, body) },
        { name: 'appdata-kit mock, 500 pages in turn', spec: walk },
      ],
      settings.rounds,
    )
    const get = (name: string) => results.get(name) as { rps: number; p50: number; p99: number; errors: number; non2xx: number }
    const limit = get('node:http, pre-encoded bytes').rps
    const fastify = get('Fastify, pre-serialized text').rps
    const naive = get('Fastify, slice + JSON.stringify').rps
    const table: Table = {
      title: `W1: a 200-row page of 100 k orders (${page.length} bytes), 50 connections`,
      columns: ['server', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'vs node:http bytes', 'vs Fastify text', 'vs slice + stringify'],
      rows: [...results].map(([name, r]) => [name, fixed(r.rps), fixed(r.p50, 1), fixed(r.p99, 1), r.errors + r.non2xx, ratio(r.rps, limit), ratio(r.rps, fastify), ratio(r.rps, naive)]),
      notes: ['Targets: the mock ≥ 0.6× node:http bytes and ≥ 0.9× Fastify text.'],
    }
    return table
  } finally {
    for (const server of servers) await stopServer(server)
    rmSync(dir, { recursive: true, force: true })
  }
}
