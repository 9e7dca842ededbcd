/**
 * What a mock with `--state-file` starts from: the snapshot, the change log that continues it, or
 * the JSON state file of an earlier version (read once, then converted by the keeper).
 */
import { closeSync, existsSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { basename, dirname, join, resolve } from 'node:path'
import { FixtureError, parseFixture } from '../fixtures/load.ts'
import { describeJsonSyntaxError, findJsonSyntaxError } from '../wire/json-syntax.ts'
import { parseJsonPieces } from '../wire/json-pieces.ts'
import { isSnapshot, SnapshotError, SnapshotFile } from './snapshot-format.ts'
import { readChangeLog, removeFile, removeTemporaryLogs, type LogLines } from './change-log.ts'
import type { Fixture } from '../store/model/types.ts'

/** A state file read at start, before the store is built. */
export interface RestoredState {
  /** The data to build the store from: the snapshot's rows by column, or an earlier version's JSON fixture. */
  fixture: Fixture
  /** The snapshot, open (its rows are read from it when the store loads them); undefined for a JSON state file. */
  snapshot: SnapshotFile | undefined
  /** The change log that continues it (its lines to replay), if there is one. */
  log: LogLines | undefined
  /** A JSON state file of an earlier version: to be written again as a snapshot. */
  converting: boolean
}

/** Temporary snapshots beside the state file (FILE.<pid>.tmp and the like) that a stop cut short. */
function removeTemporarySnapshots(path: string): void {
  const dir = dirname(path)
  const prefix = `${basename(path)}.`
  if (!existsSync(dir)) return
  for (const name of readdirSync(dir)) {
    if (name.startsWith(prefix) && name.endsWith('.tmp') && !name.startsWith(`${prefix}log.`)) removeFile(join(dir, name))
  }
}

/**
 * The state file at `path` as the mock starts from it, or undefined when there is none yet.
 * Temporary files an interrupted write left beside it are removed. Throws FixtureError for a file
 * that cannot be read.
 */
export function readState(path: string, timeZone?: string): RestoredState | undefined {
  removeTemporarySnapshots(path)
  if (!existsSync(path)) {
    removeTemporaryLogs(path)
    return undefined
  }
  let first: Buffer
  try {
    const fd = openSync(path, 'r')
    try {
      first = Buffer.alloc(16)
      readSync(fd, first, 0, 16, 0)
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    throw new FixtureError(path, [{ path: '', message: `cannot be read: ${(error as Error).message}` }])
  }
  if (!isSnapshot(first)) return readJsonState(path, timeZone)
  let snapshot: SnapshotFile
  try {
    snapshot = SnapshotFile.open(path)
  } catch (error) {
    if (!(error instanceof SnapshotError)) throw new FixtureError(path, [{ path: '', message: `cannot be read: ${(error as Error).message}` }])
    throw new FixtureError(path, [{ path: '', message: error.message }])
  }
  return { fixture: fixtureOfSnapshot(snapshot, timeZone), snapshot, log: readChangeLog(path, snapshot.header.id), converting: false }
}

/** The data of a snapshot as a fixture: its definitions, attachments, sequences and locks, its rows read from the file by column as the store loads them. */
export function fixtureOfSnapshot(snapshot: SnapshotFile, timeZone?: string): Fixture {
  const { header } = snapshot
  const { organization, ...definitions } = header.definitions
  return {
    ...definitions,
    organization: timeZone === undefined ? organization : { ...organization, timeZone },
    data: {},
    attachments: snapshot.attachments,
    sequences: header.sequences,
    ...(header.locks === undefined ? {} : { locks: header.locks }),
    stored: snapshot,
  }
}

/** A JSON state file of an earlier version: a fixture, read a row at a time, and the log that named its SHA-256. */
function readJsonState(path: string, timeZone: string | undefined): RestoredState {
  const bytes = readFileSync(path)
  let json: unknown
  try {
    json = parseJsonPieces(bytes)
  } catch {
    // Said where the whole text stops being JSON, in the project's words: the pieces' parser says it of a piece, in the runtime's.
    const error = findJsonSyntaxError(bytes.toString('utf8'))
    throw new FixtureError(path, [
      { path: '', message: `is not valid JSON: ${error === undefined ? 'a piece of it does not parse' : describeJsonSyntaxError(error)}` },
    ])
  }
  const fixture = parseFixture(json, path, dirname(resolve(path)), timeZone === undefined ? {} : { timeZone })
  const digest = createHash('sha256').update(bytes).digest('hex')
  return { fixture, snapshot: undefined, log: readChangeLog(path, digest), converting: true }
}
