/**
 * The console's Requests view tells a refused save or delete (200 with `IsSaveSuccessfully: false`)
 * from a success: it marks the entry with its ReturnStates codes, lists them when opened, and lets
 * the view show only refused ones, or find them by code. Driven in Chromium, as a user would.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { IDS, rowVersion, startTestMock, type TestClient } from '../helpers/http.ts'
import { launchChromium } from '../helpers/browser.ts'

const SAVE = '/ExplorerApi/api/items/save'
const DELETE = '/ExplorerApi/api/items/delete'

describe("the console's Requests view and refused saves, in Chromium", () => {
  let mock: TestClient
  let token: string
  let browser: Browser
  let page: Page

  beforeAll(async () => {
    const fixture = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8')) as Record<string, any>
    fixture.locks = { [IDS.applicationId]: { master: [2] } }
    mock = await startTestMock({ fixtureData: fixture })
    token = await mock.signIn()
    mock.mock.clearRequests()
    ;({ browser } = await launchChromium())
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    await page.goto(`${mock.url}/__mock/ui`, { waitUntil: 'load' })
    await page.getByText('No requests yet').waitFor({ timeout: 10_000 })
  })

  afterAll(async () => {
    await browser?.close()
    await mock?.close()
  })

  const entries = () => page.locator('#journal details.entry')
  /** The journal entry the view shows for a request, by its sequence number. */
  const entry = (seq: number) => page.locator(`#journal details.entry[data-seq="${seq}"]`)
  const lastSeq = async (): Promise<number> => (await mock.request('GET', '/__mock/requests?limit=1')).body.entries[0].seq

  it('marks a save refused with LOCKED, and a delete refused, apart from a save that succeeded', async () => {
    const [one, two] = ((await mock.items(token, '$filter=Id le 2&$orderby=Id asc')).body as Array<{ Id: number; TIMESTAMP: string }>).map((row) => ({
      Id: row.Id,
      TIMESTAMP: rowVersion(row.TIMESTAMP),
    }))
    const saved = await mock.post(SAVE, token, { Rows: [{ Row: { ...one, Status: 'Closed' }, Details: [] }] })
    expect(saved.body.IsSaveSuccessfully).toBe(true)
    const savedSeq = await lastSeq()
    const locked = await mock.post(SAVE, token, { Rows: [{ Row: { ...two, Status: 'Closed' }, Details: [] }] })
    expect(locked.body).toMatchObject({ IsSaveSuccessfully: false, ReturnStates: [expect.objectContaining({ Code: 'LOCKED' })] })
    const lockedSeq = await lastSeq()
    const deleted = await mock.post(DELETE, token, [{ RelationKey: null, Rows: [{ Row: two }] }])
    expect(deleted.body.IsSaveSuccessfully).toBe(false)
    const deletedSeq = await lastSeq()

    await entry(deletedSeq).waitFor({ timeout: 10_000 })
    // The same 200 for all three; only the refused ones are marked, with their codes.
    for (const seq of [savedSeq, lockedSeq, deletedSeq]) expect(await entry(seq).locator('summary .status').innerText()).toBe('200')
    expect(await entry(savedSeq).locator('summary .status.refused').count()).toBe(0)
    expect(await entry(savedSeq).locator('summary .refusal').count()).toBe(0)
    for (const seq of [lockedSeq, deletedSeq]) {
      expect(await entry(seq).locator('summary .status').getAttribute('class')).toContain('refused')
      expect((await entry(seq).locator('summary .refusal').innerText()).trim()).toBe('refused: LOCKED')
    }
    // Coloured apart from the success's green.
    // The page's own getComputedStyle (the tests compile without the DOM's types).
    const colour = (seq: number) =>
      entry(seq)
        .locator('summary .status')
        .evaluate(
          (element) =>
            (globalThis as unknown as { getComputedStyle(of: typeof element): { backgroundColor: string } }).getComputedStyle(element).backgroundColor,
        )
    expect(await colour(lockedSeq)).not.toBe(await colour(savedSeq))
    // Opened, the refused save lists its ReturnStates.
    await entry(lockedSeq).locator('summary').click()
    const states = entry(lockedSeq).locator('ul.refused-states li')
    await states.first().waitFor()
    expect(await states.allInnerTexts()).toEqual([expect.stringMatching(/^LOCKED Orders 1002: master row 2 is locked by another user/)])
  })

  it('shows only refused saves and deletes when asked, and finds them by their code', async () => {
    const all = await entries().count()
    await page.getByLabel('refused saves and deletes only').check()
    await expect.poll(() => entries().count(), { timeout: 5_000 }).toBe(2)
    for (const text of await entries().locator('summary').allInnerTexts()) expect(text).toContain('refused: LOCKED')
    await page.getByLabel('refused saves and deletes only').uncheck()
    await expect.poll(() => entries().count(), { timeout: 5_000 }).toBe(all)
    await page.getByLabel('Problem code').fill('locked')
    await expect.poll(() => entries().count(), { timeout: 5_000 }).toBe(2)
    await page.getByLabel('Problem code').fill('')
  })
})
