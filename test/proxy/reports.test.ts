/**
 * The proxy's reports as a team reads them (src/commands/proxy/reports.ts, findings.ts): header pointers
 * in the document's spelling on both sides, an ignore file written with the older lower-case
 * spelling still accepting them, and an HTML page that fits a 1,280 px window in Chromium however
 * long the pointers, values and messages it holds: every column inside the window, Count included,
 * and no cell's text cut or spilling over.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { launchChromium } from '../helpers/browser.ts'
import { misfits, REPORT_WIDTH } from '../helpers/layout.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { stopStarted } from '../cli/processes.ts'
import { CLIENT_HEADERS, getItems, json, named, plantedTarget, proxy, report, stop, validRow, type Plant } from './support.ts'

const dir = sharedTempDir('appdata-kit-proxy-reports-')
afterEach(stopStarted)

const DOWNLOAD = '/ExplorerApi/api/attachments/download'
/** A value with no place to break a line: as long as a report's examples get (240 characters) and more. */
const LONG = 'z'.repeat(2000)

const plants = {
  // A page whose row has a long text where the document says integer.
  'long-id': (_request, response) => json(response, 200, [{ ...validRow(1), Id: LONG }]),
  // A maintenance page where a JSON page belongs.
  html: (_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html' })
    response.end('<html>maintenance</html>')
  },
  // A download without the Content-Disposition the document requires.
  pdf: (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/pdf' })
    response.end('%PDF-1.4 not really')
  },
} satisfies Record<string, Plant>

let target: Awaited<ReturnType<typeof plantedTarget>>
let browser: Browser
beforeAll(async () => {
  target = await plantedTarget(plants)
  ;({ browser } = await launchChromium())
})
afterAll(async () => {
  await target?.close()
  await browser?.close()
})

/** A request that leaves out the ApplicationId header, an answer of the wrong media type and a download without its Content-Disposition. */
async function headerFaults(base: string): Promise<void> {
  const { ApplicationId: _left, ...withoutApplication } = CLIENT_HEADERS
  expect(
    (await fetch(`${base}/ExplorerApi/api/items`, { method: 'POST', headers: withoutApplication, body: JSON.stringify({ query: '$top=1' }) })).status,
  ).toBe(200)
  expect(await (await getItems(base, 'html')).text()).toBe('<html>maintenance</html>')
  expect(
    (await fetch(`${base}${DOWNLOAD}`, { method: 'POST', headers: { ...CLIENT_HEADERS, 'x-plant': 'pdf' }, body: JSON.stringify({ ids: [1] }) })).status,
  ).toBe(200)
}

