/**
 * The console's Rules tab and the locks of its Data view, in the bundled Chromium, the way a person
 * uses them: a rule typed into the editor, a save over HTTP that it answers, its hit count, its
 * removal, a refused rule's violations, "Answer this again" from a journal entry, locked rows.
 * What the page shows is held against what the control plane says (GET /__mock/stubs, /__mock/locks).
 */
import { mkdirSync } from 'node:fs'
import { dirname } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'
import { IDS, rowVersion, startTestMock, type TestClient } from '../helpers/http.ts'
import { launchChromium } from '../helpers/browser.ts'
import { refusedSave } from '../../spec/control-plane/paths/add-stub.ts'

const SAVE = '/ExplorerApi/api/items/save'
/** `npm run screenshot:console` sets this to write the docs' picture of the Rules tab. */
const SCREENSHOT = process.env.CONSOLE_RULES_SCREENSHOT

const newOrder = (id: number, customer: string) => ({
  Row: { Id: id, IdRow: null, TIMESTAMP: null, Customer: customer, Amount: 10, Status: 'Open' },
  Details: [],
})

/** A rule that refuses saves of the customer Initech the product's way, twice: the document's example (addStub's `refusedSave`), named, with its status. */
const REFUSE_INITECH = { name: 'Refuse saves of Initech', ...refusedSave, answer: { status: 200, ...refusedSave.answer }, times: 2 }

