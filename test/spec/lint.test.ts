/**
 * The generated YAML passes the linter's recommended ruleset (redocly.yaml) with no errors, and the
 * linter stays offline while doing it: a preloaded guard refuses and reports any connection.
 */
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { run } from './support/run.ts'

const root = fileURLToPath(new URL('../../', import.meta.url))
const guard = fileURLToPath(new URL('./support/deny-network.cjs', import.meta.url))

interface LintReport {
  totals: { errors: number; warnings: number; ignored: number }
  problems: Array<{ ruleId: string; severity: string; message: string; location?: Array<{ pointer?: string }> }>
}

describe('redocly lint spec/openapi.yaml', () => {
  it('reports no errors and makes no network connection', async () => {
    const result = await run(process.execPath, [`${root}node_modules/.bin/redocly`, 'lint', 'spec/openapi.yaml', '--format=json'], {
      cwd: root,
      timeoutMs: 120_000,
      env: {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${guard}`.trim(),
      },
    })
    const start = result.stdout.indexOf('{')
    expect(start, `no JSON report; stderr:\n${result.stderr}`).toBeGreaterThanOrEqual(0)
    const report = JSON.parse(result.stdout.slice(start)) as LintReport
    const errors = report.problems
      .filter((problem) => problem.severity === 'error')
      .map((problem) => `${problem.ruleId}: ${problem.message} at ${problem.location?.[0]?.pointer ?? '?'}`)
    expect(errors).toEqual([])
    expect(report.totals.errors).toBe(0)
    expect(result.code).toBe(0)
    expect(result.stderr).not.toContain('[deny-network]')
  }, 180_000)
})
