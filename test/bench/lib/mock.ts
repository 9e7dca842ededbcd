import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer, stopServer, type Server } from './processes.ts'

export const IDS = {
  org: 'acme',
  applicationId: 'a1b2c3d4-0000-4000-8000-000000000001',
  workspaceId: '6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b70',
}

const SIGN_IN = 'client_id=appdataapiv1&username=admin%40acme.test&password=admin-pass&grant_type=password&scope=openid+apiv1+nosession'

/**
 * The compiled mock as `npm start` runs it, with `masters` orders in all (the fixture's 25 included),
 * `--quiet` unless `logging` (then its default log, a JSON line per request to the bench's pipe, which the bench reads and drops),
 * from the project folder or `cwd` (another commit's built checkout, `npm run bench:compare`).
 */
export function startMockServer(masters: number, extra: string[] = [], options: { logging?: boolean; cwd?: string } = {}): Promise<Server> {
  return startServer(`mock ${masters}`, mockCommand(masters, extra, options), options.cwd === undefined ? {} : { cwd: options.cwd })
}

/** The command `startMockServer` runs, from the folder of a built checkout. */
export function mockCommand(masters: number, extra: string[] = [], options: { logging?: boolean } = {}): string[] {
  const quiet = options.logging === true ? [] : ['--quiet']
  return [
    process.execPath,
    '--max-semi-space-size=32',
    'dist/src/mock/server.js',
    '--port',
    '0',
    '--rows',
    String(Math.max(0, masters - 25)),
    ...quiet,
    ...extra,
  ]
}

/** Signs in; the data headers for the Orders application. */
export async function dataHeaders(url: string): Promise<Record<string, string>> {
  const answer = await fetch(`${url}/identityprovider/${IDS.org}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: SIGN_IN,
  })
  const token = ((await answer.json()) as { access_token: string }).access_token
  return { ApplicationId: IDS.applicationId, WorkspaceId: IDS.workspaceId, SessionToken: token }
}

/** Get Items with a query text, as the raw answer. */
export async function items(url: string, headers: Record<string, string>, query: string, relationKey?: string): Promise<Response> {
  return fetch(`${url}/ExplorerApi/api/items`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ query: relationKey === undefined ? query : `${query}&relationKey=${relationKey}` }),
  })
}

/** The sign-in form, for workloads that time a first sign-in. */
export const SIGN_IN_FORM = SIGN_IN

/** A mock with `orders` orders, signed in, with W1's page (200 rows from the middle) and every row as the mock answers them (the baselines serve these bytes). */
export async function mockWithPages(orders: number): Promise<{ mock: Server; headers: Record<string, string>; query: string; page: Buffer; all: Buffer }> {
  const mock = await startMockServer(orders)
  const headers = await dataHeaders(mock.url)
  const query = `$top=200&$skip=${orders / 2}`
  const page = Buffer.from(await (await items(mock.url, headers, query)).arrayBuffer())
  const all = Buffer.from(await (await items(mock.url, headers, `$top=${orders}`)).arrayBuffer())
  return { mock, headers, query, page, all }
}

/**
 * What a write workload keeps while it runs: a temporary folder for its baseline's rows, the servers
 * it started (`stop` stops them all) and `close`, which stops them and removes the folder.
 */
export function writeWorkspace(name: string): { dir: string; servers: Server[]; stop: () => Promise<void>; close: () => Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), `appdata-kit-bench-${name}-`))
  const servers: Server[] = []
  const stop = async () => {
    for (const server of servers.splice(0)) await stopServer(server)
  }
  return {
    dir,
    servers,
    stop,
    close: async () => {
      await stop()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** A mock of `masters` orders started into `servers`, signed in, and `answer`: a POST's answer as bytes (the ceilings send them back). */
export async function probeMock(
  masters: number,
  servers: Server[],
): Promise<{ probe: Server; headers: Record<string, string>; answer: (path: string, body: string) => Promise<Buffer> }> {
  const probe = await startMockServer(masters)
  servers.push(probe)
  const headers = await dataHeaders(probe.url)
  const answer = async (path: string, body: string) =>
    Buffer.from(await (await fetch(`${probe.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body })).arrayBuffer())
  return { probe, headers, answer }
}
