import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The folder of the installed package (it holds package.json, fixtures/ and spec/), found from
 * this module's own place, whether it runs from src/ through a TypeScript loader or compiled from
 * dist/src/. Files the package ships are looked up here, never in the user's current folder.
 */
function findRoot(start: string): string {
  let dir = start
  for (let depth = 0; depth < 8; depth++) {
    const manifest = join(dir, 'package.json')
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'appdata-kit') return dir
    const parent = dirname(dir)
    if (parent === dir) break
    dir = parent
  }
  throw new Error(`appdata-kit: no package.json of appdata-kit above ${start}`)
}

export const PACKAGE_ROOT = findRoot(dirname(fileURLToPath(import.meta.url)))

/** A file the package ships, by its path inside the package (`fixtures/default.json`). */
export function packageFile(path: string): string {
  return join(PACKAGE_ROOT, path)
}

/** The package's version, for `--version` and the listening line. */
export const PACKAGE_VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version
