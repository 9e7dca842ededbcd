/** One table of the report: a heading, its columns, its rows, and notes under it. */
export interface Table {
  title: string
  columns: string[]
  rows: Array<Array<string | number>>
  notes?: string[]
}

/** One target of the benchmark, with the figure measured for it and the verdict. */
export interface Check {
  workload: string
  target: string
  figure: string
  verdict: string
}

/** What a workload hands back: its tables and the targets it measured. */
export interface Outcome {
  tables: Table[]
  checks: Check[]
}

export const fixed = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '-')
export const ratio = (value: number, base: number) => (base > 0 ? `${(value / base).toFixed(2)}×` : '-')

/**
 * The load generator's ceiling for a workload is bare node:http answering the same bytes, measured
 * in the same run with the same generator. A figure within 10 % of it says more about the generator
 * (and the loopback) than about the server, so it is never called a target met.
 */
export const BOUND = 0.9
export const BOUNDED = 'bounded by the load generator'
export const isBounded = (rps: number, ceiling: number) => ceiling > 0 && rps >= BOUND * ceiling

/** A throughput cell: the figure, marked when the generator bounds it. */
export const rpsCell = (rps: number, ceiling: number) => (isBounded(rps, ceiling) ? `${fixed(rps)} (${BOUNDED})` : fixed(rps))

/**
 * The verdict of a throughput target `value ≥ min × base`. A value the generator bounds is never
 * met; neither is one measured against a baseline the generator bounds (the true ratio may be lower),
 * unless the baseline is the ceiling itself.
 */
export function atLeast(options: { value: number; base: number; min: number; ceiling: number; baseIsCeiling?: boolean }): string {
  const { value, base, min, ceiling } = options
  if (!(value > 0) || !(base > 0) || !(ceiling > 0)) return 'not measured'
  if (isBounded(value, ceiling)) return BOUNDED
  if (value / base < min) return 'missed'
  return options.baseIsCeiling !== true && isBounded(base, ceiling) ? `not shown: the baseline is ${BOUNDED}` : 'met'
}

/**
 * The verdict of a throughput target that also bounds the tail (W4c): `throughput` is `atLeast`'s
 * verdict; a throughput met with a p99 over `maxRatio` × p50 is missed; any other verdict stands.
 */
export function withTail(throughput: string, latency: { p50: number; p99: number }, maxRatio: number): string {
  if (throughput !== 'met') return throughput
  if (!(latency.p50 > 0) || !(latency.p99 > 0)) return 'not measured'
  return latency.p99 <= maxRatio * latency.p50 ? 'met' : 'missed'
}

/** The verdict of a target that no generator bounds (a latency, a start time, a size). */
export const holds = (ok: boolean) => (ok ? 'met' : 'missed')

/** A table as Markdown. */
export function markdown(table: Table): string {
  const lines = [`### ${table.title}`, '', `| ${table.columns.join(' | ')} |`, `|${table.columns.map(() => '---').join('|')}|`]
  for (const row of table.rows) lines.push(`| ${row.join(' | ')} |`)
  for (const note of table.notes ?? []) lines.push('', note)
  return `${lines.join('\n')}\n`
}

/** The targets of every workload in one table. */
export function targetsTable(checks: readonly Check[]): Table {
  return {
    title: 'Targets',
    columns: ['workload', 'target', 'measured', 'verdict'],
    rows: checks.map((check) => [
      check.workload,
      check.target,
      check.figure,
      check.verdict === 'met' || check.verdict === 'missed' ? `**${check.verdict}**` : check.verdict,
    ]),
  }
}

/** The page whose bench block `npm run bench` rewrites, from the repository's root. */
export const BLOCK_PAGE = 'docs/performance.md'
export const BLOCK_START = '<!-- bench:start (written by npm run bench from the run that wrote test/bench/RESULTS.md; do not edit) -->'
export const BLOCK_END = '<!-- bench:end -->'

/** `text` with what lies between the bench markers of a page (BLOCK_PAGE) replaced by `block`; throws when the markers are missing. */
export function replaceBenchBlock(text: string, block: string): string {
  const start = text.indexOf(BLOCK_START)
  const end = text.indexOf(BLOCK_END)
  if (start === -1 || end === -1 || end < start) throw new Error(`the page has no ${BLOCK_START} … ${BLOCK_END} block`)
  return `${text.slice(0, start + BLOCK_START.length)}\n${block.trim()}\n${text.slice(end)}`
}

/** The section of test/bench/RESULTS.md that `npm run bench:compare -- REF --write` writes, and `npm run bench` keeps. */
export const COMPARE_START = '<!-- compare:start (written by npm run bench:compare --write; npm run bench keeps it) -->'
export const COMPARE_END = '<!-- compare:end -->'

/** The compare section of `text`, markers included; undefined when it has none. */
export function compareSection(text: string): string | undefined {
  const start = text.indexOf(COMPARE_START)
  const end = text.indexOf(COMPARE_END, start)
  return start === -1 || end === -1 ? undefined : text.slice(start, end + COMPARE_END.length)
}

/** `text` with its compare section replaced by `section` (between the markers), or with the section added at its end. */
export function replaceCompareSection(text: string, section: string): string {
  const block = `${COMPARE_START}\n${section.trim()}\n${COMPARE_END}`
  const old = compareSection(text)
  if (old !== undefined) return text.replace(old, () => block)
  return `${text.trimEnd()}${text.trim() === '' ? '' : '\n\n'}${block}\n`
}

/** A full run's RESULTS.md text with the compare section of the file it replaces kept at its end. */
export function keepCompareSection(previous: string, fresh: string): string {
  const old = compareSection(previous)
  return old === undefined ? fresh : replaceCompareSection(fresh, old.slice(COMPARE_START.length, -COMPARE_END.length))
}
