/**
 * The text `npm run test:figures` writes into docs/tests.md (scripts/test-figures.ts runs the suite;
 * this part only turns figures into Markdown and finds the section, so a test can hold it).
 */

/** One test file's result. */
export interface FileTime {
  path: string
  tests: number
  seconds: number
  tier: 'fast' | 'slow'
}

/** What one run measured. */
export interface Figures {
  date: string
  cores: number
  node: string
  /** The machine's load average over the minute before the run. */
  load: number
  /** `npm run test:fast`, wall time. */
  fastSeconds: number
  /** `npm test` (build, type check, every tier), wall time. */
  wholeSeconds: number
  tests: number
  files: FileTime[]
  /** Why the number of tests fell, when it did. */
  fewer?: string
}

const START = /<!-- test-figures:start tests=(\d+) -->/
const END = '<!-- test-figures:end -->'
/** How many of the slowest files the section lists. */
const SLOWEST = 10

/** The number of tests the section of a page records, if it has one. */
export function previousCount(page: string): number | undefined {
  const found = START.exec(page)
  return found === null ? undefined : Number(found[1])
}

/** Why a run may not be written: it counted fewer tests than the page records, and gave no reason. */
export function refusal(before: number | undefined, now: number, fewer: string | undefined): string | undefined {
  if (before === undefined || now >= before || fewer !== undefined) return undefined
  return `${now} tests, fewer than the ${before} docs/tests.md records; nothing written (--fewer "REASON" to write it anyway)`
}

/** The page with its section replaced by `section` (or appended, when it has none). */
export function replaceSection(page: string, section: string): string {
  const start = START.exec(page)
  const end = page.indexOf(END)
  if (start === null || end === -1 || end < start.index) return `${page.trimEnd()}\n\n${section}\n`
  return `${page.slice(0, start.index)}${section}${page.slice(end + END.length)}`
}

const seconds = (value: number): string => `${value.toFixed(0)} s`
const minutes = (value: number): string => (value < 90 ? seconds(value) : `${(value / 60).toFixed(1)} min (${seconds(value)})`)

/** The section: the run's counts and times by tier, and the slowest files. */
export function figuresSection(figures: Figures, before: number | undefined): string {
  const tier = (name: 'fast' | 'slow') => {
    const files = figures.files.filter((file) => file.tier === name)
    return { files: files.length, tests: files.reduce((sum, file) => sum + file.tests, 0) }
  }
  const [fast, slow] = [tier('fast'), tier('slow')]
  const slowest = [...figures.files].sort((a, b) => b.seconds - a.seconds).slice(0, SLOWEST)
  const change =
    before === undefined ? '' : ` (${figures.tests - before >= 0 ? '+' : ''}${figures.tests - before} since the run before, which counted ${before})`
  return [
    `<!-- test-figures:start tests=${figures.tests} -->`,
    `Measured by \`npm run test:figures\` on ${figures.date}: ${figures.cores} cores, Node ${figures.node}, a load average of ${figures.load.toFixed(1)} when it started.`,
    '',
    '| run | files | tests | wall time |',
    '|---|---|---|---|',
    `| \`npm run test:fast\` (the fast tier) | ${fast.files} | ${fast.tests} | ${minutes(figures.fastSeconds)} |`,
    `| \`npm test\` (build, type check, every tier; beyond the fast tier: ${slow.files} files, ${slow.tests} tests) | ${fast.files + slow.files} | ${figures.tests} | ${minutes(figures.wholeSeconds)} |`,
    '',
    `${figures.tests} tests in all${change}.${figures.fewer === undefined ? '' : ` Fewer than before: ${figures.fewer}.`}`,
    '',
    `The ${SLOWEST} slowest files (each file's own time; files run two at a time):`,
    '',
    '| file | tier | tests | time |',
    '|---|---|---|---|',
    ...slowest.map((file) => `| \`${file.path}\` | ${file.tier} | ${file.tests} | ${seconds(file.seconds)} |`),
    END,
  ].join('\n')
}
