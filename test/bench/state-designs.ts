/**
 * The two designs weighed for `--state-file` (docs/security-and-durability.md, "Why a snapshot by
 * column"), measured side by side on W5's data (1 M orders and 2 M lines; STATE_ROWS changes it):
 * the snapshot by column with its change log (what the mock does), and SQLite in WAL mode through
 * better-sqlite3, a row per record and the same columns as blobs, each change committed in its own
 * transaction. Not part of `npm run bench` (better-sqlite3 is not a dependency): install it beside
 * the project first, `npm install --no-save better-sqlite3@12.11.1` (it builds from source when its
 * prebuilt binary cannot be downloaded), then `npx tsx test/bench/state-designs.ts`; without it the
 * SQLite rows say so. Prints a table in Markdown. Restores run in a process of their own, so their
 * resident memory is their own.
 */
import { spawnSync } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadFixture } from '../../src/fixtures/load.ts'
import { rowGenerator, withGeneratedRows } from '../../src/fixtures/generate.ts'
import { createStore, type Store } from '../../src/store/store.ts'
import { fixtureOfSnapshot } from '../../src/state/restore.ts'
import { ChangeLog } from '../../src/state/change-log.ts'
import { CHUNK_ROWS, encodeSnapshot, SnapshotFile } from '../../src/state/snapshot-format.ts'
import { writeSnapshotSync } from '../../src/state/snapshot-write.ts'
import type { ChunkValues, ColumnChunk, ColumnKind, FieldValue, StoredRows } from '../../src/store/model/types.ts'
import type { ImageHeader } from '../../src/store/image.ts'

const ROWS = Number(process.env.STATE_ROWS ?? 1_000_000)
const FIXTURE = new URL('../../fixtures/default.json', import.meta.url).pathname
const deps = { now: () => Date.parse('2026-01-01T00:00:00Z'), randomBytes: (size: number) => new Uint8Array(size) }
const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(0)
const s = (ms: number) => (ms / 1000).toFixed(2)
const rssMb = () => process.memoryUsage().rss / 1024 / 1024

/** The minimal part of better-sqlite3's API used here. */
interface Database {
  pragma(text: string): unknown
  exec(sql: string): void
  prepare(sql: string): {
    run(...values: unknown[]): unknown
    raw(on: boolean): { iterate(...values: unknown[]): Iterable<unknown[]> }
    iterate(...values: unknown[]): Iterable<Record<string, unknown>>
  }
  transaction<T extends (...args: never[]) => unknown>(fn: T): T
  close(): void
}

function sqlite(): ((path: string) => Database) | undefined {
  try {
    return createRequire(join(process.cwd(), 'package.json'))('better-sqlite3') as (path: string) => Database
  } catch {
    return undefined
  }
}

function w5Store(): Store {
  return createStore(withGeneratedRows(loadFixture(FIXTURE), { rows: ROWS - 25, seed: 1 }), deps, rowGenerator)
}

/** Runs this file again in a process of its own for one restore; its figures as JSON. */
function restoreInChild(kind: string, path: string): { ms: number; rss: number } {
  const child = spawnSync(process.execPath, ['--import', 'tsx', new URL(import.meta.url).pathname, 'restore', kind, path], {
    encoding: 'utf8',
    env: process.env,
    maxBuffer: 1 << 20,
  })
  if (child.status !== 0) throw new Error(`restore ${kind} failed: ${child.stderr}`)
  return JSON.parse(child.stdout.trim().split('\n').pop() as string) as { ms: number; rss: number }
}

/** The median of `count` timings of `fn`, µs. */
function medianMicros(count: number, fn: (i: number) => void): number {
  const times: number[] = []
  for (let i = 0; i < count; i++) {
    const begun = process.hrtime.bigint()
    fn(i)
    times.push(Number(process.hrtime.bigint() - begun) / 1000)
  }
  return times.sort((a, b) => a - b)[Math.floor(count / 2)] as number
}

/** A typical change record: one order updated. */
const RECORD = JSON.stringify({
  v: 3_000_123,
  t: [
    {
      s: '5e7d0c1a-1111-4111-8111-000000000001',
      p: [
        {
          Id: 500_000,
          IdRow: 1_500_000,
          Customer: 'Initech',
          Amount: 12.5,
          Status: 'Open',
          CT_ATTACHMENTS: null,
          DT_CREATION: 20_240_601_080_000_000,
          DT_LAST_UPDATE: 20_260_101_000_000_000,
          ROW_ORDER: 500_000,
          TIMESTAMP: 3_000_122,
          USER_ID_CREATION: 1,
          USER_ID_LAST_UPDATE: 1,
        },
      ],
      d: [],
      n: [1_000_001, 1_000_001, 1_000_001],
    },
  ],
})

