/**
 * `npm run build` beside a running test suite: `npx appdata-kit` inside the checkout installs it as a
 * `file:` package and runs `prepare` (the build) again while tests load the mock and the command
 * line from dist/. The build compiles into a folder of its own and puts it in dist/'s place at the
 * end, so the files a suite loads are there all along (the build once began by deleting dist/).
 */
import { spawn } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../cli/processes.ts'

/** Files a running suite loads from dist/: the package's entry and the bundled command line. */
const LOADED = ['dist/src/index.js', 'dist/src/mock/server.js', 'dist/bin/main.mjs'].map((file) => join(ROOT, file))

describe('npm run build', () => {
  it('keeps dist/ whole while it runs, and leaves no folder of its own behind', async () => {
    for (const file of LOADED) expect(existsSync(file), file).toBe(true)
    const build = spawn('npm', ['run', 'build'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
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
    expect(readdirSync(ROOT).filter((name) => name.startsWith('.dist-'))).toEqual([])
  }, 240_000)
})
