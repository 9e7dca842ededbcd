/**
 * The state file's keeper (src/state/keeper.ts) with a store in this process: what a restart reads
 * from its files (readState, then a new keeper replaying the log) is the data the store acknowledged,
 * whatever landed between the slices of a snapshot or of a reset, and wherever a stop came between
 * the steps that put a snapshot in place.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { rowGenerator, withGeneratedRows } from '../../src/fixtures/generate.ts'
import { keepState, type StateKeeper } from '../../src/state/keeper.ts'
import { readState } from '../../src/state/restore.ts'
import { CHUNK_ROWS, SnapshotFile } from '../../src/state/snapshot-format.ts'
import { createStore, type Store } from '../../src/store/store.ts'
import type { Fixture } from '../../src/store/model/types.ts'
import { tempDir } from '../helpers/temp-dir.ts'
import { APP, defaultFixture, fixedDeps, LINES, MASTER_STORAGE, q, row } from '../store/support.ts'

/** What the keeper logged, by level. */
type Said = Array<[string, string]>

function keep(store: Store, path: string, pause: () => Promise<void> = () => new Promise((resolve) => setImmediate(resolve)), said: Said = []): StateKeeper {
  const keeper = keepState(store, path, {
    intervalSeconds: 3600,
    sync: 'never',
    restored: undefined,
    log: { info: (m) => said.push(['info', m]), warn: (m) => said.push(['warn', m]), error: (m) => said.push(['error', m]) },
    pause,
    sliceMs: 1,
  })
  onTestFinished(() => void keeper.stop())
  return keeper
}

/** A restart from the files at `path`: the state read, a new store built from it, its log replayed by a new keeper. */
function restart(path: string, said: Said = []): Store {
  const restored = readState(path)
  if (restored === undefined) throw new Error(`no state file at ${path}`)
  const store = createStore(restored.fixture, fixedDeps(), rowGenerator)
  const keeper = keepState(store, path, {
    intervalSeconds: 3600,
    sync: 'never',
    restored,
    log: { info: (m) => said.push(['info', m]), warn: (m) => said.push(['warn', m]), error: (m) => said.push(['error', m]) },
    pause: () => Promise.resolve(),
  })
  // The keeper closes the snapshot it was started from when it stops.
  onTestFinished(() => void keeper.stop())
  return store
}

const create = (store: Store, customer: string) => {
  const saved = store.save({
    applicationId: APP,
    userId: 1,
    masters: [{ row: { Id: -1, Customer: customer }, details: [{ relationKey: LINES, rows: [{ Id: -2, Product: customer }] }] }],
  })
  if (!saved.ok) throw new Error('create refused')
}
const update = (store: Store, id: number, customer: string) => {
  const saved = store.save({
    applicationId: APP,
    userId: 1,
    masters: [{ row: { Id: id, TIMESTAMP: row(store, id).TIMESTAMP, Customer: customer }, details: [] }],
  })
  if (!saved.ok) throw new Error('update refused')
}

const big = (): Fixture => withGeneratedRows(defaultFixture, { rows: 3 * CHUNK_ROWS, seed: 9 })
const firstLine = (path: string) => JSON.parse(readFileSync(path, 'utf8').split('\n')[0] as string) as { base: string }

