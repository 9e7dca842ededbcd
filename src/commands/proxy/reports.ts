import builderModule, { type Builder } from 'junit-report-builder'
import { redactHeaders, redactValue } from '../../policy/redact.ts'
import { escapeHtml, htmlPage } from '../kit/html-page.ts'
import type { Finding, IgnoredFinding, ExchangeSide } from './findings.ts'
import type { FailOn, KeptExchange, NotJudgedReason, ProxyReport } from './inspector.ts'

// junit-report-builder ships CommonJS; under NodeNext its default export types as the module object.
const builder = builderModule as unknown as Builder

/**
 * The proxy's reports, written at stop: JSON (the report as `GET /__proxy/report` answers it),
 * JUnit XML (a case per finding, a suite per side) and one self-contained HTML page (styles
 * inline, no script, nothing fetched), a section per side, each exchange with what was found in it,
 * as the console's Requests view shows the journal. Every text passes through `redact` (the secret
 * values the proxy met); headers and members that carry secrets are masked by name besides.
 */

const SIDES: ReadonlyArray<{ side: ExchangeSide; title: string }> = [
  { side: 'request', title: "The client's side: requests" },
  { side: 'answer', title: "The installation's side: answers" },
]

/** The report as JSON text, secrets filtered. */
export function jsonText(report: ProxyReport, redact: (text: string) => string): string {
  return redact(`${JSON.stringify(report, null, 2)}\n`)
}

const findingName = (f: Finding) => `${f.operationId ?? '(no operation)'} ${f.method} ${f.path} ${f.pointer === '' ? '(the request)' : f.pointer}`
const findingLine = (f: Finding) =>
  `${f.severity}: ${f.message}${f.example === undefined ? '' : `; came ${JSON.stringify(f.example)}`} (${f.count} exchange(s), status ${f.status}, release ${f.release}${f.beforeSignIn === true ? ', before the first sign-in' : ''})`

/** What a run fails on: the side --fail-on names (both for `any`, neither for `none`), and whether exchanges not judged count (not with --shed-load). */
export interface FailRule {
  failOn: FailOn
  shedLoad: boolean
}

const fails = (rule: FailRule, side: ExchangeSide): boolean => rule.failOn === 'any' || rule.failOn === side

/** Why an exchange was not judged, in words. */
export const NOT_JUDGED_WORDS: Record<NotJudgedReason, string> = {
  queueFull: 'judging was too far behind (the queue was full)',
  overCheckLimit: 'a body over --check-limit',
  encoded: 'an answer in an encoding the proxy does not decode',
  judgeFailed: 'the judge failed on it (please report it)',
  stopped: 'the proxy stopped before it was judged',
}

/**
 * The report as JUnit XML, as docs/proxy.md's table of outcomes says: per side a suite; a
 * violation is a failed case when the run fails on its side (--fail-on) and a skipped one when it
 * does not; exchanges not judged are one case per reason, failed likewise (skipped with
 * --shed-load); a warning is a passed case with its text in the output; an accepted finding is skipped.
 */
