import type { RunReport } from '../../../contracts/runner.ts'
import type { ContractResult } from '../../../contracts/types.ts'
import type { Difference } from '../compare/compare.ts'
import type { Exchange } from '../compare/recording.ts'
import { escapeHtml, htmlPage } from '../kit/html-page.ts'
import { failureLine } from './verify-report.ts'
import { summarize } from '../../../contracts/summary.ts'

/**
 * `verify --html FILE`: the run as one HTML file with nothing to fetch (styles inline, no
 * script), for a CI artifact. Fed by the same report as `--json`, plus the exchanges a recording
 * transport kept; every text passes through the run's redactor, and headers that carry
 * credentials are masked by name besides.
 */

/** One installation's run and the requests it sent. */
export interface HtmlSide {
  report: RunReport
  exchanges: readonly Exchange[]
}

export interface HtmlReportInput {
  /** `contracts`, `usage` (the interactions a client recorded) or `comparison` (two installations). */
  kind: 'contracts' | 'usage' | 'comparison'
  first: HtmlSide
  second?: HtmlSide
  differences?: readonly Difference[]
  /** When the report was written (ISO). */
  writtenAt: string
}

/** Headers whose values are credentials whatever they hold. */
const SECRET_HEADERS = new Set(['sessiontoken', 'authorization', 'x-mock-control-token', 'cookie', 'encryptedcredentials'])
/** Past this, an answer's body is cut: a report is read, not replayed. */
const BODY_LIMIT = 8 * 1024
/** Exchanges shown per failed contract (the last ones: they show what failed). */
const EXCHANGE_LIMIT = 12

/** The run as one HTML page: a summary per installation, the comparison when there are two, the results grouped by operation. */
export function htmlReport(input: HtmlReportInput, redact: (text: string) => string): string {
  const text = (value: string) => escapeHtml(redact(value))
  const sides = input.second === undefined ? [input.first] : [input.first, input.second]
  const title =
    input.kind === 'comparison'
      ? `appdata-kit verify: ${input.first.report.target} compared with ${input.second?.report.target}`
      : `appdata-kit verify${input.kind === 'usage' ? ' --usage' : ''}: ${input.first.report.target}`
  const sections = [
    ...sides.map((side, i) => summaryBlock(side.report, sides.length === 1 ? '' : i === 0 ? 'First' : 'Second', text)),
    input.kind === 'comparison' && input.second !== undefined ? comparisonBlock(input.first, input.second, input.differences ?? [], text) : '',
    ...sides.map((side, i) => resultsBlock(side, input.kind, sides.length === 1 ? '' : i === 0 ? 'First: ' : 'Second: ', text)),
  ]
  return htmlPage({ title: redact(title), writtenAt: input.writtenAt, style: STYLE, sections })
}

function summaryBlock(report: RunReport, label: string, text: (value: string) => string): string {
  const counts = summarize(report.results)
  const cleanup =
    report.cleanup.left.length > 0
      ? `<p class="failed">Rows NOT removed: ${report.cleanup.left.map((row) => text(`${row.relationKey ?? 'master'} ${row.id ?? ''}: ${row.reason}`)).join('; ')}</p>`
      : ''
  return `<section class="summary"><h2>${label === '' ? 'Summary' : `${label}: ${text(report.target)}`}</h2>
<p>Release ${text(report.release)}, held to ${report.holdTo === 'mock' ? "the API's description and the mock's own choices" : "the API's description"}.
<span class="passed">${counts.passed} passed</span>, <span class="failed">${counts.failed} failed</span>, <span class="skipped">${counts.skipped} skipped</span> of ${report.results.length} in ${(report.durationMs / 1000).toFixed(1)} s${report.interrupted ? ' (interrupted)' : ''}; cleanup removed ${report.cleanup.removed} row(s).</p>${cleanup}</section>`
}

/** The group a result belongs to: the operation area of a contract id, or a usage interaction's operation. */
function groupOf(result: ContractResult, kind: HtmlReportInput['kind']): string {
  const parts = result.contract.id.split('.')
  return (kind === 'usage' && parts[0] === 'usage' ? parts[1] : parts[0]) ?? 'contracts'
}

function resultsBlock(side: HtmlSide, kind: HtmlReportInput['kind'], label: string, text: (value: string) => string): string {
  const groups = new Map<string, ContractResult[]>()
  for (const result of side.report.results) {
    const group = groupOf(result, kind)
    groups.set(group, [...(groups.get(group) ?? []), result])
  }
  const sections = [...groups].map(([group, results]) => {
    const failed = results.filter((r) => r.outcome === 'failed').length
    const rows = results.map((result) => resultRow(result, side.exchanges, text)).join('\n')
    return `<details class="group"${failed > 0 ? ' open' : ''}><summary><strong>${text(group)}</strong> <span class="muted">${results.length} ${kind === 'usage' ? 'interaction(s)' : 'contract(s)'}</span>${failed > 0 ? ` <span class="failed">${failed} failed</span>` : ''}</summary>
<table><thead><tr><th>${kind === 'usage' ? 'Interaction' : 'Contract'}</th><th>Severity</th><th>Outcome</th><th>Duration</th></tr></thead><tbody>
${rows}
</tbody></table></details>`
  })
  return `<section><h2>${text(label)}${kind === 'usage' ? "The client's interactions" : 'Contracts by operation'}</h2>\n${sections.join('\n')}</section>`
}

