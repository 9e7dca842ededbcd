/**
 * `--state-file`: the store's data kept on disk as a snapshot (FILE, the data by column: see
 * snapshot-format.ts) and a change log beside it (FILE.log). The store hands over every
 * acknowledged change as a record, appended to the log before the change is answered, and the
 * whole data a reset or fixture load puts in place, written as a new snapshot before it takes
 * effect. Every `--state-interval` the snapshot is written again, a slice at a time while the mock
 * serves, and the log starts again after it.
 */
import { randomUUID } from 'node:crypto'
import { closeSync, copyFileSync, fsyncSync, openSync, renameSync } from 'node:fs'
import { dirname } from 'node:path'
import { ConfigError } from '../cli-base/exit.ts'
import { ProblemError } from '../errors.ts'
import type { DataImage } from '../store/image.ts'
import type { DataKeeper, PreparedReplace, Store } from '../store/store.ts'
import type { ChangeRecord, Fixture } from '../store/model/types.ts'
import { ChangeLog, changeLogPath, removeFile, type LogLines } from './change-log.ts'
import type { StateSync } from './sync-modes.ts'
import { fixtureOfSnapshot, type RestoredState } from './restore.ts'
import { SnapshotFile } from './snapshot-format.ts'
import { TemporaryNames, WriteCancelled, writeSnapshotInSlices, writeSnapshotSync } from './snapshot-write.ts'

/** Where the keeper says what it did: the mock's log. */
export interface StateLog {
  info(message: string): void
  warn(message: string): void
  error(message: string): void
}

/** How keepState keeps the file: the mock's `--state-interval`, `--state-sync` and `--time-zone`, what it started from, where it logs. */
export interface KeepOptions {
  intervalSeconds: number
  sync: StateSync
  /** The state file the mock started from (readState); undefined when it started from a fixture. */
  restored: RestoredState | undefined
  /** `--time-zone`, for the data the mock starts with when the keeper wrote it anew. */
  timeZone?: string
  log: StateLog
  /** A turn of the event loop between two slices of a snapshot. */
  pause: () => Promise<void>
  /** How long a slice of a snapshot holds the loop, ms (default 8). */
  sliceMs?: number
}

/** A mock's state file kept current (keepState). */
export interface StateKeeper {
  /**
   * What a reset returns to, when the keeper wrote it anew at start (a state file whose log had
   * changes, or one of an earlier version): the data the mock started with, read from the new
   * snapshot. Undefined when that is the data the store was built from.
   */
  readonly startFixture: Fixture | undefined
  /** Writes the snapshot now, all at once, if the data changed since the last one; the reason when it failed. */
  flush(): string | undefined
  /** Writes the snapshot now, in slices, as the interval does, if the data changed since the last one (a failure is logged). */
  compact(): Promise<void>
  /** Stops: the timer, a snapshot being written, a last flush, the files closed; the reason when the flush failed. */
  stop(): string | undefined
}

/** A snapshot written out and not yet put in place, with the log that will continue it. */
interface Written {
  temporary: string
  log: ChangeLog
}

/** A snapshot of the interval being written: its log takes every record too, until it is put in place or given up. */
interface Pending {
  log: ChangeLog
  failed?: string
  cancelled: boolean
}

const notWritten = (what: string, reason: string) =>
  new ProblemError('STATE_NOT_WRITTEN', `Nothing changed: ${what} could not be written to the state file (${reason}).`)

class Keeper implements DataKeeper {
  readonly path: string
  readonly logPath: string
  readonly #store: Store
  readonly #options: KeepOptions
  readonly #names = new TemporaryNames()
  log: ChangeLog | undefined
  #pending: Pending | undefined
  /** Resets and fixture loads being written: no snapshot of the interval begins meanwhile. */
  #preparing = 0
  /** The store's generation the files hold (NaN: unknown, write at the next chance). */
  written = Number.NaN
  /** One more each time a snapshot is put in place: a snapshot begun before is given up. */
  #era = 0
  stopped = false

  constructor(store: Store, path: string, options: KeepOptions) {
    this.#store = store
    this.path = path
    this.logPath = changeLogPath(path)
    this.#options = options
  }

  record(record: ChangeRecord): void {
    const line = JSON.stringify(record)
    try {
      if (this.log === undefined) throw new Error(`change log ${this.logPath} is not open (see the error logged before)`)
      this.log.append(line)
    } catch (error) {
      // The control plane's changes say the disk failed (507); the API's fail as a server error does.
      if ('u' in record) throw notWritten('the upload', (error as Error).message)
      if ('l' in record) throw notWritten('the lock change', (error as Error).message)
      throw error
    }
    const pending = this.#pending
    if (pending !== undefined && pending.failed === undefined) {
      try {
        pending.log.append(line)
      } catch (error) {
        // The change is in the log in use; only the snapshot being written is given up.
        pending.failed = (error as Error).message
      }
    }
  }

  replace(next: DataImage): void {
    this.#cancelPending()
    let written: Written
    try {
      written = this.#writeNow(next, randomUUID())
    } catch (error) {
      throw notWritten('the data', `state file ${this.path} not written: ${(error as Error).message}`)
    }
    this.#commitOrRefuse(written)
  }