export function junitText(report: ProxyReport, redact: (text: string) => string, rule: FailRule = { failOn: 'answer', shedLoad: false }): string {
  const junit = builder.newBuilder()
  for (const { side } of SIDES) {
    const suite = junit.testSuite().name(`appdata-kit proxy: ${side === 'request' ? "the client's requests" : "the installation's answers"}`)
    const mine = report.violations.filter((f) => f.side === side)
    const failing = fails(rule, side)
    if (!mine.some((f) => f.severity === 'violation')) {
      suite.testCase().className(`proxy.${side}`).name(`every ${side} of ${report.exchanges} exchange(s) keeps to the document of release ${report.release}`)
    }
    for (const finding of mine) {
      const testCase = suite
        .testCase()
        .className(`proxy.${side}`)
        .name(redact(findingName(finding)))
      if (finding.severity === 'warning') testCase.standardOutput(redact(findingLine(finding)))
      else if (failing) testCase.failure(redact(findingLine(finding)), 'violation')
      else testCase.skipped().standardOutput(redact(`not failing the run (--fail-on ${rule.failOn}): ${findingLine(finding)}`))
    }
    if (report.notJudged.sides[side] > 0) {
      for (const [reason, count] of Object.entries(report.notJudged.reasons) as Array<[NotJudgedReason, number]>) {
        const line = `${report.notJudged.sides[side]} exchange(s) passed with their ${side} not judged; ${count} for this reason: ${NOT_JUDGED_WORDS[reason]}${reason === 'judgeFailed' && report.notJudged.failure !== undefined ? ` (${report.notJudged.failure})` : ''}`
        const testCase = suite.testCase().className(`proxy.${side}`).name(`not judged: ${reason}`)
        if (failing && !rule.shedLoad) testCase.failure(redact(line), 'not judged')
        else testCase.skipped().standardOutput(redact(`not failing the run (${rule.shedLoad ? '--shed-load' : `--fail-on ${rule.failOn}`}): ${line}`))
      }
    }
    for (const finding of report.ignored.filter((f) => f.side === side)) {
      suite
        .testCase()
        .className(`proxy.${side}`)
        .name(redact(findingName(finding)))
        .skipped()
        .standardOutput(redact(`accepted by --ignore${finding.reason === undefined ? '' : ` (${finding.reason})`}: ${findingLine(finding)}`))
    }
  }
  return junit.build()
}

/** A body kept (its first bytes) as text: JSON indented with secret members masked, a form likewise, bytes by their count. */
function bodyText(body: Buffer, total: number, contentType: string, coding: { encoding?: string; decodedBytes?: number } = {}): string {
  if (total === 0) return ''
  const of = contentType === '' ? '' : ` of ${contentType}`
  if (coding.encoding !== undefined && coding.decodedBytes === undefined) return `[${total} bytes${of}, ${coding.encoding}-encoded, not decoded]`
  // An encoded answer that was decoded shows as the client's HTTP library reads it.
  const whole = coding.decodedBytes ?? total
  const note = coding.decodedBytes === undefined ? '' : `\n… (${coding.encoding}-encoded: ${total} bytes as sent, ${whole} decoded)`
  const cut = whole > body.length ? `\n… (${whole} bytes in all; the first ${body.length} kept)` : ''
  if (body.length === 0) return `[${total} bytes${of}, not kept: over --check-limit]`
  if (!/json|text|xml|urlencoded/i.test(contentType)) return `[${whole} bytes${of}]${note}`
  const text = body.toString('utf8')
  if (/urlencoded/i.test(contentType))
    return `${new URLSearchParams(redactValue(Object.fromEntries(new URLSearchParams(text))) as Record<string, string>).toString()}${cut}${note}`
  if (/json/i.test(contentType)) {
    try {
      return `${JSON.stringify(redactValue(JSON.parse(text)), null, 2)}${cut}${note}`
    } catch {
      // Cut short, or not JSON after all: shown as it came (the secret filter still applies).
    }
  }
  return `${text}${cut}${note}`
}

/** How an exchange ended, as its status line shows it. */
function statusText(exchange: KeptExchange): string {
  switch (exchange.outcome) {
    case 'answered':
      return String(exchange.status)
    case 'broken':
      return `${exchange.status}, broke off`
    case 'abandoned':
      return exchange.status === 0 ? 'the client went away' : `${exchange.status}, the client went away`
    default:
      return `${exchange.status} (the proxy's)`
  }
}

function headerLines(headers: KeptExchange['requestHeaders']): string {
  const lines = Object.entries(redactHeaders(headers)).map(([name, value]) => `${name}: ${value}`)
  return lines.length === 0 ? '(no headers)' : lines.join('\n')
}