function resultRow(result: ContractResult, exchanges: readonly Exchange[], text: (value: string) => string): string {
  const { contract } = result
  const head = `<tr class="result ${result.outcome}" id="${escapeHtml(`result-${contract.id}`)}"><td><code>${text(contract.id)}</code><br><span class="muted">${text(contract.title)}</span></td><td>${text(contract.severity)}</td><td class="${result.outcome}">${result.outcome}${result.reason === undefined ? '' : `: ${text(result.reason)}`}</td><td>${result.durationMs.toFixed(0)} ms</td></tr>`
  const notes = (result.notes ?? []).map((note) => `<li>${text(note)}</li>`).join('')
  if (result.outcome !== 'failed' && notes === '') return head
  const failures = result.failures
    .map(
      (failure) =>
        `<div class="failure"><p>${text(failureLine(failure))}</p><table class="pair"><tr><th>Expected</th><td><pre>${text(failure.expected)}</pre></td></tr><tr><th>Received</th><td><pre>${text(failure.received)}</pre></td></tr></table></div>`,
    )
    .join('\n')
  const own = exchanges.filter((exchange) => exchange.part === contract.id)
  const shown = own.slice(-EXCHANGE_LIMIT)
  const exchangeList =
    result.outcome !== 'failed'
      ? ''
      : own.length === 0
        ? '<p class="muted">No exchange recorded for it.</p>'
        : `<h4>Exchanges${own.length > shown.length ? ` (the last ${shown.length} of ${own.length})` : ''}</h4>${shown.map((exchange) => exchangeBlock(exchange, text)).join('\n')}`
  return `${head}\n<tr class="detail"><td colspan="4">${failures}${notes === '' ? '' : `<ul class="notes">${notes}</ul>`}${exchangeList}</td></tr>`
}

function exchangeBlock(exchange: Exchange, text: (value: string) => string): string {
  const headers = Object.entries(exchange.requestHeaders ?? {})
    .map(([name, value]) => `${name}: ${SECRET_HEADERS.has(name.toLowerCase()) ? '[redacted]' : value}`)
    .join('\n')
  const sent =
    exchange.requestBody === undefined
      ? ''
      : bodyText(exchange.requestBody, exchange.requestHeaders?.['content-type'] ?? exchange.requestHeaders?.['Content-Type'] ?? '')
  return `<details class="exchange"><summary><code>${text(`${exchange.method} ${exchange.path}`)}</code> → <strong>${exchange.status === 0 ? 'no answer' : exchange.status}</strong> <span class="muted">${text(exchange.contentType)}</span></summary>
<div class="grid"><div><h5>Request</h5><pre>${text(headers === '' ? '(no headers)' : headers)}</pre>${sent === '' ? '' : `<pre>${text(sent)}</pre>`}</div><div><h5>Answer</h5><pre>${text(bodyText(exchange.body, exchange.contentType) || '(empty)')}</pre></div></div></details>`
}

/** A body as text: JSON indented, other text as it is, bytes by their size; cut at BODY_LIMIT. */
function bodyText(body: string | Uint8Array, contentType: string): string {
  const textual = typeof body === 'string' || /json|text|xml|urlencoded/i.test(contentType)
  if (!textual) return `[${body.byteLength} bytes${contentType === '' ? '' : ` of ${contentType}`}]`
  let out = typeof body === 'string' ? body : Buffer.from(body).toString('utf8')
  if (/json/i.test(contentType)) {
    try {
      out = JSON.stringify(JSON.parse(out), null, 2)
    } catch {
      // Not JSON after all: shown as sent.
    }
  }
  return out.length > BODY_LIMIT ? `${out.slice(0, BODY_LIMIT)}\n… (${out.length - BODY_LIMIT} more characters)` : out
}

/** The two installations side by side: each contract's outcome on both, then the answers that differed. */
function comparisonBlock(first: HtmlSide, second: HtmlSide, differences: readonly Difference[], text: (value: string) => string): string {
  const outcomes = new Map(second.report.results.map((result) => [result.contract.id, result.outcome]))
  const rows = first.report.results
    .map((result) => {
      const other = outcomes.get(result.contract.id) ?? 'not run'
      return `<tr${other === result.outcome ? '' : ' class="differs"'}><td><code>${text(result.contract.id)}</code></td><td class="${result.outcome}">${result.outcome}</td><td class="${other}">${other}</td></tr>`
    })
    .join('\n')
  const list =
    differences.length === 0
      ? '<p>No differences (Ids, row versions, times, tokens and row values set aside).</p>'
      : `<table><thead><tr><th>Operation</th><th>Where</th><th>Kind</th><th>${text(first.report.target)}</th><th>${text(second.report.target)}</th></tr></thead><tbody>${differences
          .map(
            (d) =>
              `<tr class="differs"><td>${text(d.operationId)}</td><td><code>${text(d.part)}</code>${d.kind === 'outcome' ? '' : ` request ${d.index}${d.request === '' ? '' : `<br><span class="muted">${text(d.request)}</span>`}`}</td><td>${text(d.kind)}</td><td><pre>${text(d.first)}</pre></td><td><pre>${text(d.second)}</pre></td></tr>`,
          )
          .join('\n')}</tbody></table>`
  return `<section class="comparison"><h2>Side by side</h2><h3>${differences.length} difference(s)</h3>${list}
<details><summary>Every contract's outcome on both</summary><table><thead><tr><th>Contract</th><th>${text(first.report.target)}</th><th>${text(second.report.target)}</th></tr></thead><tbody>${rows}</tbody></table></details></section>`
}

/** verify's own styles, beside the page's shared ones: the colours of outcomes, the groups, failures and exchanges. */
const STYLE = `.passed{color:#145c2c}.failed{color:#a11;font-weight:600}.skipped{color:#5b6472}tr.result.failed td{background:#fdecec}.differs td{background:#fff4dc}
.group{margin:.4rem 0}.group>summary{cursor:pointer;padding:.2rem 0}.exchange{margin:.2rem 0}.failure{margin:.2rem 0}.pair th{width:7rem}`
