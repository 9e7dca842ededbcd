import builderModule, { type Builder } from 'junit-report-builder'
import { escapeHtml } from '../kit/html-page.ts'
import { operationText, type Finding, type FindingSide, type UpgradeReport } from './types.ts'

// junit-report-builder ships CommonJS; under NodeNext its default export types as the module object.
const builder = builderModule as unknown as Builder

/**
 * The upgrade report written out: text for a person, Markdown for a pull-request comment, JSON for
 * tools, JUnit XML for a CI job's test view. Each holds the findings only (shapes, paths, member
 * names and documents' texts): no value of the usage (it holds none) and no secret.
 */

/** How the replay went: the recorded shapes, how many were replayed on both releases, how many the client met only refusals in. */
export interface ReplayStats {
  usage: string
  fixture: string
  interactions: number
  replayed: number
  refusalsOnly: number
}

/** A report with what the text formats say around the findings. */
export interface UpgradeRun extends ReplayStats {
  report: UpgradeReport
}

/** One side of a finding as one line. */
export function sideText(side: FindingSide): string {
  if (side.member !== undefined) return side.type === 'absent' ? `no ${side.member}` : `${side.member} (${side.type ?? '?'})`
  const parts: string[] = []
  if (side.method !== undefined) parts.push(`${side.method} ${side.path ?? ''}`)
  if (side.contentType !== undefined) parts.push(`(${side.contentType})`)
  if (side.body !== undefined) parts.push(side.body)
  if (side.header !== undefined) parts.push(`with the header ${side.header}`)
  if (side.status !== undefined) parts.push(`status ${side.status}`)
  return parts.join(' ') || '-'
}

/** What the target's side tells the client to send beside its request: the members with their values, and the headers the token goes in. */
export function adviceLines(side: FindingSide): string[] {
  const lines: string[] = []
  if (side.send !== undefined)
    lines.push(
      `send: ${Object.entries(side.send)
        .map(([member, value]) => `${member}: ${value}`)
        .join(', ')}`,
    )
  if (side.token !== undefined)
    lines.push(
      `token: ${side.token.member === undefined ? '' : `the answer's ${side.token.member}, `}in ${side.token.headers.map(({ header, operationIds }) => `${header} (${operationIds.join(', ')})`).join(' and ')}`,
    )
  return lines
}

const breaking = (report: UpgradeReport) => report.findings.filter((f) => f.breaks && f.kind !== 'unreplayable')
const unreplayable = (report: UpgradeReport) => report.findings.filter((f) => f.kind === 'unreplayable')

/** The closing verdict, in words. */
export function verdict(report: UpgradeReport): string {
  const breaks = breaking(report).length
  const cannot = unreplayable(report).length
  if (breaks > 0) return `the client breaks on ${report.to}: ${breaks} finding(s) break it`
  if (cannot > 0) return `not known: ${cannot} finding(s) say the usage cannot be replayed on ${report.from} (give the fixture it was recorded with: --fixture)`
  return report.findings.length === 0
    ? `nothing the client uses changes on ${report.to}`
    : `nothing breaks the client on ${report.to}; ${report.findings.length} finding(s) to look at`
}

function head(run: UpgradeRun): string[] {
  const { report } = run
  return [
    `appdata-kit upgrade: ${run.usage}, recorded on ${report.from}, against ${report.to} (${run.fixture})`,
    `${run.interactions} recorded request shape(s): ${run.replayed} replayed on both releases, ${run.refusalsOnly} met only refusals (not replayed; their operations read from the documents)`,
  ]
}

const label = (finding: Finding) => (finding.kind === 'unreplayable' ? 'UNKNOWN' : finding.breaks ? 'BREAKS' : 'WARN')

function findingLines(finding: Finding): string[] {
  const lines = [
    `${label(finding).padEnd(7)} ${finding.kind} ${operationText(finding)} (${finding.shapes} shape${finding.shapes === 1 ? '' : 's'})`,
    `  ${finding.message}`,
    `  now:  ${sideText(finding.now)}`,
    `  then: ${sideText(finding.then)}`,
  ]
  lines.push(...adviceLines(finding.then).map((line) => `  ${line}`))
  if (finding.now.example !== undefined) lines.push(`  e.g.  ${finding.now.example}`)
  if (finding.then.example !== undefined) lines.push(`        becomes ${finding.then.example}`)
  return lines
}

