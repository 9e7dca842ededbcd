/**
 * Secrets a client puts in a URL's query (`?password=…`, `apiKey=…`, `token=…`: any name the
 * journal calls secret, in any letter case or percent-encoded) are redacted in every report the
 * proxy writes (JSON, JUnit, HTML, the usage file, what it prints), by the same rule as secret
 * headers and body members; the other parameters stay as sent.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { stopStarted } from '../cli/processes.ts'
import { isSecretName } from '../../src/policy/redact.ts'
import { CLIENT_HEADERS, ITEMS, plantedTarget, proxy, stop } from './support.ts'

const dir = sharedTempDir('appdata-kit-proxy-redaction-')
afterEach(stopStarted)

/** Secret parameters as clients write them, with values no other text of a report holds. */
const SECRETS: Array<[name: string, value: string]> = [
  ['password', 'hunter2-in-the-query'],
  ['apiKey', 'k3y-0f-the-client-9'],
  ['token', 'tok3n-in-the-url-77'],
  ['PASSWORD', 'upper-case-s3cret'],
  ['client_secret', 'p@ss:word/with space'],
  ['pass%77ord', 'encoded-name-s3cret'],
]

let target: Awaited<ReturnType<typeof plantedTarget>>
beforeAll(async () => {
  target = await plantedTarget({})
})
afterAll(async () => {
  await target?.close()
})

describe('appdata-kit proxy and secrets in URLs', () => {
  it('writes no value of a secret query parameter in the JSON report, JUnit, the HTML page, the usage file or its output, and keeps the other parameters', async () => {
    for (const [name] of SECRETS) expect(isSecretName(decodeURIComponent(name)), name).toBe(true)
    const files = { report: join(dir, 'report.json'), junit: join(dir, 'report.xml'), html: join(dir, 'report.html'), usage: join(dir, 'usage.json') }
    const run = await proxy(target.url, [
      '--product-version',
      '3.0.19',
      '--fail-on',
      'none',
      '--report',
      files.report,
      '--junit',
      files.junit,
      '--html',
      files.html,
      '--record-usage',
      files.usage,
    ])
    const query = [...SECRETS.map(([name, value]) => `${name}=${encodeURIComponent(value)}`), 'keep=visible-value'].join('&')
    // Get Items takes no URL parameter: each is reported (a warning), and the exchange is kept for the HTML page.
    const answer = await fetch(`${run.url}${ITEMS}?${query}`, { method: 'POST', headers: CLIENT_HEADERS, body: JSON.stringify({ query: '$top=1' }) })
    expect(answer.status).toBe(200)
    expect(await stop(run)).toBe(0)
    const texts = {
      report: readFileSync(files.report, 'utf8'),
      junit: readFileSync(files.junit, 'utf8'),
      html: readFileSync(files.html, 'utf8'),
      usage: readFileSync(files.usage, 'utf8'),
      stdout: run.stdout,
      stderr: run.stderr,
    }
    for (const [what, text] of Object.entries(texts)) {
      for (const [name, value] of SECRETS) {
        for (const form of new Set([value, encodeURIComponent(value), new URLSearchParams({ v: value }).toString().slice(2)]))
          expect(text, `${what}: ${name}`).not.toContain(form)
      }
    }
    // The page shows the exchange's URL, each secret replaced, the rest as sent.
    expect(texts.html).toContain(
      `${ITEMS}?password=[redacted]&amp;apiKey=[redacted]&amp;token=[redacted]&amp;PASSWORD=[redacted]&amp;client_secret=[redacted]&amp;pass%77ord=[redacted]&amp;keep=visible-value`,
    )
    expect(texts.report).toContain('/query/keep')
  })
})
