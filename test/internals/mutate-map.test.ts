/**
 * `npm run mutate`'s map from code to test files (scripts/mutate/tests.json): every test file it names
 * exists, so a test file moved or renamed cannot drop out of a mutation run unseen, and no entry is
 * hidden behind an earlier, broader one (the first entry a PATH starts with wins).
 */
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

interface Entry {
  code: string
  why: string
  tests: string[]
}

const ROOT = new URL('../../', import.meta.url)
const { map } = JSON.parse(readFileSync(new URL('scripts/mutate/tests.json', ROOT), 'utf8')) as { map: Entry[] }

describe("npm run mutate's map", () => {
  it.each(map.map((entry) => [entry.code, entry] as const))('%s: names test files that exist', (_code, entry) => {
    expect(entry.code).toMatch(/^src\//)
    expect(entry.why.length).toBeGreaterThan(0)
    const files = entry.tests.filter((test) => !test.includes('*'))
    expect(files.length).toBeGreaterThan(0)
    expect(files.filter((file) => !existsSync(new URL(file, ROOT)))).toEqual([])
    for (const test of entry.tests) expect(test).toMatch(/^test\/.*\.test\.ts$/)
  })

  it('tries the narrower code first: no entry is shadowed by an earlier one', () => {
    const shadowed = map.flatMap((later, j) =>
      map
        .slice(0, j)
        .filter((earlier) => later.code.startsWith(earlier.code))
        .map((earlier) => `${later.code} behind ${earlier.code}`),
    )
    expect(shadowed).toEqual([])
  })
})