/** The report as text, for a terminal or a CI log. */
export function upgradeText(run: UpgradeRun): string {
  const { report } = run
  const lines = [...head(run), `${report.findings.length} finding(s), ${breaking(report).length} break the client`]
  for (const finding of report.findings) lines.push('', ...findingLines(finding))
  if (report.ignored !== undefined && report.ignored.length > 0) {
    lines.push('', `ignored (--ignore): ${report.ignored.length}`)
    for (const finding of report.ignored)
      lines.push(
        `  ${finding.kind} ${operationText(finding)} (${finding.shapes} shape${finding.shapes === 1 ? '' : 's'})${finding.reason === undefined ? '' : `: ${finding.reason}`}`,
      )
  }
  lines.push('', verdict(report))
  return `${lines.join('\n')}\n`
}

/** A table cell: pipes and line breaks would end it, and `<string>` would read as a tag (Markdown passes HTML through). */
const cell = (text: string) => escapeHtml(text).replace(/\|/g, '\\|').replace(/\n/g, ' ')
/** A code span that holds any text. */
const code = (text: string) => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``)

/** The report as Markdown, for a pull-request comment or a CI job summary. */
export function upgradeMarkdown(run: UpgradeRun): string {
  const { report } = run
  const lines = [
    `### appdata-kit upgrade: ${report.from} → ${report.to}`,
    '',
    `**${verdict(report)}**`,
    '',
    `${run.usage}: ${run.interactions} recorded request shape(s), ${run.replayed} replayed on both releases, ${run.refusalsOnly} met only refusals; ${run.fixture}.`,
  ]
  if (report.findings.length > 0) {
    lines.push('', '| | kind | operation | shapes | what changes |', '|---|---|---|---|---|')
    for (const f of report.findings) lines.push(`| ${label(f).toLowerCase()} | ${f.kind} | ${cell(operationText(f))} | ${f.shapes} | ${cell(f.message)} |`)
    for (const f of report.findings) {
      lines.push('', `<details><summary>${f.kind} ${operationText(f)}</summary>`, '', `- now: ${code(sideText(f.now))}`, `- then: ${code(sideText(f.then))}`)
      for (const line of adviceLines(f.then)) lines.push(`- ${code(line)}`)
      if (f.now.example !== undefined) lines.push(`- e.g. ${code(f.now.example)}`)
      if (f.then.example !== undefined) lines.push(`- becomes ${code(f.then.example)}`)
      lines.push('', '</details>')
    }
  }
  if (report.ignored !== undefined && report.ignored.length > 0) {
    lines.push(
      '',
      `Ignored (\`--ignore\`): ${report.ignored.map((f) => `${f.kind} ${operationText(f)}${f.reason === undefined ? '' : ` (${f.reason})`}`).join('; ')}`,
    )
  }
  return `${lines.join('\n')}\n`
}

/** The report as JSON: `{ from, to, findings, ignored? }`. */
export function upgradeJson(report: UpgradeReport): string {
  return `${JSON.stringify(report, null, 2)}\n`
}

/** The report as JUnit XML: one case per finding, failed when it breaks the client, an error when the usage could not be replayed, skipped when ignored. */
export function upgradeJunit(report: UpgradeReport): string {
  const junit = builder.newBuilder()
  const suite = junit.testSuite().name(`appdata-kit upgrade ${report.from} -> ${report.to}`)
  for (const finding of report.findings) {
    const testCase = suite
      .testCase()
      .className(`upgrade.${finding.kind}`)
      .name(`${operationText(finding)}: ${finding.kind} (${finding.shapes} shape(s))`)
    if (finding.kind === 'unreplayable') testCase.error(finding.message, finding.kind)
    else if (finding.breaks) testCase.failure(finding.message, finding.kind)
    else testCase.standardOutput(finding.message)
  }
  for (const finding of report.ignored ?? []) {
    const testCase = suite
      .testCase()
      .className(`upgrade.${finding.kind}`)
      .name(`${operationText(finding)}: ${finding.kind} (ignored)`)
      .skipped()
    testCase.standardOutput(`accepted by --ignore${finding.reason === undefined ? '' : `: ${finding.reason}`}; ${finding.message}`)
  }
  if (report.findings.length === 0 && (report.ignored ?? []).length === 0)
    suite.testCase().className('upgrade').name(`nothing the client uses changes on ${report.to}`)
  return junit.build()
}
