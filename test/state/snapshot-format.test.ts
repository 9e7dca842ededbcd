/**
 * The snapshot by column (src/state/snapshot-format.ts): a store written as a snapshot and read
 * back holds the same data, whatever its values: generated rows over many chunks, deleted rows,
 * text the dictionary cannot hold, strings UTF-8 cannot carry, attachments and locks; and a file
 * that is not whole is refused, saying where.
 */
import { readFileSync, truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it, onTestFinished } from 'vitest'
import { rowGenerator, withGeneratedRows } from '../../src/fixtures/generate.ts'
import { fixtureOfSnapshot } from '../../src/state/restore.ts'
import { CHUNK_ROWS, SnapshotFile } from '../../src/state/snapshot-format.ts'
import { writeSnapshotSync } from '../../src/state/snapshot-write.ts'
import { createStore, type Store } from '../../src/store/store.ts'
import type { Fixture, Row } from '../../src/store/model/types.ts'
import { tempDir } from '../helpers/temp-dir.ts'
import { runs } from '../helpers/property-runs.ts'
import { APP, defaultFixture, fixedDeps, newStore, q, row } from '../store/support.ts'

/** The store written as a snapshot in a new folder, and the store built from it. */
function roundTrip(store: Store): { restored: Store; path: string } {
  const path = join(tempDir('appdata-kit-snapshot-'), 'sandbox.state')
  const image = store.image()
  try {
    writeSnapshotSync(path, image, 'a-snapshot')
  } finally {
    image.close()
  }
  const file = SnapshotFile.open(path)
  onTestFinished(() => file.close())
  return { restored: createStore(fixtureOfSnapshot(file), fixedDeps(), rowGenerator), path }
}

/** The default fixture with these Orders rows added after its own. */
function withOrders(rows: Array<Partial<Row>>): Fixture {
  const orders = defaultFixture.data[APP] as Fixture['data'][string]
  const masters = [...orders.masters, ...rows.map((row, i) => ({ TIMESTAMP: 0, ...row, Id: 1000 + i }) as Row)]
  return { ...defaultFixture, data: { ...defaultFixture.data, [APP]: { ...orders, masters } } }
}

describe('the snapshot by column', () => {
  it('holds the default fixture as the store has it, every application, attachment and sequence', () => {
    const store = newStore()
    const { restored } = roundTrip(store)
    expect(restored.snapshot()).toEqual(store.snapshot())
    expect(restored.currentRowVersion()).toBe(store.currentRowVersion())
  })

  it('holds generated rows over many chunks, with the rows deleted before it left out and the sequences where they stood', () => {
    const store = newStore(withGeneratedRows(defaultFixture, { rows: 2 * CHUNK_ROWS + 17, seed: 3 }))
    // Rows deleted from the middle leave dead slots the image passes over.
    const deleted = [40, 41, 5000, 9000]
    expect(
      store.delete({ applicationId: APP, groups: [{ relationKey: null, rows: deleted.map((id) => ({ Id: id, TIMESTAMP: row(store, id).TIMESTAMP })) }] }).ok,
    ).toBe(true)
    const { restored } = roundTrip(store)
    expect(restored.snapshot()).toEqual(store.snapshot())
    expect(restored.countRows(APP, null, q(''))).toEqual({ count: 25 + 2 * CHUNK_ROWS + 17 - deleted.length })
    // The next save takes the next Id, not a deleted one's.
    const saved = restored.save({ applicationId: APP, userId: 1, masters: [{ row: { Id: -1 }, details: [] }] })
    const again = store.save({ applicationId: APP, userId: 1, masters: [{ row: { Id: -1 }, details: [] }] })
    expect(saved.ok && saved.result.primaryKeys.toObject()).toEqual(again.ok && again.result.primaryKeys.toObject())
  })

  it('holds text of every kind: more distinct values than its dictionary keeps, lone surrogates, nothing at all, and numbers that are not integers', () => {
    const distinct = Array.from({ length: 70_000 }, (_, i) => `customer ${i} ${'é'.repeat(i % 5)}`)
    const odd = ['', 'a\ud800b', '\udfff', '😀 emoji', 'x'.repeat(100_000), null]
    const store = newStore(
      withOrders([
        ...distinct.map((customer, i) => ({ Customer: customer, Amount: i % 7 === 0 ? null : i + 0.25, Status: 'Open' })),
        ...odd.map((customer, i) => ({ Customer: customer, Amount: [-0, 1e300, -5, 2 ** 31, Number.MIN_VALUE, -(2 ** 31)][i] as number, Status: null })),
      ]),
    )
    const { restored } = roundTrip(store)
    expect(restored.snapshot()).toEqual(store.snapshot())
    const rows = restored.snapshot().data[APP]?.masters ?? []
    expect(rows.find((row) => row.Id === 1000 + distinct.length + 1)?.Customer).toBe('a\ud800b')
    expect(Object.is(rows.find((row) => row.Id === 1000 + distinct.length)?.Amount, -0)).toBe(true)
  })

  it('holds the locks and the attachments uploaded since the fixture, bytes and all', () => {
    const store = newStore()
    expect(store.lock(APP, null, [3, 4])).toEqual({ locked: 2 })
    store.addAttachments((add) =>
      add({
        applicationId: APP,
        relationKey: null,
        parentId: 3,
        folderId: null,
        isFolder: false,
        name: 'a.bin',
        mediaType: 'application/octet-stream',
        content: new Uint8Array([0, 1, 2, 255]),
        userId: 1,
      }),
    )
    const { restored } = roundTrip(store)
    expect(restored.snapshot()).toEqual(store.snapshot())
    expect(restored.locks()).toEqual(store.locks())
  })

  it('holds any rows as they were written', () => {
    const row = fc.record({
      Customer: fc.option(fc.string({ unit: 'binary', maxLength: 12 }), { nil: null }),
      Amount: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }), { nil: null }),
      Status: fc.option(fc.constantFrom('Open', 'Closed', ''), { nil: null }),
    })
    fc.assert(
      fc.property(fc.array(row, { maxLength: 300 }), (rows) => {
        const store = newStore(withOrders(rows))
        expect(roundTrip(store).restored.snapshot()).toEqual(store.snapshot())
      }),
      { numRuns: runs(25) },
    )
  })

  it('refuses a file cut short, one of another version and one of another kind, saying so', () => {
    const { path } = roundTrip(newStore())
    const bytes = readFileSync(path)
    const other = (name: string, content: Buffer) => {
      const file = join(tempDir('appdata-kit-snapshot-bad-'), name)
      writeFileSync(file, content)
      return file
    }
    const cut = other('cut.state', bytes)
    truncateSync(cut, bytes.length - 3)
    expect(() => SnapshotFile.open(cut)).toThrow(/cut short at byte|no end mark/)
    const version = Buffer.from(bytes)
    version.writeUInt32LE(99, 8)
    expect(() => SnapshotFile.open(other('version.state', version))).toThrow('format version 99, and this version of appdata-kit reads 1')
    expect(() => SnapshotFile.open(other('json.state', Buffer.from('{"organization":{}}')))).toThrow('not a snapshot of this format')
  })
})
