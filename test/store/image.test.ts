/**
 * A store image (src/store/image.ts, the tables' TableImage) holds the data of the moment it was
 * opened, however the store changes while it is read a chunk at a time: updates of rows read and
 * not yet read, deletes (enough to make a table compact its slots), creates, uploads and locks.
 * Read through the snapshot format, as the state file reads it.
 */
import { join } from 'node:path'
import fc from 'fast-check'
import { writeFileSync } from 'node:fs'
import { describe, expect, it, onTestFinished } from 'vitest'
import { rowGenerator, withGeneratedRows } from '../../src/fixtures/generate.ts'
import { fixtureOfSnapshot } from '../../src/state/restore.ts'
import { CHUNK_ROWS, encodeSnapshot, SnapshotFile } from '../../src/state/snapshot-format.ts'
import { createStore, type Store } from '../../src/store/store.ts'
import { tempDir } from '../helpers/temp-dir.ts'
import { runs } from '../helpers/property-runs.ts'
import { APP, defaultFixture, fixedDeps, LINES, newStore, row } from './support.ts'

const MASTERS = CHUNK_ROWS + 500

/** One change to the store while its image is read. */
type Change = { kind: 'update' | 'delete' | 'upload' | 'lock'; at: number } | { kind: 'create' } | { kind: 'delete-many' }

/** Applies a change to rows picked by `at` (a fraction of the Ids there are). */
function apply(store: Store, change: Change, ids: number[]): void {
  const pick = (at: number) => ids[Math.floor(at * ids.length)] as number
  switch (change.kind) {
    case 'update': {
      const id = pick(change.at)
      store.save({ applicationId: APP, userId: 1, masters: [{ row: { Id: id, TIMESTAMP: row(store, id).TIMESTAMP, Customer: `Changed ${id}` }, details: [] }] })
      return
    }
    case 'delete': {
      const id = pick(change.at)
      store.delete({ applicationId: APP, groups: [{ relationKey: null, rows: [{ Id: id, TIMESTAMP: row(store, id).TIMESTAMP }] }] })
      ids.splice(ids.indexOf(id), 1)
      return
    }
    case 'delete-many': {
      // More than half of the rows in one go: the tables compact their slots.
      const gone = ids.splice(0, Math.ceil(ids.length * 0.6))
      store.delete({ applicationId: APP, groups: [{ relationKey: null, rows: gone.map((id) => ({ Id: id, TIMESTAMP: row(store, id).TIMESTAMP })) }] })
      return
    }
    case 'create': {
      const saved = store.save({
        applicationId: APP,
        userId: 1,
        masters: [{ row: { Id: -1, Customer: 'New' }, details: [{ relationKey: LINES, rows: [{ Id: -2, Product: 'New line' }] }] }],
      })
      if (saved.ok) ids.push(Number(saved.result.primaryKeys.toObject()['-1']?.newKeys.Id))
      return
    }
    case 'upload': {
      const id = pick(change.at)
      store.addAttachments((add) =>
        add({
          applicationId: APP,
          relationKey: null,
          parentId: id,
          folderId: null,
          isFolder: false,
          name: 'scan.pdf',
          mediaType: 'application/pdf',
          content: new Uint8Array([1, 2, 3]),
          userId: 1,
        }),
      )
      return
    }
    case 'lock':
      store.lock(APP, null, [pick(change.at)])
  }
}

const changeArbitrary: fc.Arbitrary<Change> = fc.oneof(
  fc.record({
    kind: fc.constantFrom('update' as const, 'delete' as const, 'upload' as const, 'lock' as const),
    at: fc.double({ min: 0, max: 0.999, noNaN: true }),
  }),
  fc.constant({ kind: 'create' as const }),
  fc.constant({ kind: 'delete-many' as const }),
)

describe('a store image', () => {
  it('holds the data of the moment it was opened while the store takes writes between its chunks', () => {
    const fixture = withGeneratedRows(defaultFixture, { rows: MASTERS, seed: 5 })
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat({ max: 6 }), fc.array(changeArbitrary, { maxLength: 4 })), { minLength: 1, maxLength: 12 }), (plan) => {
        const store = newStore(fixture)
        const before = store.snapshot()
        const ids = Array.from({ length: MASTERS + 25 }, (_, i) => i + 1)
        const image = store.image()
        const pieces: Buffer[] = []
        const encoder = encodeSnapshot(image, 'during-writes', new Date(0))
        // The plan's steps: read a few pieces (chunks), then make a few changes; then read the rest.
        for (const [reads, changes] of plan) {
          for (let i = 0; i < reads; i++) {
            const next = encoder.next()
            if (next.done !== true) pieces.push(next.value)
          }
          for (const change of changes) apply(store, change, ids)
        }
        for (let next = encoder.next(); next.done !== true; next = encoder.next()) pieces.push(next.value)
        image.close()
        const path = join(tempDir('appdata-kit-image-'), 'image.state')
        writeFileSync(path, Buffer.concat(pieces))
        const file = SnapshotFile.open(path)
        onTestFinished(() => file.close())
        const restored = createStore(fixtureOfSnapshot(file), fixedDeps(), rowGenerator)
        expect(restored.snapshot()).toEqual(before)
      }),
      { numRuns: runs(8) },
    )
  })
})
