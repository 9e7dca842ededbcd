import { afterAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { BUNDLED_RUNS_HERE, launchChromium } from '../helpers/browser.ts'
import { startTestMock, type TestClient } from '../helpers/http.ts'

// The documentation-page test uses the system's Chromium when the machine has one; this runs the
// fallback every time, so `npm ci && npm test` is known to pass on a machine without a browser.
describe('the Chromium shipped in npm (@sparticuz/chromium)', () => {
  let browser: Browser | undefined
  let mock: TestClient | undefined

  afterAll(async () => {
    await browser?.close()
    await mock?.close()
  })

  it('starts without a system browser and renders the documentation page (on Linux x64; elsewhere it says why not)', async () => {
    if (!BUNDLED_RUNS_HERE) {
      await expect(launchChromium('bundled')).rejects.toThrow(/runs on Linux x64 only/)
      return
    }
    const launched = await launchChromium('bundled')
    browser = launched.browser
    expect(launched.source).toBe('bundled')
    expect(launched.executablePath).not.toMatch(/^\/usr\//)
    mock = await startTestMock()
    const page = await browser.newPage()
    await page.goto(`${mock.url}/docs`, { waitUntil: 'load' })
    await page.waitForSelector('.opblock-summary-description', { timeout: 30_000 })
    // Every operation of the default mock's release (3.0.19: ten).
    expect(await page.locator('.opblock-summary-description').count()).toBeGreaterThanOrEqual(10)
  })
})
