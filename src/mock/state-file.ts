import { closeSync, constants, copyFileSync, existsSync, fdatasyncSync, fsyncSync, ftruncateSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { basename, dirname, join, resolve } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { createStore } from '../store/store.ts'
import { toFixtureFile } from '../fixtures/export.ts'
import { FixtureError, parseFixture } from '../fixtures/load.ts'
import { rowGenerator } from '../fixtures/generate.ts'
import { parseJsonPieces, writeJsonPieces } from './state-json.ts'
import type { ChangeRecord } from '../store/types.ts'
import type { Deps, Fixture } from '../store/types.ts'
import type { StateSync } from './config.ts'
import { ConfigError } from '../cli-base/exit.ts'
import { ProblemError } from '../errors.ts'
import { describeJsonSyntaxError, findJsonSyntaxError } from '../wire/json-syntax.ts'

/**
 * `--state-file` keeps the data in two files: the snapshot (FILE, a fixture) and the change log
 * beside it (FILE.log). Every committed save, delete and identity reservation is appended to the
 * log, one JSON line, in the same event-loop turn and before its answer is sent; the snapshot is
 * rewritten and the log started again every `--state-interval` and at stop. The log's first line
 * names the snapshot it continues (the SHA-256 of its bytes), so a log that a crash left behind a
 * newer snapshot is never replayed twice.
 */

/** Where the change log of a state file is. */
export function changeLogPath(path: string): string {
  return `${path}.log`
}

/** A state file read at start: its data with the change log's changes, and what the replay found. */
export interface RestoredState {
  fixture: Fixture
  /** The digest of the file as read; the log continued it. */
  digest: string
  replayed: number
  /** A torn or unreadable line of the log, said for the mock's log. */
  warning?: string
}

/** The snapshot, checked as any fixture is, and the SHA-256 of its bytes; read a row at a time (see state-json.ts). */
function readSnapshot(path: string, timeZone: string | undefined): { fixture: Fixture; digest: string } {
  let bytes: Buffer
  try {
    bytes = readFileSync(path)
  } catch (error) {
    throw new FixtureError(path, [{ path: '', message: `cannot be read: ${(error as Error).message}` }])
  }
  let json: unknown
  try {
    json = parseJsonPieces(bytes)
  } catch {
    // Said where the whole text stops being JSON, in the project's words: the pieces' parser says it of a piece, in the runtime's.
    const error = findJsonSyntaxError(bytes.toString('utf8'))
    throw new FixtureError(path, [{ path: '', message: `is not valid JSON: ${error === undefined ? 'a piece of it does not parse' : describeJsonSyntaxError(error)}` }])
  }
  const fixture = parseFixture(json, path, dirname(resolve(path)), timeZone === undefined ? {} : { timeZone })
  return { fixture, digest: createHash('sha256').update(bytes).digest('hex') }
}

/**
 * The state a mock with `--state-file` starts from: the file when it exists (checked as any
 * fixture is) with the changes of its log replayed, else undefined. That is also what a reset
 * returns to. Temporary files an interrupted write left beside it are removed.
 */
export function readStateFile(path: string, deps: Deps, timeZone?: string): RestoredState | undefined {
  const dir = dirname(path)
  const prefix = `${basename(path)}.`
  if (existsSync(dir)) for (const name of readdirSync(dir)) if (name.startsWith(prefix) && name.endsWith('.tmp')) rmSync(join(dir, name), { force: true })
  if (!existsSync(path)) return undefined
  const { fixture, digest } = readSnapshot(path, timeZone)
  const records = readLog(changeLogPath(path), digest)
  if (records.lines.length === 0) return { fixture, digest, replayed: 0, ...(records.warning === undefined ? {} : { warning: records.warning }) }
  // Replayed into a store of its own, whose data becomes the start's: what the mock answered before the crash.
  const store = createStore(fixture, deps, rowGenerator)
  const replay = replayLines(store, changeLogPath(path), records.lines, records.torn)
  return { fixture: store.snapshot(), digest, ...replay }
}

/** Bytes gathered before each write of a snapshot. */
const WRITE_CHUNK = 1024 * 1024

/**
 * The fixture in the file format, written to a temporary file beside `path` and flushed to the
 * disk, with the SHA-256 of its bytes. Written a row at a time, never as one string (see
 * state-json.ts). On failure the temporary file is removed and the error thrown; nothing else was touched.
 */
function writeTemporary(path: string, fixture: Fixture): { temporary: string; digest: string } {
  const temporary = `${path}.${process.pid}.tmp`
  const hash = createHash('sha256')
  let fd: number | undefined
  try {
    fd = openSync(temporary, 'w')
    const out = fd
    let pending: string[] = []
    let pendingLength = 0
    const flush = (): void => {
      const bytes = Buffer.from(pending.join(''))
      pending = []
      pendingLength = 0
      let offset = 0
      while (offset < bytes.length) offset += writeSync(out, bytes, offset)
      hash.update(bytes)
    }
    const emit = (text: string): void => {
      pending.push(text)
      pendingLength += text.length
      if (pendingLength >= WRITE_CHUNK) flush()
    }
    writeJsonPieces(toFixtureFile(fixture), emit)
    emit('\n')
    flush()
    fsyncSync(out)
    closeSync(out)
    fd = undefined
    return { temporary, digest: hash.digest('hex') }
  } catch (error) {
    if (fd !== undefined) closeSync(fd)
    rmSync(temporary, { force: true })
    throw error
  }
}

function syncFolder(dir: string): void {
  const fd = openSync(dir, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/**
 * The change log, open for appending. A failed append is cut off again (the file keeps only whole
 * lines) and throws, so the request fails and its change is not applied.
 */
class ChangeLog {
  readonly path: string
  readonly #sync: StateSync
  #fd: number | undefined
  #size = 0

  constructor(path: string, sync: StateSync) {
    this.path = path
    this.#sync = sync
  }

  /** Starts the log again after a snapshot with this digest; a log that cannot be started takes no more changes. */
  restart(digest: string): void {
    this.close()
    const fd = openSync(this.path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_APPEND)
    this.#fd = fd
    this.#size = 0
    this.append(JSON.stringify({ base: digest }))
  }

  /**
   * A new log for the snapshot with this digest, written beside this one (its header only); this
   * one stays open and in use until `switchTo`. Throws, leaving nothing behind, when it cannot be written.
   */
  prepare(digest: string): { path: string; fd: number; size: number } {
    const path = `${this.path}.${process.pid}.tmp`
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_APPEND)
    try {
      const header = `${JSON.stringify({ base: digest })}\n`
      if (writeSync(fd, header) !== Buffer.byteLength(header)) throw new Error(`change log ${path}: header not written whole`)
      if (this.#sync === 'always') fdatasyncSync(fd)
      return { path, fd, size: Buffer.byteLength(header) }
    } catch (error) {
      closeSync(fd)
      rmSync(path, { force: true })
      throw error
    }
  }

  /** Puts a prepared log in this one's place (the snapshot it continues is in place already). */
  switchTo(prepared: { path: string; fd: number; size: number }): void {
    this.close()
    this.#fd = prepared.fd
    this.#size = prepared.size
    // A rename in the folder where the snapshot's rename just succeeded; should it fail, the log takes no more changes.
    try {
      renameSync(prepared.path, this.path)
    } catch (error) {
      this.close()
      throw error
    }
  }

  /** Drops a prepared log that is not used. */
  discard(prepared: { path: string; fd: number }): void {
    closeSync(prepared.fd)
    rmSync(prepared.path, { force: true })
  }

  append(line: string): void {
    if (this.#fd === undefined) throw new Error(`change log ${this.path} is not open (see the error logged before)`)
    const text = `${line}\n`
    try {
      const written = writeSync(this.#fd, text)
      if (written !== Buffer.byteLength(text)) throw new Error(`only ${written} bytes of ${Buffer.byteLength(text)} written`)
      if (this.#sync === 'always') fdatasyncSync(this.#fd)
      this.#size += written
    } catch (error) {
      try {
        ftruncateSync(this.#fd, this.#size)
      } catch {
        // The log cannot even be cut back: it takes no more changes.
        this.close()
      }
      throw new Error(`change log ${this.path} not written: ${(error as Error).message}`)
    }
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd)
    this.#fd = undefined
  }
}

/** The log's lines after its header when it continues `digest`; none for another snapshot's log. */
function readLog(path: string, digest: string): { lines: string[]; torn: boolean; warning?: string } {
  if (!existsSync(path)) return { lines: [], torn: false }
  const lines = readFileSync(path, 'utf8').split('\n')
  const header = parseLine(lines[0] ?? '') as { base?: unknown } | undefined
  // Another snapshot's log (a crash came between a snapshot and the log's new start): all in the snapshot already.
  if (header?.base !== digest) return { lines: [], torn: false }
  // After the last newline comes '' (a whole last line) or the part of a line a crash cut.
  const last = lines.pop() as string
  return { lines: last === '' ? lines.slice(1) : [...lines.slice(1), last], torn: last !== '' }
}

/**
 * Applies the log's lines to the store. A last line that is not a whole change (cut short by a
 * crash, so never answered) is ignored with a warning; an unreadable line before the last stops
 * the replay there, with a warning and a copy of the log kept beside it.
 */
function replayLines(store: ReturnType<typeof createStore>, path: string, lines: string[], torn: boolean): { replayed: number; warning?: string } {
  let replayed = 0
  for (const [i, line] of lines.entries()) {
    const record = parseLine(line) as ChangeRecord | undefined
    let failure = record === undefined ? 'not a whole JSON line' : undefined
    if (record !== undefined) {
      try {
        store.replay(record)
        replayed++
      } catch (error) {
        failure = (error as Error).message
      }
    }
    if (failure === undefined) continue
    if (i === lines.length - 1) {
      return { replayed, warning: `change log ${path}: last line ignored (${failure}; ${torn ? 'a write cut short by a crash, ' : ''}never answered): ${replayed} changes replayed` }
    }
    const kept = `${path}.corrupt-${Date.now()}`
    copyFileSync(path, kept)
    return { replayed, warning: `change log ${path}: line ${i + 2} unreadable (${failure}); ${replayed} changes replayed, the ${lines.length - i - 1} lines after it ignored; the log is kept as ${kept}` }
  }
  return { replayed }
}

function parseLine(line: string): unknown {
  try {
    const value: unknown = JSON.parse(line)
    return typeof value === 'object' && value !== null ? value : undefined
  } catch {
    return undefined
  }
}

/** A mock's state file kept current. */
export interface StateKeeper {
  /** Rewrites the snapshot (and starts the log again) now if the data changed since the last time; the reason when it failed. */
  flush(): string | undefined
  /** Stops the timer, flushes and closes the log; the reason when the last flush failed. */
  stop(): string | undefined
}

export interface KeepOptions {
  intervalSeconds: number
  sync: StateSync
  /** The state file the mock started from; undefined when it started from a fixture. */
  restored: RestoredState | undefined
}

/**
 * Keeps `path` in step with the app's store (built from `readStateFile`'s data): logs every committed write as it happens and rewrites the snapshot every `intervalSeconds` when a write
 * happened since the last time (nothing is written for a mock nobody changes). A failed snapshot is
 * logged and tried again at the next interval; the previous snapshot and its log stay as they were.
 * Call before the mock listens, so no request meets the data before the replay.
 */
export function keepStateFile(app: FastifyInstance, path: string, options: KeepOptions): StateKeeper {
  const log = new ChangeLog(changeLogPath(path), options.sync)
  const restored = options.restored
  let written = Number.NaN
  if (restored !== undefined) {
    if (restored.warning !== undefined) app.log.warn(restored.warning)
    if (restored.replayed > 0) app.log.info(`${restored.replayed} changes replayed from ${log.path}`)
    // Nothing replayed: the file is the state, and the log starts again after it.
    if (restored.replayed === 0) written = app.store.generation()
  }
  /**
   * Writes `fixture` as the snapshot and starts the log again after it. Until the snapshot's rename
   * nothing is changed (a failure removes what it wrote, and the old snapshot and its log stay in
   * use): `committed` false. After it, the new snapshot is the state, whatever comes next.
   */
  const save = (fixture: Fixture, generation: number): { committed: boolean; reason?: string } => {
    let prepared: ReturnType<ChangeLog['prepare']> | undefined
    let temporary: string | undefined
    try {
      const snapshot = writeTemporary(path, fixture)
      temporary = snapshot.temporary
      prepared = log.prepare(snapshot.digest)
      renameSync(snapshot.temporary, path)
    } catch (error) {
      if (prepared !== undefined) log.discard(prepared)
      if (temporary !== undefined) rmSync(temporary, { force: true })
      const reason = `state file ${path} not written: ${(error as Error).message}`
      app.log.error(reason)
      return { committed: false, reason }
    }
    written = generation
    try {
      // A power loss must not keep the new log and lose the rename before it.
      if (options.sync === 'always') syncFolder(dirname(path))
      log.switchTo(prepared)
      return { committed: true }
    } catch (error) {
      // The snapshot holds the data; the log takes no more changes until the next snapshot starts it again.
      const reason = `change log ${log.path} not started again after the snapshot: ${(error as Error).message}`
      app.log.error(reason)
      written = Number.NaN
      return { committed: true, reason }
    }
  }
  const flush = (): string | undefined => {
    const generation = app.store.generation()
    if (generation === written) return undefined
    return save(app.store.snapshot(), generation).reason
  }
  try {
    if (Number.isNaN(written)) {
      // Written once at start when it is new, so a path the mock cannot write stops it now, not at the first save.
      const failed = flush()
      if (failed !== undefined) throw new ConfigError(`--state-file: ${failed}`)
    } else log.restart((restored as RestoredState).digest)
  } catch (error) {
    log.close()
    throw error instanceof ConfigError ? error : new ConfigError(`--state-file: change log ${log.path} cannot be written: ${(error as Error).message}`)
  }
  app.store.onCommit((record, replacing) => {
    if (record !== null) return log.append(JSON.stringify(record))
    if (replacing !== undefined) {
      // A reset or fixture load, not yet in effect: written first, and refused when it cannot be,
      // so memory, snapshot and change log stay as they were and later writes go on.
      const saved = save(replacing.snapshot(), replacing.generation)
      if (!saved.committed) throw new ProblemError('STATE_NOT_WRITTEN', `Nothing changed: the data could not be written to the state file (${saved.reason}).`)
      return
    }
    // An upload, in the data but not yet acknowledged: a new snapshot stands for it. When the
    // snapshot cannot be written the store takes the upload back, so the old snapshot and its log
    // hold again, and the client hears that the disk, not its request, failed.
    const generation = app.store.generation()
    const saved = save(app.store.snapshot(), generation)
    if (!saved.committed) throw new ProblemError('STATE_NOT_WRITTEN', `Nothing changed: the upload could not be written to the state file (${saved.reason}).`)
    // In the snapshot, but its log did not start again: no later write is acknowledged until a snapshot succeeds.
    if (saved.reason !== undefined) log.close()
  })
  const timer = setInterval(flush, options.intervalSeconds * 1000)
  timer.unref()
  return {
    flush,
    stop() {
      clearInterval(timer)
      const failed = flush()
      app.store.onCommit(undefined)
      log.close()
      return failed
    },
  }
}
