import builderModule, { type Builder } from 'junit-report-builder'
import type { RunReport } from '../../../contracts/runner.ts'
import type { ContractResult, Failure } from '../../../contracts/types.ts'
import { summarize, summaryLines } from '../../../contracts/summary.ts'
import type { Difference } from '../compare/compare.ts'

// junit-report-builder ships CommonJS; under NodeNext its default export types as the module object.
const builder = builderModule as unknown as Builder

/**
 * What verify prints and writes. Every text passes through `redact`, so a password or a session
 * token that an answer echoed never reaches a terminal, a CI log or a report file.
 */

export { redactor, writtenForms, type Redactor } from './secrets.ts'

/**
 * The report with every text it carries redacted, before it is written as XML or JSON: a secret
 * escaped by the writer would no longer read as itself.
 */
export function redactReport(report: RunReport, redact: (text: string) => string): RunReport {
  return JSON.parse(JSON.stringify(report), (_key, value: unknown) => (typeof value === 'string' ? redact(value) : value)) as RunReport
}

/** One failure on one line: what was expected, what came back, and where. */
export function failureLine(failure: Failure): string {
  const where = [failure.exchange, failure.schemaPath === undefined || failure.schemaPath === '' ? undefined : `schema ${failure.schemaPath}`]
    .filter((x) => x !== undefined)
    .join('; ')
  return `expected ${failure.expected}; received ${failure.received}${where === '' ? '' : ` (${where})`}`
}

/** The lines verify prints as a contract ends: failures and notes always, passes and skips on a terminal. */
export function resultLines(result: ContractResult, terminal: boolean): string[] {
  const { contract } = result
  const notes = (result.notes ?? []).map((note) => `note ${contract.id}: ${note}`)
  if (result.outcome === 'failed') {
    return [...result.failures.map((failure) => `FAIL ${contract.id} [${contract.severity}]: ${failureLine(failure)}`), ...notes]
  }
  if (!terminal) return notes
  return [result.outcome === 'passed' ? `  ok ${contract.id}` : `skip ${contract.id}: ${result.reason ?? ''}`, ...notes]
}

/** The run as a JUnit XML report: one suite per area (the id's first part), one case per contract. */
export function junitXml(report: RunReport): string {
  const junit = builder.newBuilder()
  const suites = new Map<string, ReturnType<typeof junit.testSuite>>()
  for (const result of report.results) {
    const area = result.contract.id.split('.')[0] ?? 'contracts'
    let suite = suites.get(area)
    if (suite === undefined) {
      suite = junit.testSuite().name(`appdata-kit verify: ${area}`)
      suites.set(area, suite)
    }
    const testCase = suite
      .testCase()
      .className(`verify.${area}`)
      .name(`${result.contract.id}: ${result.contract.title}`)
      .time(result.durationMs / 1000)
    if (result.outcome === 'failed') testCase.failure(result.failures.map(failureLine).join('\n'), result.contract.severity)
    if (result.outcome === 'skipped') testCase.skipped()
    if ((result.notes ?? []).length > 0) testCase.standardOutput((result.notes ?? []).join('\n'))
  }
  // What the description leaves open is no test: properties of a suite of its own, never a failure.
  if (report.information.length > 0) {
    const information = junit.testSuite().name('appdata-kit verify: information')
    for (const finding of report.information) information.property(finding.topic, finding.finding)
  }
  // A row left behind fails the run (exit 1), so it fails a case of the report too.
  const cleanup = junit
    .testSuite()
    .name('appdata-kit verify: cleanup')
    .testCase()
    .className('verify.cleanup')
    .name('cleanup: every row this run created is removed again')
  if (report.cleanup.left.length > 0)
    cleanup.failure(
      summaryLines(report)
        .filter((line) => line.includes('NOT REMOVED'))
        .join('\n'),
      'critical',
    )
  return junit.build()
}

/** The run as JSON for tools: target, release, every result with its failures, the cleanup. */
export function jsonReport(report: RunReport): string {
  return `${JSON.stringify({ ...report, summary: summarize(report.results) }, null, 2)}\n`
}

/**
 * The differences of a comparison, operation by operation (contract outcomes first), each line
 * naming the contract and which of its requests, what the first installation answered and what
 * the second did.
 */
export function differenceLines(differences: readonly Difference[], first: string, second: string): string[] {
  if (differences.length === 0) return [`no differences between ${first} and ${second} (Ids, row versions, times, tokens and row values set aside)`]
  const lines = [`${differences.length} difference(s) between ${first} (first) and ${second} (second):`]
  const groups = new Map<string, Difference[]>()
  for (const difference of differences) {
    const key = difference.kind === 'outcome' ? 'contract outcomes' : difference.operationId
    groups.set(key, [...(groups.get(key) ?? []), difference])
  }
  // Past a few per operation the rest are usually the same difference again; --json has them all.
  const shown = 8
  for (const [operation, list] of groups) {
    lines.push(`  ${operation}`)
    if (list.length > shown) lines.push(`    (the first ${shown} of ${list.length}; --json FILE lists every one)`)
    for (const d of list.slice(0, shown)) {
      const where = d.kind === 'outcome' ? d.part : `${d.part} request ${d.index}${d.request === '' ? '' : ` (${d.request})`}`
      lines.push(`    ${where}: ${d.kind}: ${d.first} | ${d.second}`)
    }
  }
  return lines
}
