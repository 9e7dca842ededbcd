/**
 * `npm run test:fast` is the inner loop: it must start no process and no browser, so that it stays
 * quick and runs anywhere (vitest.config.ts, the `fast` tier). Every test file is in exactly one
 * tier, and `npm test` runs both.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { MEASURED, SLOW_TIER, slowInclude } from '../../vitest.config.ts'

const ROOT = new URL('../../', import.meta.url).pathname

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return testFiles(path)
    return name.endsWith('.test.ts') ? [relative(ROOT, path)] : []
  })
}

/** Whether a glob of the slow tier (`test/cli/**`, or a file) takes a path. */
const takes = (glob: string, path: string): boolean => (glob.endsWith('/**') ? path.startsWith(glob.slice(0, -2)) : path === glob)

/** What starts a process, a browser or npm from a test. */
const STARTS = /\b(startProcess|runToEnd|spawn|spawnSync|execFile|execFileSync|fork|launchChromium)\(/

describe('the test tiers', () => {
  const all = testFiles(join(ROOT, 'test'))
  const slow = all.filter((path) => SLOW_TIER.some((glob) => takes(glob, path)))
  const fast = all.filter((path) => !slow.includes(path) && !MEASURED.includes(path))

  it("keep every file of the slow tier's list in the repository", () => {
    for (const glob of SLOW_TIER)
      expect(
        all.some((path) => takes(glob, path)),
        glob,
      ).toBe(true)
  })

  it("name only test files in the slow tier's include, never a folder's helpers", () => {
    const included = slowInclude(SLOW_TIER)
    for (const glob of included) expect(glob).toMatch(/\.test\.ts$/)
    expect(included).toContain('test/cli/**/*.test.ts')
  })

  it('run every measuring file (an event loop monitor, a growth ratio) apart, and list only files that measure', () => {
    const measuring = all.filter(
      (path) => path !== 'test/internals/tiers.test.ts' && /monitorEventLoopDelay|GROWTH|medianOfThree\(/.test(readFileSync(join(ROOT, path), 'utf8')),
    )
    expect(measuring.filter((path) => !MEASURED.includes(path))).toEqual([])
    expect(MEASURED.filter((path) => !measuring.includes(path))).toEqual([])
  })

  it('start no process and no browser in the fast tier', () => {
    expect(fast.filter((path) => STARTS.test(readFileSync(join(ROOT, path), 'utf8')))).toEqual([])
    expect(fast.length).toBeGreaterThan(slow.length)
  })
})
