/**
 * The change log beside a snapshot (FILE.log): its first line names the snapshot it continues
 * (`{"base":"<the snapshot's id>"}`), then one JSON line per acknowledged change, appended in the
 * turn the change is made and before it is answered.
 */
import { closeSync, constants, existsSync, fdatasyncSync, ftruncateSync, openSync, readdirSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'

import type { StateSync } from './sync-modes.ts'

/** Removes a file this folder wrote, if it is there: never a folder, and never an error (it is a clean-up). */
export function removeFile(path: string): void {
  try {
    unlinkSync(path)
  } catch {
    // Gone already, or not a file of ours (a folder in its place): nothing to take back.
  }
}

/** Where the change log of a state file is. */
export function changeLogPath(path: string): string {
  return `${path}.log`
}

/**
 * A change log open for appending. A failed append is cut off again (the file keeps only whole
 * lines) and throws, so the change is not applied.
 */
export class ChangeLog {
  /** Where the file is now: FILE.log, or the temporary name it was made under until it is moved there. */
  path: string
  readonly base: string
  readonly #sync: StateSync
  #fd: number | undefined
  #size = 0

  private constructor(path: string, base: string, sync: StateSync, fd: number, size: number) {
    this.path = path
    this.base = base
    this.#sync = sync
    this.#fd = fd
    this.#size = size
  }

  /** A new log at `path` (emptied if it was there) continuing the snapshot `base`: its first line written (and flushed with `always`). Throws, leaving no file, when it cannot be. */
  static create(path: string, base: string, sync: StateSync): ChangeLog {
    const fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_APPEND)
    try {
      const header = `${JSON.stringify({ base })}\n`
      if (writeSync(fd, header) !== Buffer.byteLength(header)) throw new Error(`change log ${path}: its first line not written whole`)
      if (sync === 'always') fdatasyncSync(fd)
      return new ChangeLog(path, base, sync, fd, Buffer.byteLength(header))
    } catch (error) {
      closeSync(fd)
      removeFile(path)
      throw error
    }
  }

  get open(): boolean {
    return this.#fd !== undefined
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

  /** Renames the file (it stays open); throws when that fails, the file where it was. */
  moveTo(path: string): void {
    renameSync(this.path, path)
    this.path = path
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd)
    this.#fd = undefined
  }

  /** Closes and removes it: a log made for a snapshot that was not put in place. */
  discard(): void {
    this.close()
    removeFile(this.path)
  }
}

/** The lines a log holds after its first, as bytes; whether the last was cut short (no newline after it). */
export interface LogLines {
  path: string
  lines: Buffer[]
  torn: boolean
}

/** Temporary log files beside `log` (FILE.log.<pid>.tmp and the like): logs of snapshots a stop cut short. */
function temporaryLogs(log: string): string[] {
  const dir = dirname(log)
  const prefix = `${basename(log)}.`
  if (!existsSync(dir)) return []
  return readdirSync(dir)
    .filter((name) => name.startsWith(prefix) && name.endsWith('.tmp'))
    .map((name) => join(dir, name))
}

/** The first line of a log as its header's base, when it has one. */
function baseOf(bytes: Buffer): string | undefined {
  const end = bytes.indexOf(0x0a)
  try {
    const header = JSON.parse(bytes.toString('utf8', 0, end < 0 ? bytes.length : end)) as { base?: unknown }
    return typeof header?.base === 'string' ? header.base : undefined
  } catch {
    return undefined
  }
}

/**
 * The log that continues the snapshot `base`, and no other: FILE.log, or a temporary log when a
 * stop came between putting a snapshot in place and moving its log there. Every other log beside
 * it is of an older snapshot, all in this one already: the temporary ones are removed.
 */
export function readChangeLog(snapshot: string, base: string): LogLines | undefined {
  const log = changeLogPath(snapshot)
  let found: LogLines | undefined
  for (const path of [...(existsSync(log) ? [log] : []), ...temporaryLogs(log)]) {
    const bytes = readFileSync(path)
    if (found === undefined && baseOf(bytes) === base) found = { path, ...linesOf(bytes) }
    else if (path !== log) removeFile(path)
  }
  return found
}

/** Removes the temporary logs beside a state file that has no snapshot yet. */
export function removeTemporaryLogs(snapshot: string): void {
  for (const path of temporaryLogs(changeLogPath(snapshot))) removeFile(path)
}

function linesOf(bytes: Buffer): { lines: Buffer[]; torn: boolean } {
  const lines: Buffer[] = []
  let start = bytes.indexOf(0x0a) + 1
  if (start === 0) return { lines, torn: false }
  while (start < bytes.length) {
    const end = bytes.indexOf(0x0a, start)
    if (end < 0) {
      // After the last newline: the part of a line a crash cut.
      lines.push(bytes.subarray(start))
      return { lines, torn: true }
    }
    lines.push(bytes.subarray(start, end))
    start = end + 1
  }
  return { lines, torn: false }
}
