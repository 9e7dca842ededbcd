import { mkdirSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { buildControlPlaneDocument } from '../../spec/control-plane.ts'
import { listOperations, servedDocument } from '../../src/document/reader.ts'
import { LATEST_VERSION } from '../../spec/versions.ts'
import { IDS, startTestMock, type TestClient } from '../helpers/http.ts'
import { launchChromium } from '../helpers/browser.ts'

const ARTIFACTS = 'test-artifacts'
/** `npm run screenshot` sets this to write the README's picture of the page. */
const README_SCREENSHOT = process.env.DOCS_SCREENSHOT

describe('documentation page', () => {
  let mock: TestClient
  let browser: Browser

  beforeAll(async () => {
    mock = await startTestMock()
    ;({ browser } = await launchChromium())
  })

  afterAll(async () => {
    await browser?.close()
    await mock?.close()
  })

  it('serves the document as JSON and YAML', async () => {
    const json = await mock.request('GET', '/openapi.json', { unchecked: true })
    expect(json.status).toBe(200)
    // The document of this mock's mode and release (the default: lenient, the latest), with its own origin as its first server.
    const expected = JSON.parse(JSON.stringify(servedDocument(LATEST_VERSION, 'lenient')))
    expected.servers[0] = { url: mock.url, description: 'This appdata-kit mock.' }
    expect(json.body).toEqual(expected)
    const yaml = await mock.request('GET', '/openapi.yaml', { unchecked: true })
    expect(yaml.status).toBe(200)
    expect(yaml.contentType).toMatch(/yaml/)
    expect(String(yaml.body)).toContain('openapi: 3.1.0')
    expect(String(yaml.body)).toContain(`url: ${mock.url}`)
  })

  it('renders every operation summary at /docs', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 2400 } })
    await page.goto(`${mock.url}/docs`, { waitUntil: 'load' })
    await page.waitForSelector('.opblock-summary-description', { timeout: 20_000 })
    const operations = listOperations(servedDocument(LATEST_VERSION, 'lenient'))
    expect(operations.length).toBeGreaterThanOrEqual(10)
    const shown = await page.locator('.opblock-summary-description').allInnerTexts()
    const missing = operations.map((op) => String(op.operation.summary)).filter((summary) => !shown.includes(summary))
    expect(missing).toEqual([])
    mkdirSync(ARTIFACTS, { recursive: true })
    await page.screenshot({ path: `${ARTIFACTS}/docs.png`, fullPage: false })
    await page.close()
  })

  it('tries sign-in out against this mock, on its own port, with the form filled in from the default fixture', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(`${mock.url}/docs`, { waitUntil: 'load' })
    await page.waitForSelector('.opblock-summary-description', { timeout: 20_000 })
    // The mock serves on a random port here: the first server must be it, not a fixed 4080.
    expect((await page.locator('.servers select option').allInnerTexts())[0]).toContain(mock.url)
    if (README_SCREENSHOT !== undefined) {
      // The servers and the first operations, rather than the document's introduction.
      await page.setViewportSize({ width: 1280, height: 5000 })
      const top = (await page.locator('.scheme-container').boundingBox())?.y ?? 0
      await page.screenshot({ path: README_SCREENSHOT, clip: { x: 0, y: top, width: 1280, height: 820 } })
      await page.setViewportSize({ width: 1280, height: 900 })
    }
    const signIn = page.locator('#operations-Sign-in-signIn')
    await signIn.locator('.opblock-summary').click()
    await signIn.getByRole('button', { name: 'Try it out' }).click()
    const values = await signIn
      .locator('.parameters input, .opblock-section-request-body input')
      .evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value))
    expect(values).toEqual(expect.arrayContaining([IDS.org, IDS.clientId, IDS.admin.username, IDS.admin.password]))
    await signIn.getByRole('button', { name: 'Execute' }).click()
    const status = signIn.locator('.live-responses-table tbody .response-col_status').first()
    await status.waitFor({ timeout: 20_000 })
    expect((await status.innerText()).trim()).toBe('200')
    expect(mock.mock.requests({ operationId: 'signIn' }).at(-1)?.status).toBe(200)
    await page.close()
  })

  it('offers the control plane as a second definition', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } })
    await page.goto(`${mock.url}/docs`, { waitUntil: 'load' })
    await page.waitForSelector('.opblock-summary-description', { timeout: 20_000 })
    const control = buildControlPlaneDocument()
    await page.locator('.topbar select').selectOption({ label: control.info.title })
    const summaries = listOperations(control).map((op) => String(op.operation.summary))
    await page.getByText(summaries[0]!, { exact: true }).first().waitFor({ timeout: 20_000 })
    const shown = await page.locator('.opblock-summary-description').allInnerTexts()
    expect(summaries.filter((summary) => !shown.includes(summary))).toEqual([])
    await page.screenshot({ path: `${ARTIFACTS}/docs-control-plane.png` })
    await page.close()
  })
})
