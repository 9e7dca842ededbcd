/**
 * `--record-usage` as teams use it: a mock records what its clients used, as shapes, answers it
 * live (`GET /__mock/usage`, `mock.usage()`), writes it at stop (also on SIGTERM) as stable JSON
 * without a token, password, e-mail address or row value, and `usage merge` joins such files.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { IDS, startTestMock } from '../helpers/http.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { ROOT, runToEnd, startProcess, stopStarted } from '../cli/processes.ts'
import type { UsageFile } from '../../src/usage-file/file.ts'

const SERVER = join(ROOT, 'dist/src/mock/server.js')
const BIN = join(ROOT, 'bin/appdata-kit.js')
const dir = sharedTempDir('appdata-kit-usage-')
afterEach(stopStarted)

/** Values of the default fixture a usage file must never hold. */
const SECRETS = [IDS.admin.password, IDS.admin.username, 'acme.test']

async function session(url: string): Promise<{ token: string; customer: string }> {
  const form = new URLSearchParams({
    client_id: IDS.clientId,
    username: IDS.admin.username,
    password: IDS.admin.password,
    grant_type: 'password',
    scope: 'openid apiv1 nosession',
  })
  const signIn = await fetch(`${url}/identityprovider/${IDS.org}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  })
  const token = ((await signIn.json()) as { access_token: string }).access_token
  const headers = { 'content-type': 'application/json', ApplicationId: IDS.applicationId, WorkspaceId: IDS.workspaceId, SessionToken: token }
  const page = await fetch(`${url}/ExplorerApi/api/items`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ query: "$top=5&$orderby=Customer desc&$filter=Status eq 'Open' and Amount gt 10" }),
  })
  const rows = (await page.json()) as Array<{ Customer: string }>
  await fetch(`${url}/ExplorerApi/api/items`, { method: 'POST', headers, body: JSON.stringify({ query: '$filter=MasterId eq 1&relationKey=OrderLines' }) })
  await fetch(`${url}/ExplorerApi/api/items`, {
    method: 'POST',
    headers: { ...headers, SessionToken: 'not-a-token' },
    body: JSON.stringify({ query: '$top=1' }),
  })
  await fetch(`${url}/ExplorerApi/api/items/save`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Secret Customer GmbH', Amount: 5, Status: 'Open' }, Details: [] }],
    }),
  })
  return { token, customer: rows[0]?.Customer ?? '' }
}

function expectNoValues(text: string, extra: string[]): void {
  for (const value of [...SECRETS, ...extra]) expect(text, `the usage holds "${value}"`).not.toContain(value)
}

describe('recording usage with startMock({ recordUsage })', () => {
  it('answers it live and writes the same, stable and sorted, at close: shapes of what was used, no values', async () => {
    const file = join(dir, 'in-process.json')
    const mock = await startTestMock({ recordUsage: file })
    const { token, customer } = await session(mock.url)
    const live = await mock.request('GET', '/__mock/usage')
    expect(live.status).toBe(200)
    const usage = mock.mock.usage()
    expect(live.body).toEqual(usage)
    const operations = usage.interactions.map((i) => i.operation)
    expect(operations).toEqual(expect.arrayContaining(['signIn', 'queryItems', 'saveItems']))
    const page = usage.interactions.find((i) => i.request.query?.orderBy === 'Customer desc')
    expect(page?.request.query).toEqual({ filter: 'Status eq <string> and Amount gt <integer>', orderBy: 'Customer desc', top: 5 })
    expect(page?.request.headers).toEqual(['ApplicationId', 'SessionToken', 'WorkspaceId'])
    expect(page?.request.auth).toBe('session-token')
    expect(page?.answers['200']?.body).toMatchObject({
      type: 'array',
      items: { type: 'object', fields: { Customer: 'string', Id: 'integer', TIMESTAMP: 'string' } },
    })
    const detail = usage.interactions.find((i) => i.request.query?.relationKey === 'OrderLines')
    expect(detail?.request.query?.filter).toBe('MasterId eq <integer>')
    const refused = usage.interactions.find((i) => i.answers['401'] !== undefined)
    expect(refused?.answers['401']?.problems).toEqual(['UNKNOWN_TOKEN'])
    const save = usage.interactions.find((i) => i.operation === 'saveItems')
    expect(save?.request.rows).toEqual([
      { table: null, action: 'create', fields: { Amount: 'number', Customer: 'string', Id: 'temporary', IdRow: 'null', Status: 'string', TIMESTAMP: 'null' } },
    ])
    const signIn = usage.interactions.find((i) => i.operation === 'signIn')
    expect(signIn?.request.body).toMatchObject({ fields: { username: 'email', password: 'string' } })
    await mock.close()
    const written = readFileSync(file, 'utf8')
    expect(JSON.parse(written)).toEqual(usage)
    expectNoValues(written, [token, customer, 'Secret Customer GmbH', 'Open'])
    // Sorted members at every level, interactions sorted: the text is the stable form of itself.
    const sorted = (value: unknown): unknown =>
      Array.isArray(value)
        ? value.map(sorted)
        : value !== null && typeof value === 'object'
          ? Object.fromEntries(
              Object.keys(value)
                .sort()
                .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
            )
          : value
    expect(written).toBe(`${JSON.stringify(sorted(JSON.parse(written)), null, 2)}\n`)
  })

  it('counts repeated requests of one shape as one interaction, and a second run of the same session gives the same file', async () => {
    const texts: string[] = []
    for (const name of ['a.json', 'b.json']) {
      const file = join(dir, name)
      const mock = await startTestMock({ recordUsage: file })
      await session(mock.url)
      await session(mock.url)
      await mock.close()
      texts.push(readFileSync(file, 'utf8'))
    }
    expect(texts[0]).toBe(texts[1])
    const usage = JSON.parse(texts[0] as string) as UsageFile
    expect(usage.interactions.find((i) => i.operation === 'signIn')?.count).toBe(2)
  })

  it('is off unless asked for: no recorder, and GET /__mock/usage answers 404 saying how to switch it on', async () => {
    const mock = await startTestMock()
    try {
      expect(mock.mock.app.usage).toBeNull()
      const reply = await mock.request('GET', '/__mock/usage')
      expect(reply.status).toBe(404)
      expect(reply.body.detail).toContain('--record-usage')
      expect(() => mock.mock.usage()).toThrow(/--record-usage/)
    } finally {
      await mock.close()
    }
  })
})

describe('recording usage with the command line', () => {
  it('writes the file on SIGTERM, naming the operations a session used, without its token or password', async () => {
    const file = join(dir, 'sigterm.json')
    const run = await startProcess(process.execPath, [SERVER, '--port', '0', '--record-usage', file, '--quiet'])
    expect(run.stdout).toContain(`usage recorded to ${file}`)
    const { token } = await session(run.url as string)
    process.kill(run.child.pid as number, 'SIGTERM')
    expect((await run.exited).code).toBe(0)
    const text = readFileSync(file, 'utf8')
    const usage = JSON.parse(text) as UsageFile
    expect(new Set(usage.interactions.map((i) => i.operation))).toEqual(new Set(['signIn', 'queryItems', 'saveItems']))
    expectNoValues(text, [token])
  })

  it('takes MOCK_RECORD_USAGE, and refuses a folder that cannot be written (exit 2)', async () => {
    const file = join(dir, 'env.json')
    const run = await startProcess(process.execPath, [SERVER, '--port', '0', '--quiet'], { env: { MOCK_RECORD_USAGE: file } })
    expect(run.stdout).toContain(`usage recorded to ${file}`)
    process.kill(run.child.pid as number, 'SIGTERM')
    expect((await run.exited).code).toBe(0)
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ appdataKitUsage: 1, interactions: [] })
    const refused = await runToEnd(process.execPath, [SERVER, '--port', '0', '--record-usage', join(dir, 'missing', 'u.json')])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('--record-usage')
  })
})

describe('appdata-kit usage merge', () => {
  it('joins files: counts added, every interaction kept once, the result a usage file', async () => {
    const files = [join(dir, 'm1.json'), join(dir, 'm2.json')]
    for (const file of files) {
      const mock = await startTestMock({ recordUsage: file })
      await session(mock.url)
      if (file === files[1])
        await fetch(`${mock.url}/ExplorerApi/api/items`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ApplicationId: IDS.applicationId, WorkspaceId: IDS.workspaceId, SessionToken: await mock.signIn() },
          body: JSON.stringify({ query: '$inlinecount=allpages' }),
        })
      await mock.close()
    }
    const out = join(dir, 'merged.json')
    const merged = await runToEnd(process.execPath, [BIN, 'usage', 'merge', ...files, '--out', out])
    expect(merged.code, merged.stderr).toBe(0)
    const [a, b, m] = [...files, out].map((f) => JSON.parse(readFileSync(f, 'utf8')) as UsageFile)
    expect(m?.interactions.find((i) => i.operation === 'signIn')?.count).toBe(3)
    expect(m?.interactions.some((i) => i.request.query?.count === true)).toBe(true)
    expect(m?.interactions.length).toBe(b?.interactions.length)
    expect(a?.interactions.length).toBeLessThan(b?.interactions.length as number)
  })

  it('refuses a file that is not a usage file (exit 2), naming it', async () => {
    const result = await runToEnd(process.execPath, [BIN, 'usage', 'merge', join(ROOT, 'package.json'), '--out', join(dir, 'x.json')])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain('package.json: not a usage file')
  })
})
