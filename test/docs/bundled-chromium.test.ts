import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { BUNDLED_RUNS_HERE, FORCE_BUNDLED_VARIABLE, launchChromium, type ChromiumSource } from '../helpers/browser.ts'
import { startTestMock, type TestClient } from '../helpers/http.ts'

// The documentation-page test uses the system's Chromium when the machine has one; this runs the
// fallback every time, so `npm ci && npm test` is known to pass on a machine without a browser.
describe.runIf(BUNDLED_RUNS_HERE)('the Chromium shipped in npm (@sparticuz/chromium)', () => {
  let browser: Browser
  let launched: { source: ChromiumSource; executablePath: string }
  let mock: TestClient

  beforeAll(async () => {
    // Launched the way `.ci/run` launches it: forced by the variable, over a CHROMIUM_PATH that would otherwise win.
    const saved = { force: process.env[FORCE_BUNDLED_VARIABLE], path: process.env.CHROMIUM_PATH }
    process.env[FORCE_BUNDLED_VARIABLE] = '1'
    process.env.CHROMIUM_PATH = join(tmpdir(), 'no-such-dir', 'chromium')
    try {
      ;({ browser, ...launched } = await launchChromium())
    } finally {
      for (const [name, value] of [
        [FORCE_BUNDLED_VARIABLE, saved.force],
        ['CHROMIUM_PATH', saved.path],
      ] as const) {
        if (value === undefined) delete process.env[name]
        else process.env[name] = value
      }
    }
    mock = await startTestMock()
  })

  afterAll(async () => {
    await browser?.close()
    await mock?.close()
  })

  it(`is the one ${FORCE_BUNDLED_VARIABLE}=1 picks, even over CHROMIUM_PATH`, () => {
    expect(launched.source).toBe('bundled')
    expect(launched.executablePath).not.toMatch(/^\/usr\//)
    expect(launched.executablePath).not.toContain('no-such-dir')
  })

  it('renders the documentation page', async () => {
    const page = await browser.newPage()
    await page.goto(`${mock.url}/docs`, { waitUntil: 'load' })
    await page.waitForSelector('.opblock-summary-description', { timeout: 30_000 })
    // Every operation of the default mock's release (3.0.19: ten).
    expect(await page.locator('.opblock-summary-description').count()).toBeGreaterThanOrEqual(10)
    await page.close()
  })

  it('keeps running while pages open and close, each in a browser context of its own', async () => {
    // browser.newPage() makes a context per page and page.close() disposes it: the way the
    // documentation-page tests use the browser, one after another.
    for (let round = 0; round < 3; round++) {
      const page = await browser.newPage()
      await page.goto(`${mock.url}/openapi.json`, { waitUntil: 'load' })
      expect(await page.locator('body').innerText()).toContain('"openapi":"3.1.0"')
      await page.close()
    }
    expect(browser.isConnected()).toBe(true)
  })
})

describe.skipIf(BUNDLED_RUNS_HERE)('the Chromium shipped in npm, where it cannot run', () => {
  it('says why not', async () => {
    await expect(launchChromium('bundled')).rejects.toThrow(/runs on Linux x64 only/)
  })
})
