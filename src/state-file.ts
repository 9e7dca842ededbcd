import { closeSync, existsSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, writeSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import { toFixtureFile } from './fixtures/export.ts'
import { loadFixture } from './fixtures/load.ts'
import type { Fixture } from './store/types.ts'
import { ConfigError } from './config.ts'

/**
 * The fixture a mock with `--state-file` starts from: the file when it exists (checked as any
 * fixture is), else undefined. Temporary files an interrupted write left beside it are removed.
 */
export function readStateFile(path: string, timeZone?: string): Fixture | undefined {
  const dir = dirname(path)
  const prefix = `${basename(path)}.`
  if (existsSync(dir)) for (const name of readdirSync(dir)) if (name.startsWith(prefix) && name.endsWith('.tmp')) rmSync(join(dir, name), { force: true })
  return existsSync(path) ? loadFixture(path, timeZone === undefined ? {} : { timeZone }) : undefined
}

/**
 * Writes the fixture so that the file is, at every moment, either the old state or the new one:
 * the text goes to a temporary file beside it, is flushed to the disk, and then renamed over the
 * file (an atomic replacement on POSIX file systems).
 */
export function writeStateFile(path: string, fixture: Fixture): void {
  const temporary = `${path}.${process.pid}.tmp`
  const fd = openSync(temporary, 'w')
  try {
    writeSync(fd, `${JSON.stringify(toFixtureFile(fixture))}\n`)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(temporary, path)
}

/** A mock's state file kept current: written every interval when the data changed, and once more at `flush()`. */
export interface StateKeeper {
  /** Writes now if the data changed since the last write; the reason when the write failed. */
  flush(): string | undefined
  stop(): void
}

/**
 * Keeps `path` in step with the app's store: every `intervalSeconds` it writes the data when a
 * write happened since the last time (nothing is written for a mock nobody changes). A failed
 * write is logged and tried again at the next interval; the previous file stays as it was.
 */
export function keepStateFile(app: FastifyInstance, path: string, intervalSeconds: number): StateKeeper {
  // Written once at start when it is new, so a path the mock cannot write stops it now, not at the first save.
  let written = existsSync(path) ? app.store.generation() : Number.NaN
  const flush = (): string | undefined => {
    const generation = app.store.generation()
    if (generation === written) return undefined
    try {
      writeStateFile(path, app.store.snapshot())
      written = generation
      return undefined
    } catch (error) {
      const reason = `state file ${path} not written: ${(error as Error).message}`
      app.log.error(reason)
      return reason
    }
  }
  const failed = flush()
  if (failed !== undefined) throw new ConfigError(`--state-file: ${failed}`)
  const timer = setInterval(flush, intervalSeconds * 1000)
  timer.unref()
  return { flush, stop: () => clearInterval(timer) }
}