describe('console Rules tab and locks, in Chromium', () => {
  let mock: TestClient
  let token: string
  let browser: Browser
  let page: Page
  const consoleErrors: string[] = []

  beforeAll(async () => {
    mock = await startTestMock()
    token = await mock.signIn()
    ;({ browser } = await launchChromium())
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
    page.on('console', (message) => {
      if (message.type() !== 'error') return
      // Chromium logs every 4xx a page fetches; the refused rule this test adds is meant.
      if (message.text().startsWith('Failed to load resource') && new URL(message.location().url).pathname === '/__mock/stubs') return
      consoleErrors.push(message.text())
    })
    page.on('pageerror', (error) => consoleErrors.push(error.message))
    await page.goto(`${mock.url}/__mock/ui`, { waitUntil: 'load' })
  })

  afterAll(async () => {
    await browser?.close()
    await mock?.close()
  })

  const tab = (name: string) => page.getByRole('tab', { name }).click()
  const stubs = async () => (await mock.request('GET', '/__mock/stubs', { unchecked: true })).body as { rules: Array<Record<string, any>> }
  const locks = async () =>
    (await mock.request('GET', '/__mock/locks', { unchecked: true })).body as {
      locks: Array<{ applicationId: string; relationKey: string | null; ids: number[] }>
    }
  /** Each test starts without rules, so one that fails leaves the next its own. */
  const noRules = async () => expect((await mock.request('DELETE', '/__mock/stubs', { unchecked: true })).status).toBe(200)
  const editor = () => page.getByLabel('Rule (JSON)')
  const ruleRows = () => page.locator('#rules tbody tr')

  it('adds a rule typed into the editor, lists it, counts the save it answers, and removes it', async () => {
    await tab('Rules')
    await page.getByText('No answer rules').waitFor({ timeout: 5_000 })
    // The editor opens with a template to start from.
    expect(JSON.parse(await editor().inputValue())).toMatchObject({ operationId: 'saveItems', answer: { status: 200 } })
    await editor().fill(JSON.stringify(REFUSE_INITECH, null, 2))
    await page.getByRole('button', { name: 'Add rule' }).click()
    await page.getByText(/^Added rule \d+ \(Refuse saves of Initech\)\.$/).waitFor({ timeout: 5_000 })
    const [rule] = (await stubs()).rules
    expect(rule).toMatchObject({ name: 'Refuse saves of Initech', operationId: 'saveItems', hits: 0, remaining: 2 })
    await expect.poll(() => ruleRows().count(), { timeout: 5_000 }).toBe(1)
    const row = page.locator(`#rules tr[data-rule-id="${rule?.id}"]`)
    const cells = await row.locator('td').allInnerTexts()
    expect(cells.slice(1, 5)).toEqual([
      'Refuse saves of Initech',
      'saveItems',
      '{"body":{"Rows":[{"Row":{"Customer":"Initech"}}]}}',
      'whole answer 200 with body',
    ])
    expect(await row.locator('td.remaining').innerText()).toBe('2 of 2')
    expect(await row.locator('td.hits').innerText()).toBe('0')

    // A save of Initech over HTTP is refused by the rule and writes nothing; one of another customer is not touched.
    const refused = await mock.post(SAVE, token, { Rows: [newOrder(-1, 'Initech')] })
    expect(refused.body).toMatchObject({ IsSaveSuccessfully: false, ReturnStates: [{ Code: 'REQUIRED', Field: 'Amount' }] })
    expect((await mock.items(token, "$filter=Customer eq 'Initech'")).body).toEqual([])
    expect((await mock.post(SAVE, token, { Rows: [newOrder(-1, 'Globex')] })).body).toMatchObject({ IsSaveSuccessfully: true, CreatedItems: 1 })

    // The tab shows the hit without being opened again.
    await expect.poll(() => row.locator('td.hits').innerText(), { timeout: 5_000 }).toBe('1')
    expect(await row.locator('td.remaining').innerText()).toBe('1 of 2')
    expect((await stubs()).rules[0]).toMatchObject({ hits: 1, remaining: 1 })
    if (SCREENSHOT !== undefined) {
      mkdirSync(dirname(SCREENSHOT), { recursive: true })
      await page.screenshot({ path: SCREENSHOT, fullPage: false })
    }

    await page.getByRole('button', { name: `Remove rule ${rule?.id} (Refuse saves of Initech)` }).click()
    await page.getByText('No answer rules').waitFor({ timeout: 5_000 })
    expect((await stubs()).rules).toEqual([])
    expect((await mock.post(SAVE, token, { Rows: [newOrder(-1, 'Initech')] })).body).toMatchObject({ IsSaveSuccessfully: true })
  })

  it('shows why the mock refuses a rule: each violation with its pointer; and says when the editor holds no JSON', async () => {
    await noRules()
    await tab('Rules')
    await editor().fill(JSON.stringify({ operationId: 'saveItems', answer: { status: 418, body: { teapot: true } } }))
    await page.getByRole('button', { name: 'Add rule' }).click()
    const alert = page.locator('[role=alert]')
    await alert.waitFor({ timeout: 5_000 })
    expect(await alert.locator('p').innerText({ timeout: 5_000 })).toMatch(/^VALIDATION: the mock refused the rule/)
    const violations = await alert.locator('ul.violations li').allInnerTexts()
    expect(violations).toContainEqual(expect.stringMatching(/^\/body\/answer\/status 418 is not a status saveItems answers with/))
    expect((await stubs()).rules).toEqual([])
    await expect.poll(() => ruleRows().count()).toBe(0)

    await editor().fill('{ "operationId": "saveItems", ')
    await page.getByRole('button', { name: 'Add rule' }).click()
    await page.getByText(/^The rule is not JSON: /).waitFor({ timeout: 5_000 })

    // The template the editor offers is a rule the mock accepts as it is.
    await page.getByRole('button', { name: 'Start from the template' }).click()
    await page.getByRole('button', { name: 'Add rule' }).click()
    await page.getByText(/^Added rule \d+ \(Refuse saves of Initech\)\.$/).waitFor({ timeout: 5_000 })
    expect((await stubs()).rules).toMatchObject([{ operationId: 'saveItems', answer: { body: { ReturnStates: [{ Code: 'REQUIRED', Table: 'Orders' }] } } }])
  })

  it('"Answer this again" on a journal entry makes a rule of its recorded answer, adjusted in the editor, that answers the next matching save', async () => {
    await noRules()
    // A save the installation refused (a stale row version): the answer a team wants again.
    const two = (await mock.items(token, '$filter=Id eq 2')).body[0]
    const stale = await mock.post(SAVE, token, { Rows: [{ Row: { Id: 2, TIMESTAMP: rowVersion(two.TIMESTAMP) + 1, Status: 'Closed' }, Details: [] }] })
    expect(stale.body).toMatchObject({ IsSaveSuccessfully: false, ReturnStates: [{ Code: 'CONCURRENCY' }] })
    const journal = (await mock.request('GET', '/__mock/requests?bodies=true&operationId=saveItems', { unchecked: true })).body
    const recorded = journal.entries.at(-1)
    expect(recorded.response.body).toEqual(stale.body)

    await tab('Requests')
    const entry = page.locator(`#journal details.entry[data-seq="${recorded.seq}"]`)
    await entry.locator('summary').click()
    await entry.getByRole('button', { name: 'Answer this again' }).click()

    // The Rules tab opens with the rule in the editor: the entry's operation and answer, its request as the match.
    await page.getByText(`Made from request #${recorded.seq} (saveItems, answered 200)`).waitFor({ timeout: 5_000 })
    expect(await page.getByRole('tab', { name: 'Rules' }).getAttribute('aria-selected')).toBe('true')
    const made = JSON.parse(await editor().inputValue())
    expect(made).toEqual({
      name: `Answer of request #${recorded.seq} again`,
      operationId: 'saveItems',
      match: { body: recorded.request.body },
      answer: { status: 200, body: stale.body },
    })
    // The user widens the match to every save that closes an order, then adds it.
    await editor().fill(JSON.stringify({ ...made, match: { body: { Rows: [{ Row: { Status: 'Closed' } }] } } }, null, 2))
    await page.getByRole('button', { name: 'Add rule' }).click()
    await page.getByText(/^Added rule \d+/).waitFor({ timeout: 5_000 })

    const [rule] = (await stubs()).rules
    expect(rule?.operationId).toBe('saveItems')
    expect(rule?.answer).toEqual({ status: recorded.status, body: recorded.response.body })
    // A save that would succeed now gets the recorded refusal, and row 3 is not written.
    const three = (await mock.items(token, '$filter=Id eq 3')).body[0]
    const replayed = await mock.post(SAVE, token, { Rows: [{ Row: { Id: 3, TIMESTAMP: rowVersion(three.TIMESTAMP), Status: 'Closed' }, Details: [] }] })
    expect(replayed.body).toEqual(stale.body)
    expect((await mock.items(token, '$filter=Id eq 3')).body[0].Status).toBe(three.Status)
    await expect.poll(() => page.locator(`#rules tr[data-rule-id="${rule?.id}"] td.hits`).innerText(), { timeout: 5_000 }).toBe('1')
    // The journal says which rule answered.
    await tab('Requests')
    const answered = page.locator('#journal details.entry summary', { hasText: `answered by rule ${rule?.id}` })
    await expect.poll(() => answered.count(), { timeout: 5_000 }).toBe(1)
    expect(await answered.innerText()).toContain('saveItems')
    await tab('Rules')
    await page.getByRole('button', { name: 'Remove all rules' }).click()
    await page.getByText('No answer rules').waitFor({ timeout: 5_000 })
    expect((await stubs()).rules).toEqual([])
  })

  it('lists rules a test added: a merge patch with a scenario, an off-document answer with its delay and priority', async () => {
    await noRules()
    const add = async (rule: Record<string, unknown>) => {
      const reply = await mock.request('POST', '/__mock/stubs', { json: rule, unchecked: true })
      expect(reply.status, JSON.stringify(reply.body)).toBe(201)
      return reply.body.id as number
    }
    const patch = await add({
      name: 'Second save locked',
      operationId: 'saveItems',
      answer: { patch: { LockedItems: 1 } },
      scenario: 'saves',
      whenState: 'Started',
      setState: 'saved once',
    })
    const teapot = await add({ operationId: 'queryItems', answer: { status: 418, body: { teapot: true } }, offDocument: true, delayMs: 250, priority: 1 })
    await tab('Rules')
    await expect.poll(() => ruleRows().count(), { timeout: 5_000 }).toBe(2)
    // Tried in that order: priority 1 first.
    expect(await ruleRows().evaluateAll((rows) => rows.map((row) => row.getAttribute('data-rule-id')))).toEqual([String(teapot), String(patch)])
    const cells = (id: number) => page.locator(`#rules tr[data-rule-id="${id}"] td`).allInnerTexts()
    expect((await cells(patch)).slice(1, 11)).toEqual([
      'Second save locked',
      'saveItems',
      'any request',
      'merge patch',
      '',
      'always',
      '5',
      'saves: Started → saved once',
      '',
      '0',
    ])
    expect((await cells(teapot)).slice(2, 11)).toEqual([
      'queryItems',
      'any request',
      'whole answer 418 with body',
      '250 ms',
      'always',
      '1',
      '',
      'off document',
      '0',
    ])
    expect(await page.locator(`#rules tr[data-rule-id="${teapot}"] .warn`).getAttribute('title')).toMatch(
      /^\/body\/answer\/status 418 is not a status queryItems answers with/,
    )
    expect(await page.locator('#rules .scenarios').innerText()).toBe('Scenario states: saves Started')
    // The scenario moves when the patched save answers; the tab shows it.
    expect((await mock.post(SAVE, token, { Rows: [newOrder(-1, 'Umbrella')] })).body).toMatchObject({ IsSaveSuccessfully: true, LockedItems: 1 })
    await expect.poll(() => page.locator('#rules .scenarios').innerText(), { timeout: 5_000 }).toBe('Scenario states: saves saved once')
    expect((await cells(patch))[10]).toBe('1')
  })

  it('marks locked rows in the Data view, master and detail, and locks and unlocks a row', async () => {
    await noRules()
    const lock = async (body: Record<string, unknown>) =>
      expect((await mock.request('POST', '/__mock/locks', { json: body, unchecked: true })).status).toBe(200)
    await lock({ applicationId: IDS.applicationId, ids: [2] })
    // The first line of order 1 (lines 1 and 2 belong to it).
    await lock({ applicationId: IDS.applicationId, relationKey: IDS.relationKey, ids: [1] })
    await tab('Data')
    const master = (id: number) => page.locator(`#rows tr[data-id="${id}"]`)
    await master(2).waitFor({ timeout: 5_000 })
    expect(await master(2).getAttribute('data-locked')).toBe('true')
    expect(await master(2).locator('.badge.locked').innerText()).toBe('locked')
    expect(await master(3).getAttribute('data-locked')).toBe('false')
    expect(await master(3).locator('.badge.locked').count()).toBe(0)
    expect(await page.locator('#rows .badge.locked').count()).toBe(1)

    // Order 1's lines: the first locked, the second not.
    await master(1).click()
    const lines = page.locator('section.detail[data-relation="OrderLines"] tbody tr')
    await expect.poll(() => lines.count(), { timeout: 5_000 }).toBe(2)
    expect(await lines.nth(0).getAttribute('data-locked')).toBe('true')
    expect(await lines.nth(1).getAttribute('data-locked')).toBe('false')

    // Unlock row 2, lock row 3, from the table.
    await page.getByRole('button', { name: 'Unlock row 2' }).click()
    await expect.poll(() => master(2).getAttribute('data-locked'), { timeout: 5_000 }).toBe('false')
    await page.getByRole('button', { name: 'Lock row 3' }).click()
    await expect.poll(() => master(3).getAttribute('data-locked'), { timeout: 5_000 }).toBe('true')
    const held = (await locks()).locks.map(({ relationKey, ids }) => ({ relationKey, ids }))
    expect(held).toEqual(
      expect.arrayContaining([
        { relationKey: null, ids: [3] },
        { relationKey: IDS.relationKey, ids: [1] },
      ]),
    )
    expect(held).toHaveLength(2)
    // The lock is the mock's: a save of row 3 is refused for it.
    const three = (await mock.items(token, '$filter=Id eq 3')).body[0]
    expect(
      (await mock.post(SAVE, token, { Rows: [{ Row: { Id: 3, TIMESTAMP: rowVersion(three.TIMESTAMP), Status: 'Closed' }, Details: [] }] })).body,
    ).toMatchObject({ IsSaveSuccessfully: false, LockedItems: 1 })
    expect(consoleErrors).toEqual([])
  })
})
