/**
 * What package.json, the README and CI say about where the package runs and what it runs, held to
 * each other: the Node lines tested (scripts/node-lines.mjs) are the ones the README lists and
 * `engines` admits; CI runs them after the README's test command; nothing runs at install, and
 * every dev dependency with an install script has its decision in `allowScripts`.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import semver from 'semver'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../cli/processes.ts'

interface Manifest {
  engines: { node: string }
  scripts: Record<string, string>
  allowScripts?: Record<string, boolean>
  files: string[]
}

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Manifest
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
/** The lines `npm run test:node-lines` runs, read from the script itself (importing it runs nothing). */
const { LINES } = (await import(join(ROOT, 'scripts/node-lines.mjs') as string)) as { LINES: Array<{ line: number; run: 'suite' | 'package' }> }

describe('the Node lines', () => {
  it("tests 22, 24 and 26 beside the machine's 20, the whole suite on the newest", () => {
    expect(LINES.map(({ line }) => line)).toEqual([22, 24, 26])
    expect(LINES.at(-1)?.run).toBe('suite')
  })

  it('are the lines the README lists, with the command that tests them', () => {
    const paragraph = readme.slice(readme.indexOf('The Node lines tested are'), readme.indexOf('`npm ci` installs and builds nothing'))
    expect(paragraph).toContain('npm run test:node-lines')
    for (const line of [20, ...LINES.map((entry) => entry.line)]) expect(paragraph).toContain(`${line}`)
    expect(paragraph).toMatch(/20 \(the whole suite; past its end of life since\s+April 2026/)
  })

  it('are all admitted by engines, from the release where require() loads ES modules on each', () => {
    for (const line of [20, ...LINES.map((entry) => entry.line)]) expect(semver.satisfies(`${line}.99.0`, manifest.engines.node), `${line}`).toBe(true)
    expect(semver.satisfies(process.versions.node, manifest.engines.node)).toBe(true)
    // The README's require(): Node 20.19 and 22.12 on.
    expect(['20.18.9', '22.11.9'].filter((version) => semver.satisfies(version, manifest.engines.node))).toEqual([])
    expect(['20.19.0', '22.12.0', '23.0.0'].every((version) => semver.satisfies(version, manifest.engines.node))).toBe(true)
  })

  it("run in CI after the README's test command", () => {
    const ci = readFileSync(join(ROOT, '.ci/run'), 'utf8')
    expect(manifest.scripts['test:node-lines']).toBe('node scripts/node-lines.mjs')
    const test = ci.indexOf('part "npm test" npm test')
    expect(test).toBeGreaterThan(ci.indexOf('part "npm ci" npm ci'))
    expect(ci.indexOf('part "npm run test:node-lines" npm run test:node-lines')).toBeGreaterThan(test)
  })
})

describe('what runs at install', () => {
  it('nothing of the package: dist/ is built by prepack into the tarball, and by prestart in a checkout', () => {
    expect(Object.keys(manifest.scripts).filter((name) => ['preinstall', 'install', 'postinstall', 'prepare'].includes(name))).toEqual([])
    expect(manifest.scripts.prepack).toBe('npm run build')
    expect(manifest.scripts.prestart).toBe('node scripts/build-if-stale.mjs')
    expect(manifest.files).toEqual(expect.arrayContaining(['dist/', '!dist/.build-stamp']))
  })

  it('has a decision in allowScripts for every dependency with an install script, and none for another', () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { hasInstallScript?: boolean; dev?: boolean }>
    }
    const withScripts = Object.entries(lock.packages).filter(([, entry]) => entry.hasInstallScript === true)
    const names = [...new Set(withScripts.map(([key]) => key.slice(key.lastIndexOf('node_modules/') + 'node_modules/'.length)))].sort()
    expect(Object.keys(manifest.allowScripts ?? {}).sort()).toEqual(names)
    // Dev dependencies only: a team installing the package meets no install script of its tree.
    expect(withScripts.filter(([, entry]) => entry.dev !== true).map(([key]) => key)).toEqual([])
  })
})