describe('the state file keeper', () => {
  it('keeps every change that lands between the slices of a snapshot, and starts the log again after it', async () => {
    const path = join(tempDir('appdata-kit-keeper-'), 'sandbox.state')
    const store = createStore(big(), fixedDeps(), rowGenerator)
    let turns = 0
    // Each turn the snapshot gives the loop, a client changes a row: some read already, some not yet.
    const keeper = keep(store, path, async () => {
      turns++
      update(store, 1 + ((turns * 7919) % (3 * CHUNK_ROWS)), `During ${turns}`)
      if (turns % 3 === 0) create(store, `Made during ${turns}`)
      await new Promise((resolve) => setImmediate(resolve))
    })
    const snapshotBefore = readFileSync(path)
    create(store, 'Before the snapshot')
    await keeper.compact()
    expect(turns).toBeGreaterThan(3)
    expect(readFileSync(path).equals(snapshotBefore)).toBe(false)
    // The log continues the new snapshot and holds only what came after its moment.
    const snapshot = SnapshotFile.open(path)
    onTestFinished(() => snapshot.close())
    expect(firstLine(`${path}.log`).base).toBe(snapshot.header.id)
    expect(readFileSync(`${path}.log`, 'utf8')).not.toContain('Before the snapshot')
    create(store, 'After the snapshot')
    // A crash now: the files are all there is.
    expect(restart(path).snapshot()).toEqual(store.snapshot())
  })

  it('finds the log of a snapshot put in place when a stop came before its log was moved', async () => {
    const path = join(tempDir('appdata-kit-keeper-'), 'sandbox.state')
    const store = createStore(defaultFixture, fixedDeps(), rowGenerator)
    const keeper = keep(store, path)
    const oldBase = firstLine(`${path}.log`).base
    create(store, 'Before')
    await keeper.compact()
    create(store, 'After')
    // As the files are when the stop came between the two renames: the new log under its
    // temporary name, the old log (of the old snapshot) still at FILE.log.
    renameSync(`${path}.log`, `${path}.log.4242.tmp`)
    writeFileSync(`${path}.log`, `${JSON.stringify({ base: oldBase })}\n${JSON.stringify({ s: MASTER_STORAGE, i: 99_999 })}\n`)
    const restarted = restart(path)
    expect(restarted.snapshot()).toEqual(store.snapshot())
    expect(existsSync(`${path}.log.4242.tmp`)).toBe(false)
  })

  it('gives a snapshot up when a reset comes while it is written, and the files hold the reset', async () => {
    const path = join(tempDir('appdata-kit-keeper-'), 'sandbox.state')
    const store = createStore(big(), fixedDeps(), rowGenerator)
    let reset = false
    const said: Said = []
    const keeper = keep(
      store,
      path,
      async () => {
        if (!reset) {
          reset = true
          store.reset()
          create(store, 'After the reset')
        }
        await new Promise((resolve) => setImmediate(resolve))
      },
      said,
    )
    update(store, 5, 'Gone with the reset')
    await keeper.compact()
    expect(reset).toBe(true)
    expect(said.filter(([level]) => level === 'error')).toEqual([])
    const restarted = restart(path)
    expect(restarted.snapshot()).toEqual(store.snapshot())
    expect(restarted.countRows(APP, null, q("$filter=Customer eq 'Gone with the reset'"))).toEqual({ count: 0 })
    expect(restarted.countRows(APP, null, q("$filter=Customer eq 'After the reset'"))).toEqual({ count: 1 })
  })

  it('puts a reset made in slices in place with the writes to the old data meanwhile gone, and versions never handed out twice', async () => {
    const path = join(tempDir('appdata-kit-keeper-'), 'sandbox.state')
    const fixture = big()
    const store = createStore(fixture, fixedDeps(), rowGenerator)
    keep(store, path)
    update(store, 7, 'Before the reset')
    // The old data takes writes while the new is built and written: rows 1 to 5, one a turn. They
    // go with the old data, and the versions they took are none of the new rows' (the k-th would be
    // the version the reset gives row k, were the versions not set aside).
    const handedOut = new Map<number, number>()
    let turns = 0
    await store.resetInSlices(fixture, async () => {
      if (turns < 5) {
        turns++
        update(store, turns, `During the reset ${turns}`)
        handedOut.set(turns, row(store, turns).TIMESTAMP)
      }
      await new Promise((resolve) => setImmediate(resolve))
    })
    expect(handedOut.size).toBe(5)
    expect(row(store, 7).Customer).not.toBe('Before the reset')
    expect(store.countRows(APP, null, q("$filter=startswith(Customer, 'During the reset')"))).toEqual({ count: 0 })
    for (const [id, version] of handedOut) {
      expect(row(store, id).TIMESTAMP).not.toBe(version)
      // A save with a version read before the reset is stale after it.
      const stale = store.save({ applicationId: APP, userId: 1, masters: [{ row: { Id: id, TIMESTAMP: version, Customer: 'Stale' }, details: [] }] })
      expect(stale.ok).toBe(false)
    }
    update(store, 9, 'After the reset')
    expect(Math.max(...handedOut.values())).toBeLessThan(row(store, 9).TIMESTAMP)
    expect(restart(path).snapshot()).toEqual(store.snapshot())
  })

  it('keeps uploads, lock changes and identity reservations in the log', () => {
    const path = join(tempDir('appdata-kit-keeper-'), 'sandbox.state')
    const store = createStore(defaultFixture, fixedDeps(), rowGenerator)
    keep(store, path)
    store.addAttachments((add) =>
      add({
        applicationId: APP,
        relationKey: null,
        parentId: 3,
        folderId: null,
        isFolder: false,
        name: 'kept.txt',
        mediaType: 'text/plain',
        content: new TextEncoder().encode('bytes kept'),
        userId: 1,
      }),
    )
    store.lock(APP, null, [4, 6])
    store.unlock(APP, null, [6])
    const reserved = store.reserveIdentities(APP, MASTER_STORAGE, 'IdRow', 3)
    expect(Array.isArray(reserved)).toBe(true)
    const said: Said = []
    const restarted = restart(path, said)
    expect(said).toContainEqual(['info', `4 changes replayed from ${path}.log`])
    expect(restarted.snapshot()).toEqual(store.snapshot())
    expect(restarted.locks()).toEqual([{ applicationId: APP, relationKey: null, ids: [4] }])
  })
})
