import { closeSync, constants, copyFileSync, existsSync, fdatasyncSync, fsyncSync, ftruncateSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { basename, dirname, join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { createStore } from '../store/store.ts'
import { toFixtureFile } from '../fixtures/export.ts'
import { loadFixture } from '../fixtures/load.ts'
import { rowGenerator } from '../fixtures/generate.ts'
import type { ChangeRecord } from '../store/types.ts'
import type { Deps, Fixture } from '../store/types.ts'
import type { StateSync } from './config.ts'
import { ConfigError } from '../cli-base/exit.ts'

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

function digestOf(text: string): string {
  return createHash('sha256').update(text).digest('hex')
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
  const text = readFileSync(path, 'utf8')
  const fixture = loadFixture(path, { content: text, ...(timeZone === undefined ? {} : { timeZone }) })
  const digest = digestOf(text)
  const records = readLog(changeLogPath(path), digest)
  if (records.lines.length === 0) return { fixture, digest, replayed: 0, ...(records.warning === undefined ? {} : { warning: records.warning }) }
  // Replayed into a store of its own, whose data becomes the start's: what the mock answered before the crash.
  const store = createStore(fixture, deps, rowGenerator)
  const replay = replayLines(store, changeLogPath(path), records.lines, records.torn)
  return { fixture: store.snapshot(), digest, ...replay }
}

/**
 * Writes the fixture so that the file is, at every moment, either the old state or the new one:
 * the text goes to a temporary file beside it, is flushed to the disk, and then renamed over the
 * file (an atomic replacement on POSIX file systems). Returns the digest of what it wrote.
 */
export function writeStateFile(path: string, fixture: Fixture, sync: StateSync = 'never'): string {
  const temporary = `${path}.${process.pid}.tmp`
  const text = `${JSON.stringify(toFixtureFile(fixture))}\n`
  const fd = openSync(temporary, 'w')
  try {
    writeSync(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(temporary, path)
  // A power loss must not keep the new log's truncation and lose the rename before it.
  if (sync === 'always') syncFolder(dirname(path))
  return digestOf(text)
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
  const flush = (): string | undefined => {
    const generation = app.store.generation()
    if (generation === written) return undefined
    try {
      const digest = writeStateFile(path, app.store.snapshot(), options.sync)
      log.restart(digest)
      written = generation
      return undefined
    } catch (error) {
      const reason = `state file ${path} not written: ${(error as Error).message}`
      app.log.error(reason)
      return reason
    }
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
  app.store.onCommit((record) => {
    if (record !== null) return log.append(JSON.stringify(record))
    // The whole data replaced (reset, fixture load, upload): a new snapshot stands for it.
    const failed = flush()
    if (failed === undefined) return
    // The log continues the old snapshot, which no longer holds: no write is acknowledged until a snapshot succeeds.
    log.close()
    throw new Error(failed)
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