if (process.argv[2] === 'restore') {
  const [kind, path] = process.argv.slice(3) as [string, string]
  const begun = performance.now()
  if (kind === 'columns' || kind === 'blobs') {
    let file = path
    if (kind === 'blobs') {
      // The snapshot's own bytes, kept in SQLite a piece per row: read back into a file the snapshot's reader takes.
      const db = (sqlite() as (path: string) => Database)(path)
      file = `${path}.state`
      const out = openSync(file, 'w')
      for (const [body] of db.prepare('SELECT body FROM pieces ORDER BY n').raw(true).iterate() as Iterable<[Buffer]>) writeSync(out, body)
      closeSync(out)
      db.close()
    }
    createStore(fixtureOfSnapshot(SnapshotFile.open(file)), deps, rowGenerator)
  } else {
    // SQLite: everything but the rows in a table `meta` (as the snapshot's header), the rows read back into the same chunks.
    const open = sqlite() as (path: string) => Database
    const db = open(path)
    const [meta] = db.prepare('SELECT header FROM meta').raw(true).iterate() as Iterable<[string]>
    const header = JSON.parse((meta as [string])[0]) as ImageHeader & { rows: Record<string, number> }
    const rows: StoredRows = {
      masterRows: header.masterRows,
      detailRows: header.detailRows,
      nextVersion: header.nextVersion,
      nextRowOrders: header.nextRowOrders,
      rowsOf: (id: string) => header.rows[id] ?? 0,
      *chunks(storageId: string, columns: readonly string[], kinds: readonly ColumnKind[]): Generator<ColumnChunk> {
        let chunk: ChunkValues[] = columns.map((_, i) => (kinds[i] === 'number' ? new Float64Array(CHUNK_ROWS) : new Array<FieldValue>(CHUNK_ROWS)))
        let count = 0
        for (const row of db
          .prepare(`SELECT ${columns.map((c) => `"${c}"`).join(',')} FROM "t_${storageId}" ORDER BY "Id"`)
          .raw(true)
          .iterate()) {
          row.forEach(
            (value, i) =>
              ((chunk[i] as ChunkValues)[count] =
                kinds[i] === 'number'
                  ? value === null
                    ? Number.NaN
                    : (value as number)
                  : kinds[i] === 'array' && typeof value === 'string'
                    ? JSON.parse(value)
                    : (value as FieldValue)),
          )
          if (++count === CHUNK_ROWS) {
            yield { count, columns: chunk }
            chunk = columns.map((_, i) => (kinds[i] === 'number' ? new Float64Array(CHUNK_ROWS) : new Array<FieldValue>(CHUNK_ROWS)))
            count = 0
          }
        }
        if (count > 0) yield { count, columns: chunk }
      },
    }
    createStore({ ...header.definitions, data: {}, attachments: [], sequences: header.sequences, stored: rows }, deps, rowGenerator)
  }
  process.stdout.write(`${JSON.stringify({ ms: performance.now() - begun, rss: rssMb() })}\n`)
  process.exit(0)
}

