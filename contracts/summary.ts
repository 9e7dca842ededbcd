import type { RunReport } from './runner.ts'
import type { ContractResult } from './types.ts'

/**
 * A run's outcome in counts and closing lines, as every command that runs contracts prints and
 * reports it: verify (src/commands/cli/verify-report.ts) and verify --usage (src/commands/usage/verify-usage.ts).
 * Here beside the runner, below both, so that the usage commands need nothing from src/commands/cli.
 */

export interface Summary {
  passed: number
  failed: number
  skipped: number
}

export function summarize(results: readonly ContractResult[]): Summary {
  return {
    passed: results.filter((r) => r.outcome === 'passed').length,
    failed: results.filter((r) => r.outcome === 'failed').length,
    skipped: results.filter((r) => r.outcome === 'skipped').length,
  }
}

/** The closing lines: counts, the skipped reasons grouped, and what the cleanup did. */
export function summaryLines(report: RunReport): string[] {
  const counts = summarize(report.results)
  const lines = [
    `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped of ${report.results.length} contracts in ${(report.durationMs / 1000).toFixed(1)} s${report.interrupted ? ' (interrupted)' : ''}`,
  ]
  const reasons = new Map<string, number>()
  for (const result of report.results) if (result.outcome === 'skipped') reasons.set(result.reason ?? '', (reasons.get(result.reason ?? '') ?? 0) + 1)
  for (const [reason, count] of [...reasons].sort((a, b) => b[1] - a[1])) lines.push(`  skipped ${count}: ${reason}`)
  if (report.information.length > 0) {
    lines.push('information (where the description is silent; never a failure):')
    for (const finding of report.information) lines.push(`  info ${finding.topic}: ${finding.finding}`)
  }
  if (report.cleanup.removed > 0 || report.cleanup.left.length > 0) {
    lines.push(`cleanup: removed the ${report.cleanup.removed} row(s) this run created`)
    for (const row of report.cleanup.left)
      lines.push(`  NOT REMOVED: ${row.relationKey === null ? 'master row' : `${row.relationKey} row`}${row.id === null ? '' : ` ${row.id}`}: ${row.reason}`)
  }
  return lines
}
