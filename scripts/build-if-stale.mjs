// `prestart` (and `npm run test:node-lines`; `--check` only tells): builds dist/ (scripts/build.mjs) in a checkout when
// it is missing or older than what it is built from, and does nothing else. It runs before every
// `npm start`, so the check reads file times only: some 350 files, a few milliseconds. The package
// needs none of it: `prepack` builds dist/ into the tarball, and an install runs no script.
//
// "Older" is by the stamp scripts/build.mjs leaves in dist/ (dated when that build began): any
// source, configuration or lock file written since then makes the build run again, as after
// `git pull` or an edit.
import { execFileSync } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

/** What dist/ is built from: the trees tsconfig.build.json includes, the build's scripts and configuration, the dependencies' lock. */
export const BUILD_INPUTS = [
  'src',
  'spec',
  'contracts',
  'scripts/build.mjs',
  'scripts/bundle-bin.mjs',
  'tsconfig.json',
  'tsconfig.build.json',
  'package.json',
  'package-lock.json',
]

/** The stamp a build leaves in dist/, dated when it began; not in the package (package.json's files). */
export const STAMP = join('dist', '.build-stamp')

/** The newest modification time (ms) under a file or folder; 0 when it does not exist. */
function newest(path) {
  let stat
  try {
    stat = statSync(path)
  } catch {
    return 0
  }
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = stat.mtimeMs
  for (const name of readdirSync(path)) latest = Math.max(latest, newest(join(path, name)))
  return latest
}

/** Why dist/ must be built again, or undefined when it is current. */
export function staleness(dir = root) {
  let built
  try {
    built = statSync(join(dir, STAMP)).mtimeMs
  } catch {
    return 'dist/ is missing or was not built by scripts/build.mjs'
  }
  const changed = BUILD_INPUTS.find((input) => newest(join(dir, input)) > built)
  return changed === undefined ? undefined : `${changed} changed since dist/ was built`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const reason = staleness()
  // `--check`: only say whether a build is due (exit 1 and why) or not (exit 0), building nothing.
  if (process.argv.includes('--check')) {
    if (reason !== undefined) process.stdout.write(`${reason}\n`)
    process.exit(reason === undefined ? 0 : 1)
  }
  if (reason !== undefined) {
    process.stderr.write(`appdata-kit: building dist/ (${reason})\n`)
    try {
      execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' })
    } catch {
      // The compiler or the bundler has said why.
      process.exit(1)
    }
  }
}
