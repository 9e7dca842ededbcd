/**
 * The build in a checkout: `npm start` builds dist/ first when it is missing or older than its
 * sources (`prestart`, scripts/build-if-stale.mjs), and only then, since the package is published
 * without `prepare` and `npm ci` builds nothing. The build compiles into a folder of its own and
 * puts it in dist/'s place at the end, so the files a running suite loads from dist/ are there all
 * along while a build runs beside it (the build once began by deleting dist/).
 */
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT, runToEnd } from '../cli/processes.ts'

/**
 * The build runs in a copy of what it reads (sources, configuration, scripts, the fixture; node_modules linked),
 * never in this checkout: the suite's other files load dist/ while this one runs.
 */
const COPY = mkdtempSync(join(tmpdir(), 'appdata-kit-build-'))
for (const name of ['package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts', 'src', 'spec', 'contracts', 'fixtures', 'console'])
  cpSync(join(ROOT, name), join(COPY, name), { recursive: true })
symlinkSync(join(ROOT, 'node_modules'), join(COPY, 'node_modules'), 'dir')

/** Files a running suite loads from dist/: the package's entry and the bundled command line. */
const LOADED = ['dist/src/index.js', 'dist/src/mock/server.js', 'dist/bin/main.mjs'].map((file) => join(COPY, file))
// A dist/ from an earlier build (no stamp of scripts/build.mjs), which the new one must replace without ever leaving these missing.
for (const file of LOADED) {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, '// an earlier build\n')
}

/** `node scripts/build-if-stale.mjs --check` in the copy: why a build is due, or undefined. */
async function due(): Promise<string | undefined> {
  const run = await runToEnd(process.execPath, ['scripts/build-if-stale.mjs', '--check'], { cwd: COPY })
  expect([0, 1], run.stderr).toContain(run.code)
  return run.code === 0 ? undefined : run.stdout.trim()
}

describe('npm start in a checkout', () => {
  let stopped: Promise<number | null> | undefined
  afterAll(async () => {
    await stopped
    rmSync(COPY, { recursive: true, force: true })
  })

  it('builds a dist/ its build did not stamp, keeping dist/ whole meanwhile, then listens on the new build', async () => {
    expect(await due()).toBe('dist/ is missing or was not built by scripts/build.mjs')
    for (const file of LOADED) expect(existsSync(file), file).toBe(true)
    const start = spawn('npm', ['start', '--', '--port', '0'], { cwd: COPY, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    let listening = false
    start.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      listening ||= /listening on http:\/\/127\.0\.0\.1:\d+/.test(output)
    })
    start.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    stopped = new Promise<number | null>((resolve) => start.on('exit', resolve))
    let exited = false
    void stopped.then(() => (exited = true))
    const missing = new Set<string>()
    let looks = 0
    // Looked at every few milliseconds while it builds (tens of seconds of compiling), until it listens or ends.
    while (!listening && !exited) {
      for (const file of LOADED) if (!existsSync(file)) missing.add(file)
      looks++
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    expect(listening, output).toBe(true)
    process.kill(start.pid as number, 'SIGTERM')
    expect(await stopped, output).toBe(0)
    expect(output).toContain('appdata-kit: building dist/ (dist/ is missing or was not built by scripts/build.mjs)')
    expect(looks).toBeGreaterThan(10)
    expect([...missing]).toEqual([])
    // The earlier build's files were replaced by the new build's, which the server ran.
    expect(readFileSync(join(COPY, 'dist/src/mock/server.js'), 'utf8')).not.toBe('// an earlier build\n')
    expect(readdirSync(join(COPY, 'dist', 'bin')).length).toBeGreaterThan(3)
    expect(readdirSync(COPY).filter((name) => name.startsWith('.dist-'))).toEqual([])
  }, 300_000)

  it('builds nothing while dist/ is current, and again once a source, the configuration or the lock is newer', async () => {
    expect(await due()).toBeUndefined()
    const stamp = statSync(join(COPY, 'dist/.build-stamp')).mtime
    const later = new Date(stamp.getTime() + 2000)
    for (const [input, reason] of [
      ['src/errors.ts', 'src'],
      ['spec/openapi.json', 'spec'],
      ['tsconfig.build.json', 'tsconfig.build.json'],
      ['package-lock.json', 'package-lock.json'],
    ] as const) {
      const path = join(COPY, input)
      const before = statSync(path).mtime
      utimesSync(path, later, later)
      expect(await due(), input).toBe(`${reason} changed since dist/ was built`)
      utimesSync(path, before, before)
      expect(await due(), input).toBeUndefined()
    }
    // A file added to the sources changes its folder.
    writeFileSync(join(COPY, 'src/new-module.ts'), 'export {}\n')
    utimesSync(join(COPY, 'src'), later, later)
    expect(await due()).toBe('src changed since dist/ was built')
  })
})
