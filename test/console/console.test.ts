import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { IDS, startTestMock, type TestClient } from '../helpers/http.ts'
import { launchChromium } from '../helpers/browser.ts'

/** `npm run screenshot:console` sets this to write the docs' picture of the console. */
const SCREENSHOT = process.env.CONSOLE_SCREENSHOT

describe('mock console at /__mock/ui, in Chromium', () => {
  let mock: TestClient
  let token: string
  let browser: Browser
  let page: Page
  const consoleErrors: string[] = []
  /** Origin headers of the page's own requests to the control plane, by path. */
  const origins: Array<{ method: string; path: string; origin: string | undefined }> = []
  /** The path of every request the page made. */
  const requested: string[] = []

  beforeAll(async () => {
    mock = await startTestMock()
    token = await mock.signIn()
    mock.mock.clearRequests()
    ;({ browser } = await launchChromium())
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.on('console', (message) => {
      if (message.type() !== 'error') return
      // Chromium logs every 4xx a page fetches; the API refusals this test provokes (a request without a session, a bad $filter) are meant.
      if (message.text().startsWith('Failed to load resource') && new URL(message.location().url).pathname.startsWith('/ExplorerApi/')) return
      consoleErrors.push(message.text())
    })
    page.on('pageerror', (error) => consoleErrors.push(error.message))
    page.on('request', async (request) => {
      const url = new URL(request.url())
      requested.push(url.pathname)
      if (url.pathname.startsWith('/__mock/') && request.method() !== 'GET')
        origins.push({ method: request.method(), path: url.pathname, origin: (await request.allHeaders()).origin })
    })
    await page.goto(`${mock.url}/__mock/ui`, { waitUntil: 'load' })
  })

  afterAll(async () => {
    await browser?.close()
    await mock?.close()
  })

  const tab = (name: string) => page.getByRole('tab', { name }).click()

  it('declares its own icon, so the browser asks for no /favicon.ico and the journal stays free of it', async () => {
    // A browser that fetches icons (Debian's Chromium does, the bundled headless one does not) asked for
    // /favicon.ico: a 404 at the top of the journal and an error in the browser's console.
    expect(await page.locator('link[rel~="icon"]').count()).toBe(1)
    expect(await page.locator('link[rel~="icon"]').getAttribute('href')).toMatch(/^data:image\/svg\+xml,/)
    await page.getByText('No requests yet').waitFor({ timeout: 5_000 })
    expect(requested).not.toContain('/favicon.ico')
    expect(mock.mock.requests().map((entry) => entry.url)).toEqual([])
  })

  it('opens with no console error and an empty journal, then shows a request made after it loaded within 5 s', async () => {
    await page.getByText('No requests yet').waitFor({ timeout: 5_000 })
    // A request from the page itself, as a developer would try one in the browser's console.
    const status = await page.evaluate(
      async () =>
        (await fetch('/ExplorerApi/api/items', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"$top=1"}' })).status,
    )
    expect(status).toBe(401)
    const entry = page.locator('#journal details.entry').first()
    await entry.waitFor({ timeout: 5_000 })
    expect(await entry.locator('summary').innerText()).toContain('/ExplorerApi/api/items')
    // One made outside the page (a test, an app) appears too, newest first.
    expect((await mock.items(token, '$top=1')).status).toBe(200)
    await page.locator('#journal details.entry').nth(1).waitFor({ timeout: 5_000 })
    expect(await page.locator('#journal details.entry summary .status').first().innerText()).toBe('200')
    expect(consoleErrors).toEqual([])
  })

  it('filters the journal by status and problem code, and shows an entry with its answer, problem and curl', async () => {
    await page.getByLabel('Status').fill('401')
    await expect.poll(() => page.locator('#journal details.entry').count(), { timeout: 5_000 }).toBe(1)
    await page.getByLabel('Status').fill('')
    await page.getByLabel('Problem code').fill('NO_SUCH_CODE')
    await page.getByText('No request matches the filter.').waitFor({ timeout: 5_000 })
    await page.getByLabel('Problem code').fill('')
    await page.getByLabel('Operation').fill('queryItems')
    await page.getByLabel('Status').fill('4xx')
    const entry = page.locator('#journal details.entry').first()
    await expect.poll(() => page.locator('#journal details.entry').count(), { timeout: 5_000 }).toBe(1)
    await entry.locator('summary').click()
    const problemCode = await entry.locator('summary .code').innerText()
    expect(problemCode.trim()).not.toBe('')
    await entry.getByText('Problem', { exact: true }).waitFor()
    await entry.getByRole('button', { name: 'Copy as curl' }).click()
    const curl = await entry.locator('pre.curl').innerText()
    expect(curl).toContain(`curl -X POST '${mock.url}/ExplorerApi/api/items'`)
    expect(curl).toContain(`--data-raw '{"query":"$top=1"}'`)
    // A request made meanwhile redraws the list; the entry stays open and its command shown.
    const counter = page.getByText(/ shown of \d+ recorded/)
    const before = await counter.innerText()
    expect((await mock.items(token, '$top=2')).status).toBe(200)
    await expect.poll(() => counter.innerText(), { timeout: 5_000 }).not.toBe(before)
    expect(await entry.getAttribute('open')).not.toBeNull()
    expect(await entry.locator('pre.curl').innerText()).toBe(curl)
    for (const label of ['Operation', 'Status']) await page.getByLabel(label).fill('')
  })

  it("shows the fixture's applications and opens a master row with its lines, attachments and row version", async () => {
    await tab('Data')
    await page.locator('button.app', { hasText: 'Orders' }).waitFor({ timeout: 5_000 })
    expect(await page.locator('button.app strong').allInnerTexts()).toEqual(['Orders', 'Suppliers', 'Deliveries'])
    await page.getByText('rows 1–20 of 25').waitFor({ timeout: 5_000 })
    // The mock's own $filter language; a refused filter says why, beside the box.
    await page.getByLabel('$filter').fill("Status eq 'Shipped' and")
    await page.getByLabel('$filter').press('Enter')
    await page.locator('[role=alert]').waitFor({ timeout: 5_000 })
    expect(await page.locator('[role=alert]').innerText()).toMatch(/^[A-Z_]+: /)
    await page.getByLabel('$filter').fill('Id eq 1')
    await page.getByLabel('$filter').press('Enter')
    await page.getByText('rows 1–1 of 1').waitFor({ timeout: 5_000 })
    await page.locator('tr[data-id="1"]').focus()
    await page.keyboard.press('Enter')
    const lines = page.locator('section.detail[data-relation="OrderLines"] tbody tr')
    await expect.poll(() => lines.count(), { timeout: 5_000 }).toBe(2)
    expect(await page.locator('section.detail').innerText()).toContain('Pallet wrap film 500 mm')
    expect((await page.locator('code.row-version').innerText()).trim()).not.toBe('')
    const downloadEvent = page.waitForEvent('download')
    await page.getByRole('button', { name: 'invoice.pdf' }).click()
    expect((await downloadEvent).suggestedFilename()).toBe('invoice.pdf')
    if (SCREENSHOT !== undefined) {
      mkdirSync(dirname(SCREENSHOT), { recursive: true })
      await page.screenshot({ path: SCREENSHOT, fullPage: false })
    }
  })

  it("leaves the console's own API requests out of the journal view unless asked", async () => {
    await tab('Requests')
    for (const label of ['Operation', 'Status', 'Problem code']) await page.getByLabel(label).fill('')
    const entries = page.locator('#journal details.entry')
    await entries.first().waitFor({ timeout: 5_000 })
    const shown = await entries.count()
    expect(await page.locator('#journal').innerText()).not.toContain('/connect/token')
    await page.getByLabel("the console's own").check()
    await expect.poll(() => entries.count(), { timeout: 5_000 }).toBeGreaterThan(shown)
    expect(await page.locator('#journal').innerText()).toContain('/identityprovider/acme/connect/token')
    await page.getByLabel("the console's own").uncheck()
  })

  it('draws the journal again after a poll that failed, though nothing changed meanwhile', async () => {
    await tab('Requests')
    const entries = page.locator('#journal details.entry')
    await entries.first().waitFor({ timeout: 5_000 })
    const journal = (url: URL) => url.pathname === '/__mock/requests'
    const errorsBefore = consoleErrors.length
    let failed: string[] = []
    try {
      await page.route(journal, (route) => route.abort())
      await page.locator('#journal [role=alert]').waitFor({ timeout: 5_000 })
      await page.unroute(journal)
      await entries.first().waitFor({ timeout: 5_000 })
    } finally {
      await page.unroute(journal)
      // The browser logs the polls it failed: those, and only those, are this test's doing.
      failed = consoleErrors.splice(errorsBefore)
    }
    expect(failed.length).toBeGreaterThan(0)
    for (const error of failed) expect(error).toBe('Failed to load resource: net::ERR_FAILED')
  })

  it('adds a fault that makes the next request fail, and removes it', async () => {
    await tab('Faults and clock')
    await page.getByText('No fault rules').waitFor({ timeout: 5_000 })
    await page.getByLabel('Operation').fill('queryItems')
    await page.getByLabel('Status').fill('503')
    await page.getByLabel('Times').fill('1')
    await page.getByRole('button', { name: 'Add fault' }).click()
    await page.getByRole('button', { name: /^Remove fault \d+ \(queryItems\)$/ }).waitFor({ timeout: 5_000 })
    expect(mock.mock.faults().rules).toMatchObject([{ operationId: 'queryItems', status: 503, remaining: 1 }])
    expect((await mock.post('/ExplorerApi/api/items', token, { query: '$top=1' }, { unchecked: true })).status).toBe(503)
    expect((await mock.items(token, '$top=1')).status).toBe(200)
    await page.getByLabel('Operation').fill('getIdentities')
    await page.getByRole('button', { name: 'Add fault' }).click()
    await page.getByRole('button', { name: /^Remove fault \d+ \(getIdentities\)$/ }).click()
    await page.getByText('No fault rules').waitFor({ timeout: 5_000 })
    expect(mock.mock.faults().rules).toEqual([])
    const before = Date.parse(mock.mock.clock().now)
    await page.getByLabel('Advance by seconds').fill('3600')
    await page.getByRole('button', { name: 'Advance clock' }).click()
    await expect.poll(() => Date.parse(mock.mock.clock().now) - before, { timeout: 5_000 }).toBeGreaterThanOrEqual(3_600_000)
  })

  it('reads an e-mail from the outbox', async () => {
    // The clock moved an hour on: a new session.
    token = await mock.signIn()
    const sent = await mock.request('POST', '/webaggregator/api/v1/email/queue', {
      json: { to: ['buyer@example.test'], subject: 'Order 7 shipped', body: 'Your parcel left today.' },
      headers: { Authorization: `Bearer ${token}`, WorkspaceId: IDS.workspaceId },
    })
    expect(sent.status).toBe(200)
    await tab('Outbox')
    const mail = page.locator('details.email').first()
    await mail.waitFor({ timeout: 5_000 })
    await mail.locator('summary').click()
    expect(await mail.innerText()).toContain('Your parcel left today.')
  })

  it('keeps the tab a user opened when the ones before it finish loading later, and stops polling for them', async () => {
    // The first reads of the Requests and the Faults views held back until the user has opened Outbox.
    const held = ['**/__mock/requests?*', '**/__mock/faults']
    let release = (): void => undefined
    const opened = new Promise<void>((resolve) => (release = resolve))
    for (const url of held) {
      await page.route(url, async (route) => {
        await opened
        await route.continue()
      })
    }
    let reads = 0
    page.on('request', (request) => {
      if (request.url().includes('/__mock/requests?')) reads++
    })
    await tab('Requests')
    await tab('Faults and clock')
    await tab('Outbox')
    await page.locator('details.email').first().waitFor({ timeout: 5_000 })
    const answered = [
      page.waitForResponse((response) => response.url().includes('/__mock/requests?'), { timeout: 10_000 }),
      page.waitForResponse((response) => new URL(response.url()).pathname === '/__mock/faults', { timeout: 10_000 }),
    ]
    release()
    await Promise.all(answered)
    // Past the held reads' answers and two polling periods: Outbox is still what the page shows (the
    // Faults view, drawn after it was left, did not draw over it), and the Requests view asked no
    // more than its one read. (Nothing happening has no event to wait on: this waits the periods.)
    await page.waitForTimeout(1_500)
    expect(await page.locator('details.email').count()).toBeGreaterThan(0)
    expect(await page.getByRole('region', { name: 'Faults' }).count()).toBe(0)
    expect(reads).toBe(1)
    for (const url of held) await page.unroute(url)
  })

  it("resets with a same-origin POST that passes the control plane's Origin check", async () => {
    await tab('State')
    await page.getByRole('button', { name: 'Reset' }).click()
    await page.getByText(/^Reset: data back to the start fixture/).waitFor({ timeout: 5_000 })
    expect(mock.mock.emails()).toEqual([])
    expect(mock.mock.requests()).toEqual([])
    const reset = origins.find((request) => request.path === '/__mock/reset')
    expect(reset?.origin).toBe(mock.url)
    expect(consoleErrors).toEqual([])
  })

  it('says when usage is not recorded', async () => {
    await tab('Coverage')
    await page.getByText('does not record usage').waitFor({ timeout: 5_000 })
  })
})

describe('mock console access', () => {
  it("is served under the control plane's rules: other origins refused, the page itself open on a guarded mock, its data not", async () => {
    const mock = await startTestMock({ controlToken: 'console-test-token' })
    try {
      const page = await mock.request('GET', '/__mock/ui', { unchecked: true })
      expect(page.status).toBe(200)
      expect(page.contentType).toMatch(/^text\/html/)
      expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'")
      const script = await mock.request('GET', '/__mock/ui/console.js', { unchecked: true })
      expect(script.contentType).toMatch(/^text\/javascript/)
      const foreign = await mock.request('GET', '/__mock/ui', { unchecked: true, headers: { Origin: 'http://evil.example' } })
      expect(foreign.status).toBe(403)
      expect((await mock.request('GET', '/__mock/ui/..%2Fpackage.json', { unchecked: true })).status).toBe(404)
      expect((await mock.request('GET', '/__mock/requests', { unchecked: true })).status).toBe(401)
    } finally {
      await mock.close()
    }
  })
})

describe('mock console file names', () => {
  it("answers 404 for names of an object's built-in members (constructor, __proto__, toString), not 500", async () => {
    const mock = await startTestMock()
    try {
      for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf']) {
        const reply = await mock.request('GET', `/__mock/ui/${name}`, { unchecked: true })
        expect(reply.status, name).toBe(404)
        expect(reply.body.code, name).toBe('NOT_FOUND')
      }
    } finally {
      await mock.close()
    }
  })
})
