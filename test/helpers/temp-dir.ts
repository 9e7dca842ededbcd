/**
 * Temporary folders for tests, each removed when what made it ends, passed or failed: a test run
 * leaves nothing behind in the system's temporary folder.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, onTestFinished } from 'vitest'

const remove = (dir: string) => rmSync(dir, { recursive: true, force: true })

/** A new empty folder named `prefix` and six random characters, removed when the running test ends (after its afterEach hooks). Call it inside a test. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  onTestFinished(() => remove(dir))
  return dir
}

/**
 * A new empty folder that a file or a describe block shares between its tests (or fills in
 * beforeAll): call it at the top of the file or block; it is removed after the block's last test.
 */
export function sharedTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  afterAll(() => remove(dir))
  return dir
}
