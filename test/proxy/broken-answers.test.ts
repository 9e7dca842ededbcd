/**
 * Every exchange that breaks is reported, as an answer-side violation that fails `--fail-on answer`,
 * in every format a team reads (the JSON report, JUnit, the HTML page, the summary at stop): an
 * answer cut off mid-body, a connection reset before and after the answer's head, a target silent
 * past --timeout, and interim answers no client asked for (a 101 to a plain POST, a 102), which the
 * client gets as the proxy's own 502 at once. 100 and 103 are legal: the client gets the answer.
 */
import { request as httpRequest } from 'node:http'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { launchChromium } from '../helpers/browser.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { stopStarted } from '../cli/processes.ts'
import { until } from '../helpers/until.ts'
import type { ProxyReport } from '../../src/commands/proxy/inspector.ts'
import { CLIENT_HEADERS, ITEMS, getItems, json, named, plantedTarget, proxy, report, stop, validRow, type Plant } from './support.ts'

const dir = sharedTempDir('appdata-kit-proxy-broken-')
afterEach(stopStarted)

/** The held answers of the `silent` plant, ended by the test. */
const held: Array<() => void> = []
/** Resets the cut-reset plant's connection (set when it has sent its head). */
let resetCut: () => void = () => undefined

const plants = {
  // The head and part of the body, then the connection closes.
  cut: (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' })
    response.write('[{"Id":1,"TIMESTAMP":1,', () => response.socket?.destroy())
  },
  // The head and part of the body, then a TCP reset.
  // The reset comes once the client holds the head (the test lets it go): a reset that overtook the
  // head would be a reset before any answer, the next plant's case.
  'cut-reset': (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' })
    response.write('[{"Id":1,')
    resetCut = () => response.socket?.resetAndDestroy()
  },
  // A reset before any answer.
  reset: (request) => request.socket.resetAndDestroy(),
  // Nothing at all until the test lets go.
  silent: (_request, response) => held.push(() => response.socket?.destroy()),
  // A 101 to a request that asked for no upgrade.
  '101': (request) => request.socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n'),
  // 102 Processing, then nothing.
  '102': (request) => request.socket.write('HTTP/1.1 102 Processing\r\n\r\n'),
  // 103 Early Hints, then the answer: legal, passed on.
  '103': (_request, response) => {
    response.writeEarlyHints({ link: '</rows.css>; rel=preload; as=style' })
    json(response, 200, [validRow(1)])
  },
  // 100 Continue unasked, then the answer: legal.
  '100': (_request, response) => {
    response.writeContinue()
    json(response, 200, [validRow(1)])
  },
} satisfies Record<string, Plant>

let target: Awaited<ReturnType<typeof plantedTarget>>
let browser: Browser
beforeAll(async () => {
  target = await plantedTarget(plants)
  ;({ browser } = await launchChromium())
})
afterAll(async () => {
  for (const release of held) release()
  await target?.close()
  await browser?.close()
})

/** Interim answers and the final one, as Node's client receives them through the proxy. */
function interim(base: string, plant: string): Promise<{ informational: number[]; status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const informational: number[] = []
    const sent = httpRequest(`${base}${ITEMS}`, { method: 'POST', headers: { ...CLIENT_HEADERS, 'x-plant': plant } }, (answer) => {
      let body = ''
      answer.on('data', (chunk: Buffer) => (body += chunk.toString()))
      answer.on('end', () => resolve({ informational, status: answer.statusCode ?? 0, body }))
    })
    sent.on('information', (info) => informational.push(info.statusCode))
    sent.on('error', reject)
    sent.end(JSON.stringify({ query: '$top=1' }))
  })
}

