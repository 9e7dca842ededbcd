/**
 * `--state-file` when the new data cannot be written: a fixture load or reset that fails leaves
 * memory, snapshot and change log as they were, answers a problem (never a crash), and writes go
 * on; the data after a restart is what the mock answered before it. And a large load is written
 * out row by row and read back.
 */
import { mkdirSync, readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { IDS } from '../helpers/http.ts'
import { tempDir } from '../helpers/temp-dir.ts'
import { clientOf, SERVER } from './state-file-support.ts'
import { startProcess, stopStarted, type Started } from './processes.ts'

afterEach(stopStarted)

/** A new folder for the running test's state file, removed when the test ends. */
const folder = () => tempDir('appdata-kit-state-fail-')

const start = (file: string, extra: string[] = []) =>
  startProcess(process.execPath, [SERVER, '--port', '0', '--state-file', file, '--state-interval', '3600', '--log-level', 'fatal', ...extra])

/**
 * start, with the files the mock writes limited to 4096 blocks (2 MB in dash's 512-byte blocks, 4 MB
 * in bash's): a longer write fails as on a full disk (EFBIG, Node ignores SIGXFSZ). The shell execs
 * the mock, so the process is the mock's.
 */
const startLimited = (file: string) =>
  startProcess('/bin/sh', [
    '-c',
    `ulimit -f 4096 && exec "$0" "$@"`,
    process.execPath,
    SERVER,
    '--port',
    '0',
    '--state-file',
    file,
    '--state-interval',
    '3600',
    '--log-level',
    'fatal',
  ])

/** Starts the mock again on the same state file and hands a signed-in client to `check`. */
async function afterRestart(file: string, check: (client: ReturnType<typeof clientOf>) => Promise<void>): Promise<void> {
  const again = await start(file)
  const restarted = clientOf(again.url as string)
  try {
    await restarted.signIn(IDS.admin)
    await check(restarted)
  } finally {
    await restarted.transport.close()
  }
}

async function stop(run: Started): Promise<void> {
  process.kill(run.child.pid as number, 'SIGTERM')
  expect((await run.exited).code).toBe(0)
}

const newOrder = (customer: string) => ({
  Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: customer, Amount: 1, Status: 'New' }, Details: [] }],
})

/** The mock's own data as a fixture (attachments inline), with every order's Customer renamed. */
async function renamedState(url: string, customer: string): Promise<Record<string, any>> {
  const state = (await (await fetch(`${url}/__mock/state`)).json()) as Record<string, any>
  for (const row of state.data[IDS.applicationId].masters) row.Customer = customer
  return state
}

const post = (url: string, path: string, body?: unknown) =>
  fetch(`${url}${path}`, { method: 'POST', ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) })