  async prepareReplace(next: DataImage, pause: () => Promise<void>): Promise<PreparedReplace> {
    this.#cancelPending()
    this.#preparing++
    const id = randomUUID()
    const temporary = this.#names.take(this.path)
    let log: ChangeLog
    try {
      await writeSnapshotInSlices(temporary, next, id, { sliceMs: this.#options.sliceMs ?? 8, pause, cancelled: () => this.stopped })
      log = this.#newLog(id)
    } catch (error) {
      removeFile(temporary)
      this.#names.release(temporary)
      this.#preparing--
      throw notWritten('the data', `state file ${this.path} not written: ${(error as Error).message}`)
    }
    let settled = false
    return {
      commit: () => {
        if (settled) return
        settled = true
        this.#preparing--
        this.#commitOrRefuse({ temporary, log })
      },
      discard: () => {
        if (settled) return
        settled = true
        this.#preparing--
        this.#discard({ temporary, log })
      },
    }
  }

  /** A reset's or fixture load's snapshot put in place, or refused (507) with nothing changed. */
  #commitOrRefuse(written: Written): void {
    try {
      this.#commit(written)
    } catch (error) {
      throw notWritten('the data', `state file ${this.path} not written: ${(error as Error).message}`)
    }
    // The store puts the data in place at its next generation, in this same turn.
    this.written = this.#store.generation() + 1
  }

  /** Writes the snapshot all at once if the data changed since the last one; the reason when it failed. */
  flush(): string | undefined {
    const generation = this.#store.generation()
    if (generation === this.written) return undefined
    this.#cancelPending()
    const image = this.#store.image()
    try {
      this.#commit(this.#writeNow(image, randomUUID()))
      this.written = generation
      return undefined
    } catch (error) {
      const reason = `state file ${this.path} not written: ${(error as Error).message}`
      this.#options.log.error(reason)
      return reason
    } finally {
      image.close()
    }
  }

  /**
   * The interval's snapshot, when the data changed since the last one: written a slice at a time
   * while the mock serves, the changes meanwhile logged twice (to the log in use and to the new
   * one), then put in place in one step. Any failure leaves the old snapshot and its log in use,
   * to be tried again at the next interval.
   */
  async compact(): Promise<void> {
    if (this.#pending !== undefined || this.#preparing > 0 || this.stopped || this.log === undefined) return
    const generation = this.#store.generation()
    if (generation === this.written) return
    const era = this.#era
    const id = randomUUID()
    // The image and the new log's start are one moment: no change can come between them.
    const image = this.#store.image()
    let pending: Pending | undefined
    let temporary: string | undefined
    try {
      pending = { log: this.#newLog(id), cancelled: false }
      this.#pending = pending
      temporary = this.#names.take(this.path)
      const watched = pending
      await writeSnapshotInSlices(temporary, image, id, {
        sliceMs: this.#options.sliceMs ?? 8,
        pause: this.#options.pause,
        cancelled: () => watched.cancelled || this.stopped,
      })
      if (pending.cancelled || this.stopped || era !== this.#era) throw new WriteCancelled()
      if (pending.failed !== undefined) throw new Error(`change log ${pending.log.path} not written: ${pending.failed}`)
      this.#pending = undefined
      this.#commit({ temporary, log: pending.log })
      this.written = generation
    } catch (error) {
      if (this.#pending === pending) this.#pending = undefined
      if (pending !== undefined) {
        pending.log.discard()
        this.#names.release(pending.log.path)
      }
      if (temporary !== undefined) {
        removeFile(temporary)
        this.#names.release(temporary)
      }
      if (!(error instanceof WriteCancelled)) {
        this.#options.log.error(
          `state file ${this.path} not written: ${(error as Error).message}; the previous snapshot and its log stay in use, tried again in ${this.#options.intervalSeconds} s`,
        )
      }
    } finally {
      image.close()
    }
  }

  /** A snapshot in a temporary file and the new log that will continue it, written all at once; throws, leaving neither, when they cannot be. */
  #writeNow(image: DataImage, id: string): Written {
    const temporary = this.#names.take(this.path)
    try {
      writeSnapshotSync(temporary, image, id)
      return { temporary, log: this.#newLog(id) }
    } catch (error) {
      removeFile(temporary)
      this.#names.release(temporary)
      throw error
    }
  }

  #newLog(id: string): ChangeLog {
    const path = this.#names.take(this.logPath)
    try {
      return ChangeLog.create(path, id, this.#options.sync)
    } catch (error) {
      this.#names.release(path)
      throw error
    }
  }

  #discard(written: Written): void {
    removeFile(written.temporary)
    this.#names.release(written.temporary)
    written.log.discard()
    this.#names.release(written.log.path)
  }

  /**
   * Puts a written snapshot in place: renamed over FILE (the one step that changes the state; when
   * it fails, nothing changed and the error is thrown), then its log renamed over FILE.log. A log
   * that cannot be moved stays in use where it is: the start finds it by its first line.
   */
  #commit(written: Written): void {
    try {
      renameSync(written.temporary, this.path)
    } catch (error) {
      this.#discard(written)
      throw error
    }
    this.#names.release(written.temporary)
    this.#era++
    this.#cancelPending()
    const old = this.log
    this.log = written.log
    old?.close()
    try {
      // A power loss must not keep the new log and lose the rename before it.
      if (this.#options.sync === 'always') syncFolder(dirname(this.path))
      const from = written.log.path
      written.log.moveTo(this.logPath)
      this.#names.release(from)
    } catch (error) {
      this.#options.log.error(
        `change log ${written.log.path} not moved to ${this.logPath} (${(error as Error).message}): it stays in use where it is, and the next start reads it there`,
      )
    }
  }

  /** Gives up the interval's snapshot being written, if any: its log takes no more records. */
  #cancelPending(): void {
    if (this.#pending === undefined) return
    this.#pending.cancelled = true
    this.#pending = undefined
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
 * Applies the log's lines to the store. A last line that is not a whole change (cut short by a
 * crash, so never answered) is ignored with a warning; an unreadable line before the last stops
 * the replay there, with a warning and a copy of the log kept beside it.
 */
function replayLines(store: Store, log: LogLines): { replayed: number; warning?: string } {
  let replayed = 0
  const { lines, path, torn } = log
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
      return {
        replayed,
        warning: `change log ${path}: last line ignored (${failure}; ${torn ? 'a write cut short by a crash, ' : ''}never answered): ${replayed} changes replayed`,
      }
    }
    const kept = `${path}.corrupt-${Date.now()}`
    copyFileSync(path, kept)
    return {
      replayed,
      warning: `change log ${path}: line ${i + 2} unreadable (${failure}); ${replayed} changes replayed, the ${lines.length - i - 1} lines after it ignored; the log is kept as ${kept}`,
    }
  }
  return { replayed }
}

function parseLine(line: Buffer): unknown {
  try {
    const value: unknown = JSON.parse(line.toString('utf8'))
    return typeof value === 'object' && value !== null ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * Keeps `path` in step with the store (built from readState's data when the file exists): replays
 * the change log the file has, writes the snapshot anew when the start changed anything (a replay,
 * an earlier version's JSON file, no file yet: so a path the mock cannot write stops the start),
 * then keeps every acknowledged change and writes a snapshot every `intervalSeconds` when the data
 * changed. Call before the mock listens. Throws ConfigError when the file cannot be written at start.
 */
export function keepState(store: Store, path: string, options: KeepOptions): StateKeeper {
  const keeper = new Keeper(store, path, options)
  const restored = options.restored
  const opened: SnapshotFile[] = restored?.snapshot === undefined ? [] : [restored.snapshot]
  let startFixture: Fixture | undefined
  const closeFiles = (): void => {
    for (const file of opened.splice(0)) file.close()
  }
  try {
    let replayed = 0
    if (restored?.log !== undefined) {
      const replay = replayLines(store, restored.log)
      replayed = replay.replayed
      if (replay.warning !== undefined) options.log.warn(replay.warning)
      if (replayed > 0) options.log.info(`${replayed} changes replayed from ${restored.log.path}`)
    }
    if (restored?.snapshot !== undefined && replayed === 0) {
      // The snapshot is the state: its log starts again after it (where a stop left it: moved there).
      keeper.log = ChangeLog.create(keeper.logPath, restored.snapshot.header.id, options.sync)
      if (restored.log !== undefined && restored.log.path !== keeper.logPath) removeFile(restored.log.path)
      keeper.written = store.generation()
    } else {
      const failed = keeper.flush()
      if (failed !== undefined) throw new ConfigError(`--state-file: ${failed}`)
      // A log a stop left under its temporary name is in the new snapshot now.
      if (restored?.log !== undefined && restored.log.path !== keeper.logPath) removeFile(restored.log.path)
      if (restored !== undefined) {
        if (restored.converting)
          options.log.warn(
            `state file ${path}: a JSON state file of an earlier version, converted to a snapshot by column (the format of this version; earlier versions cannot read it)`,
          )
        // What a reset returns to: the data the mock starts with, read from the snapshot just written.
        const snapshot = SnapshotFile.open(path)
        opened.push(snapshot)
        startFixture = fixtureOfSnapshot(snapshot, options.timeZone)
      }
    }
  } catch (error) {
    keeper.log?.close()
    closeFiles()
    throw error instanceof ConfigError ? error : new ConfigError(`--state-file: change log ${keeper.logPath} cannot be written: ${(error as Error).message}`)
  }
  store.keep(keeper)
  const timer = setInterval(() => void keeper.compact(), options.intervalSeconds * 1000)
  timer.unref()
  return {
    startFixture,
    flush: () => keeper.flush(),
    compact: () => keeper.compact(),
    stop() {
      clearInterval(timer)
      keeper.stopped = true
      const failed = keeper.flush()
      store.keep(undefined)
      keeper.log?.close()
      closeFiles()
      return failed
    },
  }
}