const dir = mkdtempSync(join(tmpdir(), 'appdata-kit-state-designs-'))
const lines: string[][] = []
try {
  let begun = performance.now()
  const store = w5Store()
  const data = `${ROWS / 1000} k orders + ${(2 * ROWS) / 1000} k lines`
  process.stderr.write(`W5's data (${data}) built in ${s(performance.now() - begun)} s\n`)

  // The snapshot by column: all at once, then the slices' longest step, the restore, a change.
  const snapshot = join(dir, 'sandbox.state')
  let image = store.image()
  begun = performance.now()
  writeSnapshotSync(snapshot, image, 'designs')
  const columnsWrite = performance.now() - begun
  image.close()
  image = store.image()
  let longest = 0
  for (const pieces = encodeSnapshot(image, 'designs', new Date()); ; ) {
    const step = performance.now()
    if (pieces.next().done === true) break
    longest = Math.max(longest, performance.now() - step)
  }
  image.close()
  const columnsRestore = restoreInChild('columns', snapshot)
  const logged = (sync: 'never' | 'always') => {
    const log = ChangeLog.create(join(dir, `changes-${sync}.log`), 'designs', sync)
    try {
      return medianMicros(sync === 'always' ? 300 : 3000, () => log.append(RECORD))
    } finally {
      log.close()
    }
  }
  lines.push([
    'snapshot by column + change log',
    `${s(columnsWrite)} s (encoded a chunk of ${CHUNK_ROWS} rows at a time; longest chunk ${longest.toFixed(1)} ms)`,
    `${s(columnsRestore.ms)} s, ${columnsRestore.rss.toFixed(0)} MB`,
    `${mb(statSync(snapshot).size)} MB`,
    `${logged('never').toFixed(0)} µs / ${logged('always').toFixed(0)} µs`,
    'none (pure JavaScript)',
  ])

  const open = sqlite()
  if (open === undefined)
    lines.push(['SQLite (better-sqlite3)', 'not measured: better-sqlite3 is not installed (npm install --no-save better-sqlite3@12.11.1)', '-', '-', '-', '-'])
  else {
    for (const kind of ['rows', 'blobs'] as const) {
      const path = join(dir, `sandbox-${kind}.sqlite`)
      const db = open(path)
      db.pragma('journal_mode = WAL')
      db.pragma('synchronous = NORMAL')
      const image = store.image()
      begun = performance.now()
      // Everything but the rows, as the snapshot's header holds it (attachments' bytes aside).
      const { attachments: _attachments, ...header } = image.header
      db.exec('CREATE TABLE meta (header TEXT)')
      db.prepare('INSERT INTO meta VALUES (?)').run(
        JSON.stringify({ ...header, rows: Object.fromEntries(image.tables.map(({ storageId, image: table }) => [storageId, table.rows])) }),
      )
      if (kind === 'rows') {
        for (const { storageId, image: table } of image.tables) {
          db.exec(`CREATE TABLE "t_${storageId}" (${table.columns.map((c, i) => `"${c}" ${table.kinds[i] === 'number' ? 'REAL' : 'TEXT'}`).join(', ')})`)
          const insert = db.prepare(`INSERT INTO "t_${storageId}" VALUES (${table.columns.map(() => '?').join(',')})`)
          db.transaction(() => {
            for (let chunk = table.read(CHUNK_ROWS); chunk !== undefined; chunk = table.read(CHUNK_ROWS)) {
              const { count, columns } = chunk
              for (let r = 0; r < count; r++)
                insert.run(
                  ...columns.map((values, i) => {
                    const v = values[r]
                    return table.kinds[i] === 'number' ? (v !== v ? null : v) : table.kinds[i] === 'array' && v !== null ? JSON.stringify(v) : v
                  }),
                )
            }
          })()
        }
      } else {
        // The snapshot's own bytes, a piece (a chunk of columns) per row.
        db.exec('CREATE TABLE pieces (n INTEGER PRIMARY KEY, body BLOB)')
        const insert = db.prepare('INSERT INTO pieces VALUES (?, ?)')
        db.transaction(() => {
          let n = 0
          for (const piece of encodeSnapshot(image, 'designs', new Date())) insert.run(n++, piece)
        })()
      }
      // Into the database file and flushed, as the snapshot's write is flushed.
      db.pragma('wal_checkpoint(TRUNCATE)')
      const write = performance.now() - begun
      image.close()
      db.close()
      const restore = restoreInChild(kind, path)
      const change = (synchronous: 'NORMAL' | 'FULL') => {
        const changes = open(join(dir, `changes-${kind}-${synchronous}.sqlite`))
        changes.pragma('journal_mode = WAL')
        changes.pragma(`synchronous = ${synchronous}`)
        changes.exec('CREATE TABLE changes (record TEXT)')
        const insert = changes.prepare('INSERT INTO changes VALUES (?)')
        const commit = changes.transaction((record: string) => insert.run(record))
        try {
          return medianMicros(synchronous === 'FULL' ? 300 : 3000, () => commit(RECORD))
        } finally {
          changes.close()
        }
      }
      lines.push([
        kind === 'rows' ? 'SQLite, WAL, a row per record' : 'SQLite, WAL, a blob per chunk of columns',
        `${s(write)} s (one synchronous call per table: it belongs on a worker thread)`,
        `${s(restore.ms)} s, ${restore.rss.toFixed(0)} MB`,
        `${mb(statSync(path).size)} MB`,
        `${change('NORMAL').toFixed(0)} µs / ${change('FULL').toFixed(0)} µs`,
        'native: a prebuilt binary, or a build from source (about 76 s on this machine) per Node line',
      ])
    }
  }
  const head = ['design', `write ${data}`, 'restore to a ready store, RSS', 'on disk', 'one change before its answer (`never` / `always`)', 'install']
  process.stdout.write(`${[head, head.map(() => '---'), ...lines].map((row) => `| ${row.join(' | ')} |`).join('\n')}\n`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}