function exchangeBlock(exchange: KeptExchange, side: ExchangeSide | undefined, text: (value: string) => string): string {
  const shown = side === undefined ? exchange.observations : exchange.observations.filter((o) => o.side === side)
  const violations = shown.filter((o) => o.severity === 'violation').length
  const warnings = shown.length - violations
  const status = statusText(exchange)
  const findings =
    shown.length === 0
      ? ''
      : `<ul class="findings">${shown.map((o) => `<li class="${o.severity}"><strong>${o.severity}</strong> <code>${text(o.pointer === '' ? '(the request)' : o.pointer)}</code> ${text(o.message)}${o.example === undefined ? '' : ` <span class="muted">came</span> <code>${text(JSON.stringify(o.example))}</code>`}</li>`).join('')}</ul>`
  return `<details class="exchange" id="exchange-${side ?? 'all'}-${exchange.seq}"${side !== undefined && violations > 0 ? ' open' : ''}><summary><strong>${text(exchange.method)}</strong> <code>${text(exchange.url)}</code> → <strong class="status">${text(status)}</strong> <span class="muted">${text(exchange.operationId ?? 'no operation')}, release ${text(exchange.release)}${exchange.beforeSignIn ? ' (newest: before the first sign-in)' : ''}, #${exchange.seq}, ${exchange.durationMs.toFixed(0)} ms</span>${violations > 0 ? ` <span class="violation">${violations} violation(s)</span>` : ''}${warnings > 0 ? ` <span class="warning">${warnings} warning(s)</span>` : ''}</summary>
${findings}${exchange.reason === undefined ? '' : `<p class="muted">${text(exchange.reason)}</p>`}
<div class="grid"><div><h4>Request</h4><pre>${text(headerLines(exchange.requestHeaders))}</pre>${exchange.requestBytes === 0 ? '' : `<pre>${text(bodyText(exchange.requestBody, exchange.requestBytes, String(exchange.requestHeaders['content-type'] ?? '')))}</pre>`}</div>
<div><h4>Answer ${text(status)} <span class="muted">${text(exchange.answerContentType)}</span></h4><pre class="answer">${text(bodyText(exchange.answerBody, exchange.answerBytes, exchange.answerContentType, { ...(exchange.answerEncoding === undefined ? {} : { encoding: exchange.answerEncoding }), ...(exchange.decodedBytes === undefined ? {} : { decodedBytes: exchange.decodedBytes }) }) || '(empty)')}</pre></div></div></details>`
}

/** The findings as a table; the accepted ones (`--ignore`) with the reason of the entry that accepted each. */
function findingsTable(findings: readonly IgnoredFinding[], text: (value: string) => string, accepted = false): string {
  if (findings.length === 0) return ''
  const rows = findings.map(
    (f) =>
      `<tr class="${f.severity}">${accepted ? `<td>${text(f.reason ?? '')}</td>` : ''}<td>${f.severity}</td><td>${text(f.operationId ?? '(none)')}<br><span class="muted">${text(`${f.method} ${f.path}`)}</span></td><td><code>${text(f.pointer === '' ? '(the request)' : f.pointer)}</code></td><td>${text(f.message)}</td><td>${f.example === undefined ? '' : `<code>${text(JSON.stringify(f.example))}</code>`}</td><td>${f.count}</td><td>${f.status}</td><td>${text(f.release)}${f.beforeSignIn === true ? ' <span class="muted">(before the first sign-in)</span>' : ''}</td></tr>`,
  )
  return `<table class="findings-table"><thead><tr>${accepted ? '<th>Why accepted</th>' : ''}<th>Severity</th><th>Operation</th><th>Pointer</th><th>What the document expects</th><th>What came</th><th>Count</th><th>Status</th><th>Release</th></tr></thead><tbody>
${rows.join('\n')}
</tbody></table>`
}

/** The exchanges that passed unjudged, by reason, as the summary says them. */
function notJudgedText(report: ProxyReport, text: (value: string) => string): string {
  const { notJudged } = report
  const pending = report.pending === undefined ? '' : `<p class="muted">${report.pending} exchange(s) still waiting to be judged.</p>`
  if (notJudged.count === 0) return pending
  const reasons = (Object.entries(notJudged.reasons) as Array<[NotJudgedReason, number]>)
    .map(([reason, count]) => `<li><code>${reason}</code> ${count}: ${text(NOT_JUDGED_WORDS[reason])}</li>`)
    .join('')
  const failure = notJudged.failure === undefined ? '' : `<p class="muted">${text(notJudged.failure)}</p>`
  return `<div id="not-judged"><p class="violation">${notJudged.count} exchange(s) passed on but not judged (requests ${notJudged.sides.request}, answers ${notJudged.sides.answer}):</p><ul>${reasons}</ul>${failure}</div>${pending}`
}