describe("the proxy's reports", () => {
  it('spell header pointers as the document does, on both sides', async () => {
    const run = await proxy(target.url, ['--product-version', '3.0.19', '--fail-on', 'any'])
    await headerFaults(run.url)
    const found = (await report(run)).violations
    expect(named(found, 'request', 'queryItems', '/headers/ApplicationId')).toMatchObject([{ severity: 'violation' }])
    expect(named(found, 'answer', 'queryItems', '/headers/Content-Type')).toMatchObject([{ severity: 'violation', example: 'text/html' }])
    expect(named(found, 'answer', 'downloadAttachment', '/headers/Content-Disposition')).toMatchObject([{ severity: 'violation' }])
    expect(found.filter((f) => f.pointer.startsWith('/headers/') && /^\/headers\/[a-z-]+$/.test(f.pointer))).toEqual([])
    expect(await stop(run)).toBe(1)
  })

  it('take an ignore file (YAML, "*" for any) written with the older lower-case header names as the same findings, each reason in every report', async () => {
    const ignore = join(dir, 'lower-case.yaml')
    writeFileSync(
      ignore,
      [
        '# accepted at staging',
        '- side: request',
        '  operationId: queryItems',
        '  pointer: /headers/applicationid',
        '  reason: the client sends it from the next release on',
        '- side: answer',
        '  operationId: "*"',
        '  pointer: /headers/content-type',
        '  reason: the maintenance page of <staging> & co',
        '- side: "*"',
        '  operationId: downloadAttachment',
        '  pointer: /headers/content-disposition',
        '  reason: the gateway drops it',
        '',
      ].join('\n'),
    )
    const [json, junit, html] = ['ignored.json', 'ignored.xml', 'ignored.html'].map((name) => join(dir, name)) as [string, string, string]
    const run = await proxy(target.url, [
      '--product-version',
      '3.0.19',
      '--fail-on',
      'any',
      '--ignore',
      ignore,
      '--report',
      json,
      '--junit',
      junit,
      '--html',
      html,
    ])
    await headerFaults(run.url)
    const found = await report(run)
    expect(found.violations).toEqual([])
    expect(found.ignored.map((f) => [f.pointer, f.reason]).sort()).toEqual([
      ['/headers/ApplicationId', 'the client sends it from the next release on'],
      ['/headers/Content-Disposition', 'the gateway drops it'],
      ['/headers/Content-Type', 'the maintenance page of <staging> & co'],
    ])
    expect(await stop(run)).toBe(0)
    const written = JSON.parse(readFileSync(json, 'utf8')) as typeof found
    expect(written.ignored.map((f) => f.reason).sort()).toEqual([
      'the client sends it from the next release on',
      'the gateway drops it',
      'the maintenance page of <staging> & co',
    ])
    expect(readFileSync(junit, 'utf8')).toContain('accepted by --ignore (the gateway drops it)')
    const page = readFileSync(html, 'utf8')
    expect(page).toContain('<td>the maintenance page of &lt;staging&gt; &amp; co</td>')
    expect(page).toContain('<th>Why accepted</th>')
  })

  it(`write an HTML page that fits a ${REPORT_WIDTH} px window however long its pointers, values and messages: every column inside it, no cell's text cut`, async () => {
    const html = join(dir, 'long.html')
    // An accepted finding with a long reason: the accepted findings' table, with its reason column, fits too.
    const ignore = join(dir, 'long-reason.yaml')
    writeFileSync(ignore, `- operationId: downloadAttachment\n  pointer: /headers/Content-Disposition\n  reason: ${'r'.repeat(600)}\n`)
    const run = await proxy(target.url, ['--product-version', '3.0.19', '--html', html, '--ignore', ignore])
    // A member no schema names, with a long name and a long value (a warning on the client's side).
    expect((await getItems(run.url, 'valid', { body: JSON.stringify({ query: '$top=1', [`x${'y'.repeat(300)}`]: LONG }) })).status).toBe(200)
    expect((await getItems(run.url, 'long-id')).status).toBe(200)
    await headerFaults(run.url)
    const found = await report(run)
    expect(found.violations.length).toBeGreaterThanOrEqual(4)
    expect(found.ignored).toHaveLength(1)
    expect(await stop(run)).toBe(1)

    const page = await browser.newPage()
    await page.goto(`file://${html}`)
    // The tables hold what made them wide: the long pointer, the example cut at 240 characters.
    expect(await page.locator('#side-request table.findings-table tr.warning td:nth-child(3)').first().innerText()).toMatch(/^\/body\/xy{300}$/)
    expect(await page.locator('#side-answer table.findings-table').innerText()).toContain(`"${'z'.repeat(100)}`)
    expect(await page.locator('table.findings-table th').allInnerTexts()).toContain('Count')
    expect(await page.locator('#ignored table.findings-table td').first().innerText()).toBe('r'.repeat(600))
    const laid = await misfits(page)
    expect(laid.columnsOutside).toEqual([])
    expect(laid.clippedCells).toEqual([])
    expect(laid.pageWidth).toBeLessThanOrEqual(REPORT_WIDTH)
    await page.close()
  }, 60_000)
})
