/**
 * docs/tests.md's counts and times are written by `npm run test:figures` from a run
 * (scripts/test-figures.ts); its text and its one rule, that the number of tests may not fall without
 * a reason, are held here. The page itself must carry a section the script wrote.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { figuresSection, previousCount, refusal, replaceSection, type Figures } from '../../scripts/test-figures-text.ts'

const figures: Figures = {
  date: '2026-11-29',
  cores: 2,
  node: 'v20.20.2',
  load: 0.4,
  fastSeconds: 95,
  wholeSeconds: 290,
  tests: 12,
  files: [
    { path: 'test/a.test.ts', tests: 5, seconds: 1.2, tier: 'fast' },
    { path: 'test/cli/b.test.ts', tests: 7, seconds: 40, tier: 'slow' },
  ],
}

describe('the test figures of docs/tests.md', () => {
  it('refuses a run with fewer tests than the page records, unless a reason is given', () => {
    expect(refusal(13, 12, undefined)).toMatch(/12 tests, fewer than the 13/)
    expect(refusal(12, 12, undefined)).toBeUndefined()
    expect(refusal(undefined, 1, undefined)).toBeUndefined()
    expect(refusal(13, 12, 'two duplicate files merged')).toBeUndefined()
  })

  it('writes the counts by tier, the times, the change since the run before and the slowest files first', () => {
    const section = figuresSection(figures, 10)
    expect(previousCount(section)).toBe(12)
    expect(section).toContain('| `npm run test:fast` (the fast tier) | 1 | 5 | 1.6 min (95 s) |')
    expect(section).toContain('beyond the fast tier: 1 files, 7 tests) | 2 | 12 | 4.8 min (290 s) |')
    expect(section).toContain('12 tests in all (+2 since the run before, which counted 10).')
    expect(section.indexOf('test/cli/b.test.ts')).toBeLessThan(section.indexOf('test/a.test.ts'))
    expect(figuresSection({ ...figures, fewer: 'merged' }, 13)).toContain('(-1 since the run before, which counted 13). Fewer than before: merged.')
  })

  it('replaces the section in place, keeping the rest of the page, or appends one', () => {
    const page = `# Tests\n\nbefore\n\n${figuresSection(figures, undefined)}\n\nafter\n`
    const again = replaceSection(page, figuresSection({ ...figures, tests: 20 }, 12))
    expect(previousCount(again)).toBe(20)
    expect(again.startsWith('# Tests\n\nbefore\n\n<!-- test-figures:start tests=20 -->')).toBe(true)
    expect(again.endsWith('<!-- test-figures:end -->\n\nafter\n')).toBe(true)
    expect(previousCount(replaceSection('# Tests\n', figuresSection(figures, undefined)))).toBe(12)
  })

  it('are on the page, written by the script', () => {
    expect(previousCount(readFileSync(new URL('../../docs/tests.md', import.meta.url), 'utf8'))).toBeGreaterThan(2000)
  })
})