describe('appdata-kit proxy and the exchanges that break', () => {
  it('reports a cut answer, resets before and after the head, a timeout and an unasked 101 and 102 in the JSON report, JUnit, the HTML page and the summary, and fails --fail-on answer', async () => {
    const files = { report: join(dir, 'broken.json'), junit: join(dir, 'broken.xml'), html: join(dir, 'broken.html') }
    const run = await proxy(target.url, [
      '--timeout',
      '500',
      '--product-version',
      '3.0.19',
      '--report',
      files.report,
      '--junit',
      files.junit,
      '--html',
      files.html,
    ])

    // The cut answers reach the client cut: its fetch fails reading the body, never sees a whole one.
    for (const plant of ['cut', 'cut-reset']) {
      const answer = await getItems(run.url, plant)
      expect(answer.status).toBe(200)
      if (plant === 'cut-reset') resetCut()
      await expect(answer.text(), plant).rejects.toThrow()
    }
    const reset = await getItems(run.url, 'reset')
    expect(reset.status).toBe(502)
    expect(await reset.json()).toMatchObject({ code: 'TARGET_UNREACHABLE', detail: expect.stringContaining('closed the connection without an answer') })
    const silent = await getItems(run.url, 'silent')
    expect(silent.status).toBe(504)
    expect(await silent.json()).toMatchObject({ code: 'TARGET_TIMEOUT', detail: expect.stringContaining('500 ms') })
    // An unasked 101 or 102 is no answer the client can read: the proxy's own 502 at once, not --timeout's 504 nor a hang.
    for (const [plant, words] of [
      ['101', '101 Switching Protocols'],
      ['102', '102 Processing'],
    ] as const) {
      const answer = await getItems(run.url, plant)
      expect(answer.status, plant).toBe(502)
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(await answer.json()).toMatchObject({ status: 502, code: 'TARGET_BROKEN_ANSWER', detail: expect.stringContaining(words) })
    }

    const found = (await report(run)).violations
    const answers = found.filter((f) => f.side === 'answer')
    expect(answers.every((f) => f.severity === 'violation' && f.operationId === 'queryItems')).toBe(true)
    // A close and a reset mid-body are one finding: the target closed the connection.
    expect(named(found, 'answer', 'queryItems', '/body')).toMatchObject([
      { status: 200, count: 2, message: 'must be whole: it broke off after its head (the target closed the connection)' },
    ])
    expect(
      named(found, 'answer', 'queryItems', '/status')
        .map((f) => [f.status, f.message])
        .sort(),
    ).toEqual([
      [502, "must be the target's answer: the target answered 101 Switching Protocols to a request that asked for no upgrade; the proxy answered 502"],
      [502, "must be the target's answer: the target answered 102 Processing, an interim status no client asked for; the proxy answered 502"],
      [502, "must be the target's answer: the target closed the connection without an answer (ECONNRESET); the proxy answered 502"],
      [504, "must be the target's answer: the target sent nothing for 500 ms (--timeout); the proxy answered 504"],
    ])
    expect(answers).toHaveLength(5)
    expect(found.filter((f) => f.side === 'request')).toEqual([])

    expect(await stop(run)).toBe(1)
    const json = JSON.parse(readFileSync(files.report, 'utf8')) as ProxyReport
    expect(json.violations.filter((f) => f.side === 'answer' && f.severity === 'violation')).toHaveLength(5)
    expect(json.notJudged).toEqual({ count: 0, reasons: {}, sides: { request: 0, answer: 0 } })
    const junit = readFileSync(files.junit, 'utf8')
    expect(junit.match(/<failure /g)).toHaveLength(5)
    for (const words of [
      'it broke off after its head',
      '101 Switching Protocols',
      '102 Processing',
      'without an answer (ECONNRESET)',
      'sent nothing for 500 ms',
    ]) {
      expect(junit, words).toContain(words)
      expect(run.stdout, words).toMatch(new RegExp(`VIOLATION answer queryItems (200|502|504) /(body|status): [^\\n]*${words.replace(/[()]/g, '\\$&')}`))
    }
    expect(run.stdout).toContain('--fail-on answer: exit 1')

    // The HTML page shows each exchange with the body the client received: the proxy's own problem, or what came before the cut.
    const page = await browser.newPage()
    await page.goto(`file://${files.html}`)
    expect(await page.locator('#summary-answer td').nth(1).innerText()).toBe('5')
    const exchanges = page.locator('#exchanges details.exchange')
    const summaries = await exchanges.locator('summary').allInnerTexts()
    const bodies = await exchanges.locator('pre.answer').allTextContents()
    const shown = Object.fromEntries(summaries.map((summary, i) => [/→ (.+?) queryItems/.exec(summary)?.[1] ?? summary, bodies[i]]))
    expect(Object.keys(shown).sort()).toEqual(['200, broke off', "502 (the proxy's)", "504 (the proxy's)"])
    for (const [plant, status] of [
      ['101', 502],
      ['102', 502],
      ['silent', 504],
      ['reset', 502],
    ] as const) {
      const index = summaries.findIndex(
        (summary, i) =>
          summary.includes(`${status} (the proxy's)`) &&
          bodies[i]?.includes(plant === 'silent' ? 'TARGET_TIMEOUT' : plant === 'reset' ? 'ECONNRESET' : `answered ${plant}`),
      )
      expect(index, plant).toBeGreaterThanOrEqual(0)
      expect(JSON.parse(bodies[index] as string), plant).toMatchObject({ status, code: expect.stringMatching(/^TARGET_/) })
    }
    expect(bodies.filter((body) => body.startsWith('[{"Id":1,'))).toHaveLength(2)
    expect(bodies).not.toContain('(empty)')
    await page.close()
  }, 60_000)

  it('passes 103 Early Hints on to the client and takes an unasked 100 Continue in stride: both are legal, and the answer after them is judged as any other', async () => {
    const run = await proxy(target.url, ['--product-version', '3.0.19'])
    const hinted = await interim(run.url, '103')
    expect(hinted).toMatchObject({ informational: [103], status: 200 })
    expect(JSON.parse(hinted.body)).toEqual([validRow(1)])
    const continued = await interim(run.url, '100')
    expect(continued).toMatchObject({ status: 200 })
    expect(continued.informational).not.toContain(100)
    expect(JSON.parse(continued.body)).toEqual([validRow(1)])
    expect((await report(run)).violations).toEqual([])
    expect(await stop(run)).toBe(0)
  })

  it('counts a client that went away as a warning on its side, not as a broken answer', async () => {
    const run = await proxy(target.url, ['--product-version', '3.0.19', '--fail-on', 'any'])
    const gone = new AbortController()
    const before = held.length
    const asked = getItems(run.url, 'silent', { signal: gone.signal })
    // The target holds the request; the client gives up on it.
    await until(() => held.length > before, 'the target to hold the request')
    gone.abort()
    await expect(asked).rejects.toThrow()
    const found = (await report(run)).violations
    expect(found).toMatchObject([
      { side: 'request', severity: 'warning', pointer: '', message: 'ended before the answer was whole: the client went away (the answer is not judged)' },
    ])
    expect(await stop(run)).toBe(0)
  })
})
