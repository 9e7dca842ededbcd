// `npm run build` (and `prepack`, and `prestart` when dist/ is stale): compiles into a folder of
// its own beside dist/ and only then puts it in dist/'s place, so dist/ is never empty nor half
// written. A test suite running from dist/ keeps finding every file while a build runs beside it
// (a `prestart` or `npm run build` in the same checkout); the build once began by deleting dist/.
// The folder is on the same file system as dist/, so the swap is two renames.
import { execFileSync } from 'node:child_process'
import { existsSync, renameSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'

const root = fileURLToPath(new URL('..', import.meta.url))
const dist = join(root, 'dist')
// Named per process, so two builds at once never write into each other's folder;
// `.dist-*` is neither in the package's files nor in tsconfig's include.
const building = join(root, `.dist-building-${process.pid}`)
const previous = join(root, `.dist-previous-${process.pid}`)

// Dated when the build began, so a source written while it ran counts as newer (scripts/build-if-stale.mjs).
const began = new Date()
rmSync(building, { recursive: true, force: true })
try {
  execFileSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.build.json'), '--outDir', building], {
    cwd: root,
    stdio: 'inherit',
  })
  execFileSync(process.execPath, [join(root, 'scripts/bundle-bin.mjs'), building], { cwd: root, stdio: 'inherit' })
} catch {
  // A failed build leaves dist/ as it was (the compiler or the bundler has said why).
  rmSync(building, { recursive: true, force: true })
  process.exit(1)
}
const stamp = join(building, '.build-stamp')
writeFileSync(stamp, `built by scripts/build.mjs from the sources as they were at ${began.toISOString()}\n`)
utimesSync(stamp, began, began)
// The old dist/ moves aside and the new one takes its name at once; then the old one goes.
if (existsSync(dist)) renameSync(dist, previous)
renameSync(building, dist)
rmSync(previous, { recursive: true, force: true })
