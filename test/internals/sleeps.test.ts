/**
 * Tests wait on events, not the clock: a sleep is never taken to mean "arrived". This finds every
 * sleep in the tests (a promise resolved by a timer, or a helper named sleep) and holds it to the
 * list below, each one deliberate and saying why. A new sleep fails here until it is an awaited
 * event, the suite's one wait for what has none (`until`, test/helpers/until.ts), or a line of this
 * list with its reason.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = new URL('../../', import.meta.url).pathname

/** The deliberate sleeps, by file and line text: each paces or spreads work on purpose, none waits for something to arrive. */
const DELIBERATE: Record<string, { line: string; why: string }> = {
  'test/helpers/until.ts': {
    line: 'await new Promise((resolve) => setTimeout(resolve, 5))',
    why: 'the one wait itself: between two asks of a condition that has no event',
  },
  'test/http/hostile-load.test.ts': {
    line: 'await sleep(20)',
    why: 'the second client paces its polling, so it samples the mock over the whole hostile request rather than hammering it',
  },
  'test/cli/change-log.test.ts': {
    line: 'await new Promise((resolve) => setTimeout(resolve, pick(9)))',
    why: 'a kill at a seeded moment during writes: the moment is the point of the test',
  },
  'test/cli/state-file.test.ts': {
    line: 'await new Promise((resolve) => setTimeout(resolve, delay))',
    why: 'a SIGKILL at a seeded moment during a snapshot: the moment is the point of the test',
  },
  'test/package/build.test.ts': {
    line: 'await new Promise((resolve) => setTimeout(resolve, 5))',
    why: 'samples the built files again and again while a build runs, to see none is ever missing: the sampling is the point of the test',
  },
  'test/state/scale.test.ts': {
    line: 'for (let turn = 0; loop.count <= after && turn < 1000; turn++) await new Promise((resolve) => setTimeout(resolve, 1))',
    why: "lets the event loop monitor's own timer tick once more, which is how it sees the last block",
  },
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : files(path)
    return name.endsWith('.ts') ? [path] : []
  })
}

/** A timer awaited as a promise, or a call of a helper named sleep. */
const SLEEP = /setTimeout\(\s*(?:resolve|r|done|res)\s*[,)]|\bsleep\(\s*\d/

describe('sleeps in the tests', () => {
  const found = files(join(ROOT, 'test'))
    .filter((path) => !path.includes('/bench/'))
    .flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((line) => SLEEP.test(line))
        .map((line) => ({ file: relative(ROOT, path), line: line.trim() })),
    )

  it('are only the deliberate ones, each with its reason', () => {
    const unlisted = found.filter(
      ({ file, line }) =>
        DELIBERATE[file]?.line !== line &&
        !(file === 'test/http/hostile-load.test.ts' && line.startsWith('const sleep =')) &&
        file !== 'test/internals/sleeps.test.ts',
    )
    expect(unlisted).toEqual([])
  })

  it('lists none that is gone (the list says what is there)', () => {
    for (const [file, { line, why }] of Object.entries(DELIBERATE)) {
      expect(
        found.some((one) => one.file === file && one.line === line),
        `${file}: ${line}`,
      ).toBe(true)
      expect(why.length).toBeGreaterThan(20)
    }
  })

  it('finds a sleep written in any of the usual ways', () => {
    for (const line of [
      'await new Promise((resolve) => setTimeout(resolve, 20))',
      'await new Promise((r) => setTimeout(r, 1))',
      'await sleep(100)',
      'setTimeout(done, 5)',
    ])
      expect(SLEEP.test(line), line).toBe(true)
    for (const line of ['const timer = setTimeout(() => reject(new Error("late")), 5000)', 'req.setTimeout(10_000, () => req.destroy())'])
      expect(SLEEP.test(line), line).toBe(false)
  })
})
