/**
 * `--state-file` as a team sandbox uses it: the data survives a graceful restart, and a process
 * killed at any moment leaves a file that is the old state or the new one, never a torn one.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, watch, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterEach, describe, expect, it } from 'vitest'
import { rowVersion } from '../../src/client/client.ts'
import { toFixtureFile } from '../../src/fixtures/export.ts'
import { loadFixture } from '../../src/fixtures/load.ts'
import { rowGenerator } from '../../src/fixtures/generate.ts'
import { createStore } from '../../src/store/store.ts'
import { IDS } from '../helpers/http.ts'
import { tempDir } from '../helpers/temp-dir.ts'
import { clientOf, readSnapshotWhole, SERVER } from './state-file-support.ts'
import { faultApplied, ROOT, startProcess, stopStarted, waitFor } from './processes.ts'
import { until } from '../helpers/until.ts'

afterEach(stopStarted)

/** A new folder for the running test's state file (tens of MB for a large mock), removed when the test ends. */
const folder = () => tempDir('appdata-kit-state-')

describe('--state-file', () => {
  it('serves after a restart the rows saved before it, with their versions', async () => {
    const file = join(folder(), 'sandbox.json')
    const first = await startProcess(process.execPath, [SERVER, '--port', '0', '--state-file', file])
    expect(first.stdout).toContain(`data kept in ${file}`)
    const client = clientOf(first.url as string)
    await client.signIn(IDS.admin)
    const saved = await client.save({
      Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Kept across restarts', Amount: 42, Status: 'Open' }, Details: [] }],
    })
    expect(saved.ok).toBe(true)
    const [row3] = await client.rows({ filter: 'Id eq 3' })
    await client.save({ Rows: [{ Row: { Id: 3, TIMESTAMP: rowVersion(String(row3?.TIMESTAMP)), Status: 'Closed' }, Details: [] }] })
    const before = await client.rows({ orderBy: 'Id asc' })
    await client.transport.close()
    process.kill(first.child.pid as number, 'SIGTERM')
    expect((await first.exited).code).toBe(0)
    expect(existsSync(file)).toBe(true)

    const second = await startProcess(process.execPath, [SERVER, '--port', '0', '--state-file', file])
    expect(second.stdout).toContain(`state restored from ${file}`)
    const again = clientOf(second.url as string)
    try {
      await again.signIn(IDS.admin)
      expect(await again.rows({ orderBy: 'Id asc' })).toEqual(before)
      expect(before.find((row) => row.Customer === 'Kept across restarts')).toBeDefined()
    } finally {
      await again.transport.close()
    }
  })

  it('never hands out an Id or Identity value again after a restart, deleted and reserved ones included', async () => {
    const file = join(folder(), 'sandbox.json')
    const create = async (client: ReturnType<typeof clientOf>) => {
      const saved = await client.save({
        Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Sequence', Amount: 1, Status: 'New' }, Details: [] }],
      })
      const keys = (saved.result as { ReturnData: { PrimaryKeyData: Record<string, { newKeys: Record<string, string> }> } }).ReturnData.PrimaryKeyData['-1']
        ?.newKeys
      return { id: Number(keys?.Id), identity: Number(keys?.IdRow) }
    }
    const first = await startProcess(process.execPath, [SERVER, '--port', '0', '--state-file', file])
    const client = clientOf(first.url as string)
    await client.signIn(IDS.admin)
    const made = await create(client)
    const [row] = await client.rows({ filter: `Id eq ${made.id}` })
    await client.delete([{ relationKey: null, rows: [{ Id: made.id, TIMESTAMP: rowVersion(String(row?.TIMESTAMP)) }] }])
    const reserved = await client.identities('5e7d0c1a-1111-4111-8111-000000000001', 'IdRow', 3)
    await client.transport.close()
    process.kill(first.child.pid as number, 'SIGTERM')
    expect((await first.exited).code).toBe(0)

    const second = await startProcess(process.execPath, [SERVER, '--port', '0', '--state-file', file])
    const again = clientOf(second.url as string)
    try {
      await again.signIn(IDS.admin)
      const next = await create(again)
      expect(next.id).toBeGreaterThan(made.id)
      expect(next.identity).toBeGreaterThan(Math.max(made.identity, ...reserved))
    } finally {
      await again.transport.close()
    }
  })

  it('keeps a saved row when a second signal cuts the stop short', async () => {
    const file = join(folder(), 'sandbox.json')
    const run = await startProcess(process.execPath, [SERVER, '--port', '0', '--state-file', file, '--state-interval', '3600'])
    const client = clientOf(run.url as string)
    await client.signIn(IDS.admin)
    expect(
      (
        await client.save({
          Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Saved before the signals', Amount: 1, Status: 'New' }, Details: [] }],
        })
      ).ok,
    ).toBe(true)
    // A request still in flight keeps the first stop waiting; the second signal does not wait for it.
    await fetch(`${run.url}/__mock/faults`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ rules: [{ operationId: 'queryItems', latencyMs: 5000 }] }),
    })
    const slow = client.rows({ top: 1 }).catch(() => undefined)
    await waitFor('the query to arrive', () => faultApplied(run.url as string, 'queryItems'))
    process.kill(run.child.pid as number, 'SIGINT')
    // Signals of one kind sent together may arrive as one: the second goes once the first is taken.
    await waitFor('the first signal to be taken', () => run.stdout.includes('SIGINT: stopping'))
    process.kill(run.child.pid as number, 'SIGINT')
    expect((await run.exited).code).toBe(0)
    await slow
    await client.transport.close().catch(() => undefined)
    expect(readFileSync(file, 'utf8')).toContain('Saved before the signals')
  })

  it('loads a JSON state file of an earlier version and its log once, converts it, says so, and starts from it again', async () => {
    const file = join(folder(), 'sandbox.json')
    // The state file as earlier versions wrote it: the data in the fixture format (attachments
    // inline), and a change log whose first line names the file's SHA-256, then a save of one order.
    const store = createStore(
      loadFixture(join(ROOT, 'fixtures/default.json')),
      { now: () => Date.now(), randomBytes: (size) => new Uint8Array(size) },
      rowGenerator,
    )
    const fixture = Buffer.from(JSON.stringify(toFixtureFile(store.snapshot())))
    writeFileSync(file, fixture)
    const order = { Id: 26, IdRow: 1026, Customer: 'From the old log', Amount: 7, Status: 'Open', TIMESTAMP: 900, ROW_ORDER: 26 }
    const save = { v: 901, t: [{ s: '5e7d0c1a-1111-4111-8111-000000000001', p: [order], d: [], n: [27, 1027, 27] }] }
    writeFileSync(`${file}.log`, `${JSON.stringify({ base: createHash('sha256').update(fixture).digest('hex') })}\n${JSON.stringify(save)}\n`)

    const first = await startProcess(process.execPath, [SERVER, '--port', '0', '--state-file', file])
    expect(first.url, first.stderr).toBeDefined()
    expect(first.stdout).toContain(`state file ${file}: a JSON state file of an earlier version, converted to a snapshot by column`)
    expect(first.stdout).toContain(`1 changes replayed from ${file}.log`)
    expect(readFileSync(file).subarray(0, 8).toString()).toBe('ADKSTATE')
    const client = clientOf(first.url as string)
    await client.signIn(IDS.admin)
    const rows = await client.rows({ orderBy: 'Id asc' })
    expect(rows.find((row) => row.Id === 26)?.Customer).toBe('From the old log')
    await client.transport.close()
    process.kill(first.child.pid as number, 'SIGKILL')
    await first.exited

    // Converted once: the next start reads the snapshot, with nothing to convert or replay.
    const second = await startProcess(process.execPath, [SERVER, '--port', '0', '--state-file', file])
    expect(second.stdout).not.toContain('converted')
    const again = clientOf(second.url as string)
    try {
      await again.signIn(IDS.admin)
      expect(await again.rows({ orderBy: 'Id asc' })).toEqual(rows)
    } finally {
      await again.transport.close()
    }
  })

  it('refuses at start a state file it could not write, naming it', async () => {
    const run = await startProcess(process.execPath, [SERVER, '--port', '0', '--state-file', '/nonexistent-folder/sandbox.json'])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain('--state-file /nonexistent-folder/sandbox.json: the folder /nonexistent-folder does not exist or cannot be written')
  })

  it('leaves the old state or the new one when the process is killed at any moment, never a torn file', async () => {
    const dir = folder()
    const file = join(dir, 'sandbox.json')
    // How long after a write begins the kill comes: drawn from fast-check's fixed seed, so a failing run can be replayed.
    const delays = fc.sample(fc.integer({ min: 0, max: 300 }), { numRuns: 8 })
    let saves = 0
    for (const [round, delay] of delays.entries()) {
      // A big state (its writes take a while) written every second while saves keep coming.
      const run = await startProcess(process.execPath, [
        SERVER,
        '--port',
        '0',
        '--state-file',
        file,
        '--state-interval',
        '1',
        '--rows',
        '20000',
        '--log-level',
        'error',
      ])
      expect(run.url, `round ${round}: ${run.stderr}`).toBeDefined()
      // A restart removes what an interrupted write left.
      expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([])
      const client = clientOf(run.url as string)
      await client.signIn(IDS.admin)
      // The kill lands `delay` ms after the mock starts writing (the first change it makes in the folder).
      const writeBegins = new Promise<void>((resolve) => {
        const watcher = watch(dir, () => {
          watcher.close()
          resolve()
        })
      })
      let killed = false
      const writing = (async () => {
        while (!killed) {
          const outcome = await client
            .save({ Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: `Round ${round}`, Amount: saves++, Status: 'New' }, Details: [] }] })
            .catch(() => undefined)
          if (outcome !== undefined) expect(outcome.ok).toBe(true)
        }
      })()
      await writeBegins
      // The first round lets a write finish, so later kills have an old state to keep.
      if (round === 0) await until(() => existsSync(file), 'the state file to be written')
      await new Promise((resolve) => setTimeout(resolve, delay))
      process.kill(run.child.pid as number, 'SIGKILL')
      killed = true
      await run.exited
      await writing
      await client.transport.close().catch(() => undefined)
      // Whatever moment the kill came at, the file is a whole snapshot, every row of it readable.
      if (existsSync(file)) expect(readSnapshotWhole(file), `round ${round}, killed ${delay} ms into a write`).toBeGreaterThanOrEqual(20_025)
    }
    expect(existsSync(file)).toBe(true)
    expect(saves).toBeGreaterThan(0)
  }, 180_000)
})
