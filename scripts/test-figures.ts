/**
 * `npm run test:figures`: runs the suite the way a developer does and writes what it took into
 * docs/tests.md, between the `test-figures` markers, so the page's counts and times come from a run
 * and never from memory.
 *
 * 1. `npm run test:fast` (the inner loop) alone, timed;
 * 2. `npm test` (build, type check, every tier), timed, with vitest's JSON report of every file.
 *
 * The number of tests may not fall: the count the page held before is read back, and a run with
 * fewer tests exits 1 and writes nothing, unless `--fewer "REASON"` says why (the reason is written
 * beside the figures). A run with a failing test writes nothing either.
 *
 *   npx tsx scripts/test-figures.ts [--fewer "REASON"] [--dry-run]
 */
import { spawnSync } from 'node:child_process'
import { availableParallelism, loadavg } from 'node:os'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { MEASURED, SLOW_TIER } from '../vitest.config.ts'
import { figuresSection, previousCount, refusal, replaceSection, type FileTime, type Figures } from './test-figures-text.ts'

const root = fileURLToPath(new URL('..', import.meta.url))
const page = join(root, 'docs/tests.md')
const { values } = parseArgs({ options: { fewer: { type: 'string' }, 'dry-run': { type: 'boolean' } } })

/** Runs an npm script to its end, its output shown; the wall time in seconds, or exits on failure. */
function timed(args: string[]): number {
  const start = performance.now()
  const run = spawnSync('npm', args, { cwd: root, stdio: 'inherit' })
  const seconds = (performance.now() - start) / 1000
  if (run.status !== 0) {
    console.error(`test-figures: npm ${args.join(' ')} failed (exit ${run.status}); nothing written`)
    process.exit(1)
  }
  return seconds
}

interface JsonReport {
  numTotalTests: number
  testResults: Array<{ name: string; startTime: number; endTime: number; assertionResults: unknown[] }>
}

const load = loadavg()[0] ?? 0
const fastSeconds = timed(['run', 'test:fast', '--', '--reporter=dot'])
mkdirSync(join(root, '.cache'), { recursive: true })
const reportFile = join(root, '.cache/test-figures.json')
const wholeSeconds = timed(['test', '--', '--reporter=dot', '--reporter=json', `--outputFile.json=${reportFile}`])
const report = JSON.parse(readFileSync(reportFile, 'utf8')) as JsonReport

// What `npm run test:fast` does not run: the slow tier, the files that measure (run apart), the examples.
const slow = (path: string): boolean =>
  SLOW_TIER.some((glob) => (glob.endsWith('/**') ? path.startsWith(glob.slice(0, -2)) : path === glob)) ||
  MEASURED.includes(path) ||
  path.startsWith('examples/')
const files: FileTime[] = report.testResults.map((result) => {
  const path = relative(root, result.name)
  return { path, tests: result.assertionResults.length, seconds: (result.endTime - result.startTime) / 1000, tier: slow(path) ? 'slow' : 'fast' }
})
const figures: Figures = {
  date: new Date().toISOString().slice(0, 10),
  cores: availableParallelism(),
  node: process.version,
  load,
  fastSeconds,
  wholeSeconds,
  tests: report.numTotalTests,
  files,
  ...(values.fewer === undefined ? {} : { fewer: values.fewer }),
}

const text = readFileSync(page, 'utf8')
const before = previousCount(text)
const refused = refusal(before, figures.tests, values.fewer)
if (refused !== undefined) {
  console.error(`test-figures: ${refused}`)
  process.exit(1)
}
const section = figuresSection(figures, before)
if (values['dry-run'] === true) console.log(section)
else writeFileSync(page, replaceSection(text, section))
console.log(
  `test-figures: ${figures.tests} tests (before: ${before ?? 'none recorded'}); npm run test:fast ${fastSeconds.toFixed(0)} s, npm test ${wholeSeconds.toFixed(0)} s`,
)