export interface HtmlInput {
  report: ProxyReport
  exchanges: readonly KeptExchange[]
  /** When the report was written (ISO). */
  writtenAt: string
}

/** The HTML page: a summary, a section per side (its findings, then the exchanges that showed them), accepted findings, the recent exchanges. */
export function htmlText(input: HtmlInput, redact: (value: string) => string): string {
  const text = (value: string) => escapeHtml(redact(value))
  const { report, exchanges } = input
  const title = redact(`appdata-kit proxy: ${report.target}`)
  const count = (side: ExchangeSide, severity: Finding['severity']) => report.violations.filter((f) => f.side === side && f.severity === severity).length
  const summary = `<section class="summary"><h2>Summary</h2>
<p>${report.exchanges} exchange(s) passed on to ${text(report.target)}, judged by the document of release ${text(report.release)} (${text(RELEASE_FROM[report.releaseFrom])}).</p>
<table><thead><tr><th>Side</th><th>Violations</th><th>Warnings</th><th>Accepted (--ignore)</th><th>Not judged</th></tr></thead><tbody>
${SIDES.map(({ side, title: name }) => `<tr id="summary-${side}"><td>${name}</td><td class="${count(side, 'violation') > 0 ? 'violation' : ''}">${count(side, 'violation')}</td><td>${count(side, 'warning')}</td><td>${report.ignored.filter((f) => f.side === side).length}</td><td class="${report.notJudged.sides[side] > 0 ? 'violation' : ''}">${report.notJudged.sides[side]}</td></tr>`).join('\n')}
</tbody></table>${notJudgedText(report, text)}${report.unlisted === undefined ? '' : `<p class="muted">${report.unlisted} more finding(s) past the report's limit, counted but not listed.</p>`}</section>`
  const sides = SIDES.map(({ side, title: name }) => {
    const findings = report.violations.filter((f) => f.side === side)
    const shown = exchanges.filter((exchange) => exchange.observations.some((o) => o.side === side))
    const body =
      findings.length === 0
        ? `<p class="kept">Every ${side}${report.notJudged.sides[side] > 0 ? ' judged' : ''} kept to the document.</p>`
        : `${findingsTable(findings, text)}<h3>Exchanges with findings on this side</h3>${shown.map((exchange) => exchangeBlock(exchange, side, text)).join('\n')}`
    return `<section class="side" id="side-${side}"><h2>${name}</h2>\n${body}</section>`
  })
  const ignored =
    report.ignored.length === 0 ? '' : `<section id="ignored"><h2>Accepted findings (--ignore)</h2>${findingsTable(report.ignored, text, true)}</section>`
  const recent = `<section id="exchanges"><h2>Exchanges</h2><p class="muted">The first exchange of each finding, and the most recent ones; bodies cut at 8 KB.</p>${exchanges.map((exchange) => exchangeBlock(exchange, undefined, text)).join('\n')}</section>`
  return htmlPage({ title, writtenAt: input.writtenAt, style: STYLE, sections: [summary, ...sides, ignored, recent] })
}

const RELEASE_FROM: Record<ProxyReport['releaseFrom'], string> = {
  given: 'given with --product-version',
  'sign-in': 'the sign-in path the client used',
  probe: "the target's sign-in paths, probed at start",
  newest: 'the newest: no sign-in seen',
}

/** The proxy's own styles, beside the page's shared ones: the colours of violations and warnings, the exchanges as blocks. */
const STYLE = `.violation{color:#a11;font-weight:600}.warning{color:#8a5a00}.kept{color:#145c2c}tr.violation td{background:#fdecec}tr.warning td{background:#fff4dc}
.exchange{margin:.25rem 0;border-left:3px solid #d6dbe3;padding-left:.5rem}.exchange>summary{cursor:pointer}.findings{margin:.3rem 0}.findings li.violation{font-weight:400}`
