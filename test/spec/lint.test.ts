/**
 * Both generated documents (the API's and the control plane's) pass the linter's recommended
 * ruleset (redocly.yaml) with no problem at all, and the linter stays offline while doing it: a
 * preloaded guard refuses and reports any connection.
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

describe('redocly lint', () => {
  it.each(['spec/openapi.yaml', 'spec/control-plane.yaml'])(
    'reports no problem in %s and makes no network connection',
    async (file) => {
      const result = await run(process.execPath, [`${root}node_modules/.bin/redocly`, 'lint', file, '--format=json'], {
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
      // Warnings count too: redocly.yaml turns nothing off, so a warning is a real finding.
      const problems = report.problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location?.[0]?.pointer ?? '?'}`)
      expect(problems).toEqual([])
      expect(report.totals.errors).toBe(0)
      expect(result.code).toBe(0)
      expect(result.stderr).not.toContain('[deny-network]')
    },
    180_000,
  )
})

interface SpectralFinding {
  code: string
  message: string
  severity: number
  path: Array<string | number>
  source?: string
}

describe('spectral lint (spectral:oas, .spectral.yaml)', () => {
  it.each(['spec/openapi.yaml', 'spec/control-plane.yaml'])(
    'reports no error in %s and makes no network connection',
    async (file) => {
      const result = await run(
        process.execPath,
        [`${root}node_modules/.bin/spectral`, 'lint', file, '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet'],
        {
          cwd: root,
          timeoutMs: 120_000,
          env: { ...process.env, NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${guard}`.trim() },
        },
      )
      const start = result.stdout.indexOf('[')
      expect(start, `no JSON report; stderr:\n${result.stderr}`).toBeGreaterThanOrEqual(0)
      const findings = JSON.parse(result.stdout.slice(start)) as SpectralFinding[]
      // Severity 0 is an error. The one warning left, info-contact, asks for a contact the project does not publish.
      const errors = findings.filter((finding) => finding.severity === 0).map((finding) => `${finding.code}: ${finding.message} at ${finding.path.join('.')}`)
      expect(errors).toEqual([])
      expect(findings.filter((finding) => finding.code !== 'info-contact').map((finding) => finding.code)).toEqual([])
      expect(result.stderr).not.toContain('[deny-network]')
    },
    180_000,
  )
})
