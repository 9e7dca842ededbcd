import { spawn, type ChildProcess } from 'node:child_process'
import autocannon from 'autocannon'

/**
 * `npm run bench`: pages of 200 master rows out of a million, served by the mock, against two
 * bare Fastify routes measured in the same run (see baseline-server.ts). Reports requests per
 * second and the ratios; absolute numbers are context only, the machine is shared.
 * BENCH_ROWS, BENCH_SECONDS and BENCH_CONNECTIONS override the defaults.
 */
const ROOT = new URL('../../', import.meta.url).pathname
const ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8)
const WARMUP_SECONDS = 2
const PAGE = 200
const IDS = {
  applicationId: 'a1b2c3d4-0000-4000-8000-000000000001',
  workspaceId: '6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b70',
}

interface Started {
  child: ChildProcess
  url: string
  readyMs: number
}

function start(args: string[]): Promise<Started> {
  const begun = Date.now()
  // The same Node flags as `npm start`, in one process, so RSS is the server's own; the baselines are TypeScript run through tsx.
  const loader = args[0]?.endsWith('.ts') ? ['--import', 'tsx'] : []
  const child = spawn(process.execPath, ['--max-semi-space-size=64', ...loader, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    let out = ''
    const timer = setTimeout(() => reject(new Error(`server did not start in 180 s: ${args.join(' ')}`)), 180_000)
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening on (http:\/\/\S+)/.exec(out)
      if (match?.[1]) {
        clearTimeout(timer)
        resolve({ child, url: match[1], readyMs: Date.now() - begun })
      }
    })
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${args.join(' ')}`)))
  })
}

function stop(server: Started): Promise<void> {
  return new Promise((resolve) => {
    server.child.removeAllListeners('exit')
    server.child.once('exit', () => resolve())
    if (server.child.pid !== undefined) process.kill(server.child.pid, 'SIGTERM')
  })
}

async function rssOf(pid: number | undefined): Promise<number> {
  const { readFileSync } = await import('node:fs')
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

/**
 * Load on one query. A query text containing `{skip}` walks through 500 different pages (offsets
 * `skip` + n * 200), so the figure is not one page answered again and again from a cache.
 */
async function load(url: string, query: string, headers: Record<string, string> = {}): Promise<{ rps: number; p99: number; errors: number }> {
  let n = 0
  const options = {
    url: `${url}/ExplorerApi/api/items`,
    method: 'POST' as const,
    connections: CONNECTIONS,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query }),
    ...(query.includes('{skip}')
      ? { requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, body: JSON.stringify({ query: query.replace('{skip}', String(((n++ % 500) + 1) * PAGE)) }) }) }] }
      : {}),
  }
  // A short unmeasured run first, so JIT warm-up and the collection after loading a million rows
  // do not land in the figures of whichever server happens to go first.
  await autocannon({ ...options, duration: WARMUP_SECONDS })
  const result = await autocannon({ ...options, duration: SECONDS })
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx }
}

async function signIn(url: string): Promise<string> {
  const reply = await fetch(`${url}/identityprovider/acme/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'client_id=appdataapiv1&username=admin%40acme.test&password=admin-pass&grant_type=password&scope=openid+apiv1+nosession',
  })
  return ((await reply.json()) as { access_token: string }).access_token
}

const results: Array<[string, { rps: number; p99: number; errors: number }]> = []
const skip = Math.floor(ROWS / 2)

const ceiling = await start(['test/bench/baseline-server.ts', 'ceiling', String(ROWS), String(PAGE)])
results.push(['ceiling: pre-serialized page', await load(ceiling.url, `$top=${PAGE}&$skip=${skip}`)])
await stop(ceiling)

const naive = await start(['test/bench/baseline-server.ts', 'naive', String(ROWS), String(PAGE)])
results.push(['naive: slice + JSON.stringify', await load(naive.url, `$top=${PAGE}&$skip=${skip}`)])
results.push(['naive: 500 different pages', await load(naive.url, `$top=${PAGE}&$skip={skip}`)])
await stop(naive)

const mock = await start(['dist/src/server.js', '--port', '0', '--rows', String(Math.max(0, ROWS - 25)), '--log-level', 'error', ...(process.env.BENCH_MOCK_ARGS ?? '').split(' ').filter(Boolean)])
const mockRss = await rssOf(mock.child.pid)
const token = await signIn(mock.url)
const headers = { ApplicationId: IDS.applicationId, SessionToken: token, WorkspaceId: IDS.workspaceId }
results.push(['mock: page by Id', await load(mock.url, `$top=${PAGE}&$skip=${skip}`, headers)])
results.push(['mock: 500 different pages', await load(mock.url, `$top=${PAGE}&$skip={skip}`, headers)])
results.push(['mock: filtered, ordered page', await load(mock.url, `$top=${PAGE}&$skip=1000&$filter=Status eq 'Open' and Amount gt 100&$orderby=Customer asc,Id desc`, headers)])
await stop(mock)

const base = results[0]![1].rps
const naiveRps = results[1]![1].rps
console.log(`\npages of ${PAGE} rows out of ${ROWS}, ${CONNECTIONS} connections, ${SECONDS} s each (Node ${process.version})`)
console.log(`mock start with ${ROWS} rows: ${(mock.readyMs / 1000).toFixed(1)} s to the listening line, RSS ${mockRss.toFixed(0)} MB`)
console.log('| server | req/s | p99 ms | errors | vs ceiling | vs naive |')
console.log('|---|---|---|---|---|---|')
for (const [name, r] of results) {
  console.log(`| ${name} | ${r.rps.toFixed(0)} | ${r.p99} | ${r.errors} | ${(r.rps / base).toFixed(2)} | ${(r.rps / naiveRps).toFixed(2)} |`)
}
