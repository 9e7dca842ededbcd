/**
 * `verify --html FILE`: one HTML file with nothing to fetch, read in Chromium: the failing
 * contract of a run against a mock started with a deviation, its expected/received pair and its
 * exchanges; the side-by-side view of `--compare-with`; the interactions of `--usage`.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { IDS, startTestMock } from '../helpers/http.ts'
import { launchChromium } from '../helpers/browser.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { verify, verifyFlags } from '../contracts/support.ts'

const dir = sharedTempDir('appdata-kit-verify-html-')
let browser: Browser

beforeAll(async () => {
  ;({ browser } = await launchChromium())
})

afterAll(async () => {
  await browser?.close()
})

/** No password, and nothing shaped like a session token (43 characters of base64url). */
function expectNoSecret(text: string): void {
  expect(text).not.toContain(IDS.admin.password)
  expect(text).not.toMatch(/[A-Za-z0-9_-]{43}/)
}

describe('verify --html', () => {
  it('writes a self-contained report of a failing run, whose failing contract and exchange a browser finds', async () => {
    const mock = await startTestMock({ deviate: ['relative-row-link'] })
    const file = join(dir, 'failing.html')
    try {
      const result = await verify([...verifyFlags(mock.url), '--html', file])
      expect(result.code, result.out + result.err).toBe(1)
    } finally {
      await mock.close()
    }
    const html = readFileSync(file, 'utf8')
    expectNoSecret(html)
    expect(html).not.toMatch(/<(script|link|img)\b/i)
    const page = await browser.newPage()
    // Anything the page would fetch besides itself is recorded, and refused.
    const fetched: string[] = []
    await page.route('**/*', (route) => {
      if (route.request().url().startsWith('file:')) return route.continue()
      fetched.push(route.request().url())
      return route.abort()
    })
    await page.goto(`file://${file}`)
    expect(await page.locator('h1').innerText()).toContain(mock.url)
    const row = page.locator('tr[id="result-row-link.absolute"]')
    expect(await row.locator('td').nth(2).innerText()).toBe('failed')
    const severity = await row.locator('td').nth(1).innerText()
    expect(severity.trim()).not.toBe('')
    expect(await row.locator('td').nth(3).innerText()).toMatch(/^\d+ ms$/)
    const detail = row.locator('xpath=following-sibling::tr[1]')
    expect(await detail.locator('.pair').first().locator('th').allInnerTexts()).toEqual(['Expected', 'Received'])
    const exchange = detail.locator('details.exchange').last()
    await exchange.locator('summary').click()
    expect(await exchange.locator('summary').innerText()).toMatch(/^POST \/\S+ → \d{3}/)
    const answer = await exchange.locator('h5:text("Answer") + pre').innerText()
    expect(answer.length).toBeGreaterThan(0)
    // The group of the failing contract is open; the others are closed.
    expect(await page.locator('details.group[open] summary strong').allInnerTexts()).toContain('row-link')
    expect(fetched).toEqual([])
    await page.close()
  })

  it('shows two installations side by side with --compare-with', async () => {
    const faithful = await startTestMock()
    const deviating = await startTestMock({ deviate: ['relative-row-link'] })
    const file = join(dir, 'compare.html')
    try {
      const result = await verify([
        '--base-url',
        faithful.url,
        '--org',
        IDS.org,
        '--username',
        IDS.admin.username,
        '--password',
        IDS.admin.password,
        '--workspace-id',
        IDS.workspaceId,
        '--application-id',
        IDS.applicationId,
        '--relation-key',
        IDS.relationKey,
        '--seed',
        '3',
        '--compare-with',
        deviating.url,
        '--html',
        file,
      ])
      expect(result.code, result.out + result.err).toBe(1)
    } finally {
      await faithful.close()
      await deviating.close()
    }
    const html = readFileSync(file, 'utf8')
    expectNoSecret(html)
    const page = await browser.newPage()
    await page.goto(`file://${file}`)
    expect(await page.locator('h2').allInnerTexts()).toEqual(expect.arrayContaining([`First: ${faithful.url}`, `Second: ${deviating.url}`, 'Side by side']))
    const headers = await page.locator('.comparison table').first().locator('th').allInnerTexts()
    expect(headers.slice(-2)).toEqual([faithful.url, deviating.url])
    expect(await page.locator('.comparison tr.differs').count()).toBeGreaterThan(0)
    await page.close()
  })

  it("lists the client's interactions with --usage", async () => {
    const usage = join(dir, 'usage.json')
    const recorder = await startTestMock({ recordUsage: usage })
    const token = await recorder.signIn()
    await recorder.items(token, "$top=4&$orderby=Customer desc&$filter=Status eq 'Open'")
    await recorder.close()
    const mock = await startTestMock({ deviate: ['ignore-orderby'] })
    const file = join(dir, 'usage.html')
    try {
      const result = await verify([
        '--base-url',
        mock.url,
        '--org',
        IDS.org,
        '--username',
        IDS.admin.username,
        '--password',
        IDS.admin.password,
        '--workspace-id',
        IDS.workspaceId,
        '--application-id',
        IDS.applicationId,
        '--usage',
        usage,
        '--html',
        file,
      ])
      expect(result.code, result.out + result.err).toBe(1)
    } finally {
      await mock.close()
    }
    const html = readFileSync(file, 'utf8')
    expectNoSecret(html)
    const page = await browser.newPage()
    await page.goto(`file://${file}`)
    expect(await page.locator('h2').allInnerTexts()).toContain("The client's interactions")
    const failed = page.locator('tr.result.failed')
    expect(await failed.count()).toBe(1)
    expect(await failed.innerText()).toContain('order by Customer desc')
    await page.close()
  })
})