describe('--state-file when the new data cannot be written', () => {
  // A folder where the mock writes its temporary snapshot (or its new log) makes that write fail
  // as a full or read-only disk would (tests run as root here, so file modes stop nothing).
  it.each([
    ['the snapshot', (file: string, pid: number) => `${file}.${pid}.tmp`],
    ['the new change log', (file: string, pid: number) => `${file}.log.${pid}.tmp`],
  ])(
    'refuses a fixture load and a reset when %s cannot be written, changing nothing, and writes go on',
    async (_what, blocked) => {
      const file = join(folder(), 'sandbox.json')
      const run = await start(file)
      expect(run.url, run.stderr).toBeDefined()
      const url = run.url as string
      const client = clientOf(url)
      await client.signIn(IDS.admin)
      expect((await client.save(newOrder('Saved before'))).ok).toBe(true)
      const before = await client.rows({ orderBy: 'Id asc' })
      const snapshotBefore = readFileSync(file, 'utf8')
      const logBefore = readFileSync(`${file}.log`, 'utf8')

      const blocker = blocked(file, run.child.pid as number)
      mkdirSync(blocker)
      for (const [path, body] of [
        ['/__mock/fixture', await renamedState(url, 'Loaded but never written')],
        ['/__mock/reset', undefined],
      ] as const) {
        const reply = await post(url, path, body)
        expect(reply.status, path).toBe(507)
        expect(reply.headers.get('content-type')).toMatch(/^application\/problem\+json/)
        expect(await reply.json()).toMatchObject({ status: 507, code: 'STATE_NOT_WRITTEN' })
        // Memory, snapshot and log as they were.
        expect(await client.rows({ orderBy: 'Id asc' })).toEqual(before)
        expect(readFileSync(file, 'utf8')).toBe(snapshotBefore)
        expect(readFileSync(`${file}.log`, 'utf8')).toBe(logBefore)
      }

      // Writes go on, logged after the snapshot that still holds.
      expect((await client.save(newOrder('Saved after'))).ok).toBe(true)
      const after = await client.rows({ orderBy: 'Id asc' })
      expect(after.map((row) => row.Customer)).toContain('Saved after')
      rmSync(blocker, { recursive: true })
      await client.transport.close()
      await stop(run)

      await afterRestart(file, async (restarted) => {
        expect(await restarted.rows({ orderBy: 'Id asc' })).toEqual(after)
      })
    },
    60_000,
  )

  it('refuses an upload whose change cannot be logged with a 507, takes its folder and files back, and uploads go on', async () => {
    const file = join(folder(), 'sandbox.json')
    const run = await startLimited(file)
    expect(run.url, run.stderr).toBeDefined()
    const url = run.url as string
    const client = clientOf(url)
    await client.signIn(IDS.admin)
    const listed = async () => (await client.attachments(3)).map((a) => a.Name)
    const uploadTo3 = (second: Uint8Array | string) => {
      const body = new FormData()
      body.set('parentId', '3')
      body.set('folder', 'Scans')
      body.append('file', new Blob(['one']), 'one.txt')
      body.append('file', new Blob([second]), 'two.txt')
      return fetch(`${url}/__mock/attachments`, { method: 'POST', body })
    }
    const rowBefore = await client.rows({ filter: 'Id eq 3' })
    const snapshotBefore = readFileSync(file)
    const logBefore = readFileSync(`${file}.log`)

    // Five MB of bytes: their record (in base64) takes the log past the file size limit.
    const refused = await uploadTo3(new Uint8Array(5 * 1024 * 1024).fill(7))
    expect(refused.status).toBe(507)
    expect(await refused.json()).toMatchObject({ status: 507, code: 'STATE_NOT_WRITTEN' })
    expect(await listed()).toEqual([])
    expect(await client.rows({ filter: 'Id eq 3' })).toEqual(rowBefore)
    // The log cut back to its whole lines, the snapshot untouched.
    expect(readFileSync(file).equals(snapshotBefore)).toBe(true)
    expect(readFileSync(`${file}.log`).equals(logBefore)).toBe(true)

    const accepted = await uploadTo3('two')
    expect(accepted.status).toBe(201)
    const records = (await accepted.json()) as Array<{ Id: number; Name: string }>
    expect(records.map((r) => r.Name)).toEqual(['Scans', 'one.txt', 'two.txt'])
    await client.transport.close()
    await stop(run)
    await afterRestart(file, async (restarted) => {
      expect((await restarted.attachments(3)).map((a) => a.Name)).toEqual(['Scans'])
      expect((await restarted.attachments(3, { folderId: records[0]?.Id as number })).map((a) => a.Name)).toEqual(['one.txt', 'two.txt'])
    })
  }, 60_000)

  it('refuses with a 400 a fixture nested 5,000 deep, which it could not write out, and writes go on', async () => {
    const file = join(folder(), 'sandbox.json')
    const run = await start(file)
    const url = run.url as string
    const fixture = await renamedState(url, 'Deep')
    // Written as text: JSON.stringify itself overflows the stack on such a value.
    fixture.applications[0].master.fields[0].generate = 'DEEP'
    const generate = `${'{"allOf":['.repeat(5000)}{"type":"string"}${']}'.repeat(5000)}`
    const body = JSON.stringify(fixture).replace('"DEEP"', generate)
    const reply = await fetch(`${url}/__mock/fixture`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    expect(reply.status).toBe(400)
    const problem = (await reply.json()) as { code: string; violations: Array<{ pointer: string; message: string }> }
    expect(problem.code).toBe('BAD_FIXTURE')
    expect(problem.violations[0]?.pointer).toMatch(/^\/applications\/0\/master\/fields\/0\/generate\/allOf\/0\//)
    expect(problem.violations[0]?.message).toBe('nests deeper than 100 levels')

    const client = clientOf(url)
    await client.signIn(IDS.admin)
    expect((await client.save(newOrder('Saved after the refusal'))).ok).toBe(true)
    const after = await client.rows({ orderBy: 'Id asc' })
    expect(after.some((row) => row.Customer === 'Deep')).toBe(false)
    await client.transport.close()
    await stop(run)
    await afterRestart(file, async (restarted) => {
      expect(await restarted.rows({ orderBy: 'Id asc' })).toEqual(after)
    })
  }, 60_000)

  it('writes a load of 50,000 generated orders out and serves them after a restart', async () => {
    const file = join(folder(), 'sandbox.json')
    const run = await start(file)
    const url = run.url as string
    const reply = await post(url, '/__mock/fixture?rows=50000', await renamedState(url, 'Loaded'))
    expect(reply.status).toBe(200)
    const client = clientOf(url)
    await client.signIn(IDS.admin)
    const count = await client.count()
    expect(count).toBe(50_025)
    expect((await client.save(newOrder('Saved after the load'))).ok).toBe(true)
    await client.transport.close()
    await stop(run)
    await afterRestart(file, async (restarted) => {
      expect(await restarted.count()).toBe(50_026)
      expect(await restarted.rows({ filter: "Customer eq 'Saved after the load'" })).toHaveLength(1)
    })
  }, 120_000)
})
