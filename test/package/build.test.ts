/**
 * `npm run build` beside a running test suite: `npx appdata-kit` inside the checkout installs it as a
 * `file:` package and runs `prepare` (the build) again while tests load the mock and the command
 * line from dist/. The build compiles into a folder of its own and puts it in dist/'s place at the
 * end, so the files a suite loads are there all along (the build once began by deleting dist/).
 */
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT } from '../cli/processes.ts'

/**
 * The build runs in a copy of what it reads (sources, configuration, scripts; node_modules linked),
 * never in this checkout: the suite's other files load dist/ while this one runs.
 */
const COPY = mkdtempSync(join(tmpdir(), 'appdata-kit-build-'))
for (const name of ['package.json', 'tsconfig.json', 'tsconfig.build.json', 'scripts', 'src', 'spec', 'contracts', 'fixtures']) cpSync(join(ROOT, name), join(COPY, name), { recursive: true })
symlinkSync(join(ROOT, 'node_modules'), join(COPY, 'node_modules'), 'dir')

/** Files a running suite loads from dist/: the package's entry and the bundled command line. */
const LOADED = ['dist/src/index.js', 'dist/src/mock/server.js', 'dist/bin/main.mjs'].map((file) => join(COPY, file))
// A dist/ from an earlier build, which the new one must replace without ever leaving these missing.
for (const file of LOADED) {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, '// an earlier build\n')
}

describe('npm run build', () => {
  afterAll(() => rmSync(COPY, { recursive: true, force: true }))

  it('keeps dist/ whole while it runs, and leaves no folder of its own behind', async () => {
    for (const file of LOADED) expect(existsSync(file), file).toBe(true)
    const build = spawn('npm', ['run', 'build'], { cwd: COPY, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    build.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    build.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    const exited = new Promise<number | null>((resolve) => build.on('exit', resolve))
    let done = false
    void exited.then(() => (done = true))
    const missing = new Set<string>()
    let looks = 0
    // Looked at every few milliseconds for as long as the build runs (tens of seconds of compiling).
    while (!done) {
      for (const file of LOADED) if (!existsSync(file)) missing.add(file)
      looks++
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
    expect(await exited, output).toBe(0)
    expect(looks).toBeGreaterThan(10)
    expect([...missing]).toEqual([])
    for (const file of LOADED) expect(existsSync(file), file).toBe(true)
    // The earlier build's files were replaced by the new build's.
    expect(readdirSync(join(COPY, 'dist', 'bin')).length).toBeGreaterThan(3)
    expect(readdirSync(COPY).filter((name) => name.startsWith('.dist-'))).toEqual([])
  }, 240_000)
})
