/**
 * `--state-file` at W5's size (1 M orders and 2 M lines), as a team sandbox runs it: an
 * acknowledged reset and an acknowledged fixture load, each followed by `kill -9`, are what the
 * restart serves, with the saves acknowledged after them.
 */
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { IDS } from '../helpers/http.ts'
import { tempDir } from '../helpers/temp-dir.ts'
import { clientOf, SERVER } from './state-file-support.ts'
import { ROOT, startProcess, stopStarted, type Started } from './processes.ts'
import { readFileSync } from 'node:fs'

afterEach(stopStarted)

const ORDERS = 1_000_000
const FIXTURE = readFileSync(join(ROOT, 'fixtures/default.json'), 'utf8')

async function start(file: string, extra: string[] = []): Promise<{ run: Started; client: ReturnType<typeof clientOf> }> {
  const run = await startProcess(
    process.execPath,
    ['--max-semi-space-size=32', SERVER, '--port', '0', '--state-file', file, '--state-interval', '3600', '--log-level', 'warn', ...extra],
    { limitMs: 120_000 },
  )
  expect(run.url, run.stderr).toBeDefined()
  const client = clientOf(run.url as string)
  await client.signIn(IDS.admin)
  return { run, client }
}

async function kill(started: { run: Started; client: ReturnType<typeof clientOf> }): Promise<void> {
  process.kill(started.run.child.pid as number, 'SIGKILL')
  await started.run.exited
  await started.client.transport.close().catch(() => undefined)
}

/** An order in the middle, without its version (a reset or load gives every row a new one). */
async function middle(client: ReturnType<typeof clientOf>): Promise<Record<string, unknown>> {
  const [row] = await client.rows({ filter: `Id eq ${ORDERS / 2}` })
  const { TIMESTAMP: _version, ...rest } = row as Record<string, unknown>
  return rest
}

const newOrder = (customer: string) => ({
  Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: customer, Amount: 1, Status: 'New' }, Details: [] }],
})

describe('--state-file at W5 size', () => {
  it('restores an acknowledged reset and an acknowledged fixture load after kill -9, and the saves after them', async () => {
    const file = join(tempDir('appdata-kit-state-scale-'), 'sandbox.state')
    const first = await start(file, ['--rows', String(ORDERS - 25)])
    const generated = await middle(first.client)
    expect(await first.client.count()).toBe(ORDERS)
    // A load of other rows (seed 2), then a reset back to the start's (seed 1), acknowledged, then a save.
    const loaded = await fetch(`${first.run.url}/__mock/fixture?rows=${ORDERS - 25}&seed=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: FIXTURE,
    })
    expect(loaded.status).toBe(200)
    const other = await middle(first.client)
    expect(other).not.toEqual(generated)
    expect((await fetch(`${first.run.url}/__mock/reset`, { method: 'POST' })).status).toBe(200)
    expect((await first.client.save(newOrder('After the reset'))).ok).toBe(true)
    await kill(first)

    const second = await start(file)
    expect(await middle(second.client)).toEqual(generated)
    expect(await second.client.count()).toBe(ORDERS + 1)
    expect(await second.client.count({ filter: "Customer eq 'After the reset'" })).toBe(1)
    // Now a load, acknowledged, then a save: the next restart serves them.
    const again = await fetch(`${second.run.url}/__mock/fixture?rows=${ORDERS - 25}&seed=2`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: FIXTURE,
    })
    expect(again.status).toBe(200)
    expect((await second.client.save(newOrder('After the load'))).ok).toBe(true)
    await kill(second)

    const third = await start(file)
    try {
      expect(await middle(third.client)).toEqual(other)
      expect(await third.client.count()).toBe(ORDERS + 1)
      expect(await third.client.count({ filter: "Customer eq 'After the load'" })).toBe(1)
      expect(await third.client.count({ filter: "Customer eq 'After the reset'" })).toBe(0)
    } finally {
      await kill(third)
    }
  }, 600_000)
})
