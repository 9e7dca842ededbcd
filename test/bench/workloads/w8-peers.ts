import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'
import { startCeiling } from '../lib/baselines.ts'
import { alternate } from '../lib/load.ts'
import { mockWithPages } from '../lib/mock.ts'
import { startServer, stopServer, type Server } from '../lib/processes.ts'
import { BOUNDED, fixed, isBounded, ratio, rpsCell, type Check, type Outcome, type Table } from '../lib/report.ts'
import type { Settings } from '../run.ts'

/** Where the bench installs the peers: outside the repository, kept between runs. */
const CACHE = process.env.BENCH_PEERS_DIR ?? join(homedir(), '.cache', 'appdata-kit-bench')
const PEERS = ['@stoplight/prism-cli@5.14.2', 'json-server@0.17.4']

function installPeers(): string | undefined {
  if (existsSync(join(CACHE, 'node_modules/@stoplight/prism-cli')) && existsSync(join(CACHE, 'node_modules/json-server'))) return undefined
  mkdirSync(CACHE, { recursive: true })
  const result = spawnSync('npm', ['install', '--prefix', CACHE, '--no-audit', '--no-fund', '--loglevel=error', ...PEERS], {
    encoding: 'utf8',
    timeout: 300_000,
  })
  return result.status === 0
    ? undefined
    : `installing ${PEERS.join(', ')} into ${CACHE} failed: ${(result.stderr || result.stdout).trim().split('\n').slice(-3).join(' ')}`
}

/**
 * W8: the peers on W1's workload with the same rows: Prism mocking a document whose Get Items
 * answer is the mock's 200-row page as its example, and json-server paging the same 100 k rows.
 */
export async function peers(settings: Settings): Promise<Outcome> {
  const failed = installPeers()
  const table: Table = {
    title: `W8: peers on W1 (a 200-row page of ${settings.orders / 1000} k orders), 50 connections`,
    columns: ['server', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'mock vs it'],
    rows: [],
    notes: [
      "Targets: the mock ≥ 10× Prism and ≥ 50× json-server. Every server is driven by the same generator (wrk); its ceiling is node:http answering the mock's page as bytes.",
    ],
  }
  if (failed !== undefined) {
    table.notes?.push(`Not measured: ${failed}`)
    return {
      tables: [table],
      checks: [{ workload: 'W8', target: '≥ 10× Prism, ≥ 50× json-server', figure: '-', verdict: 'not measured: the peers could not be installed' }],
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'appdata-kit-bench-w8-'))
  const servers: Server[] = []
  try {
    const { mock, headers, query, page: pageBytes, all: allBytes } = await mockWithPages(settings.orders)
    servers.push(mock)
    const page = JSON.parse(pageBytes.toString('utf8')) as unknown[]
    const all = JSON.parse(allBytes.toString('utf8')) as unknown[]
    const document = {
      openapi: '3.1.0',
      info: { title: 'Get Items, as Prism mocks it', version: '1' },
      paths: {
        '/ExplorerApi/api/items': {
          post: {
            requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
            responses: {
              '200': { description: 'A page', content: { 'application/json': { schema: { type: 'array' }, examples: { page: { value: page } } } } },
            },
          },
        },
      },
    }
    writeFileSync(join(dir, 'openapi.json'), JSON.stringify(document))
    writeFileSync(join(dir, 'db.json'), JSON.stringify({ orders: all }))
    const prism = await startServer('prism', [
      process.execPath,
      join(CACHE, 'node_modules/@stoplight/prism-cli/dist/index.js'),
      'mock',
      join(dir, 'openapi.json'),
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--errors',
      'false',
    ])
    servers.push(prism)
    const jsonServer = await startServer('json-server', [process.execPath, 'test/bench/servers/json-server.cjs', CACHE, join(dir, 'db.json')])
    servers.push(jsonServer)
    const ceilingServer = await startCeiling('W8', pageBytes)
    servers.push(ceilingServer)
    const body = JSON.stringify({ query })
    const CEILING = 'node:http, the page as bytes (the ceiling)'
    const results = await alternate(
      [
        {
          name: CEILING,
          spec: () => ({
            url: ceilingServer.url,
            connections: 50,
            seconds: settings.seconds,
            headers: {},
            requests: [{ method: 'POST', path: '/ExplorerApi/api/items', body }],
          }),
        },
        {
          name: 'appdata-kit mock',
          spec: () => ({
            url: mock.url,
            connections: 50,
            seconds: settings.seconds,
            headers,
            requests: [{ method: 'POST', path: '/ExplorerApi/api/items', body }],
          }),
        },
        {
          name: 'Prism 5.14 (static example)',
          spec: () => ({
            url: prism.url,
            connections: 50,
            seconds: settings.seconds,
            headers: {},
            requests: [{ method: 'POST', path: '/ExplorerApi/api/items', body }],
          }),
        },
        {
          name: `json-server 0.17 (_page=${settings.orders / 400 + 1}&_limit=200)`,
          spec: () => ({
            url: jsonServer.url,
            connections: 50,
            seconds: settings.seconds,
            headers: {},
            requests: [{ method: 'GET', path: `/orders?_page=${settings.orders / 400 + 1}&_limit=200` }],
          }),
        },
      ],
      settings.rounds,
    )
    const mockRps = results.get('appdata-kit mock')?.rps ?? 0
    const top = results.get(CEILING)?.rps ?? 0
    for (const [name, r] of results)
      table.rows.push([
        name,
        name === CEILING ? fixed(r.rps) : rpsCell(r.rps, top),
        fixed(r.p50, 2),
        fixed(r.p99, 2),
        r.errors + r.non2xx,
        name === 'appdata-kit mock' ? '-' : ratio(mockRps, r.rps),
      ])
    const peer = (label: string, min: number): Check => {
      const rps = [...results].find(([name]) => name.startsWith(label))?.[1].rps ?? 0
      const verdict = !(rps > 0) ? 'not measured' : isBounded(mockRps, top) ? BOUNDED : mockRps >= min * rps ? 'met' : 'missed'
      return { workload: 'W8', target: `the mock ≥ ${min}× ${label}`, figure: `${ratio(mockRps, rps)} (${fixed(mockRps)} vs ${fixed(rps)} req/s)`, verdict }
    }
    return { tables: [table], checks: [peer('Prism', 10), peer('json-server', 50)] }
  } finally {
    for (const server of servers) await stopServer(server)
    rmSync(dir, { recursive: true, force: true })
  }
}
