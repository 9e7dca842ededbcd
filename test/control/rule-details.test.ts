/**
 * Answer rules, fault rules and request assertions: the details no other test pinned, each found by
 * mutating the code (a change that left every test green). Driven as a user drives them: over HTTP
 * against a started mock (`/__mock/stubs`, `/__mock/faults`, `/__mock/requests`,
 * `/__mock/requests/near-misses`) and through startMock()'s methods.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { IDS, mockPerSuite, startTestMock, type Reply, type TestClient } from '../helpers/http.ts'
import type { RequestAssertionError } from '../../src/index.ts'
import { refusedSave } from '../../spec/control-plane/paths/add-stub.ts'
import { customerChange, rawPost, readMaster } from './support.ts'

const SAVE = '/ExplorerApi/api/items/save'
/** A save refused the product's way (the description, "Save rows"): the answer of the document's example rule. */
const REFUSED = refusedSave.answer.body
const newOrder = (customer: string) => ({
  Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: customer, Amount: 10, Status: 'Open' }, Details: [] }],
})
const matchParam = (match: unknown): string => encodeURIComponent(JSON.stringify(match))

describe('answer and fault rules', () => {
  const ctx = mockPerSuite()
  beforeEach(async () => {
    await ctx.mock.request('POST', '/__mock/reset')
  })

  const addStub = (rule: unknown): Promise<Reply> => ctx.mock.request('POST', '/__mock/stubs', { json: rule, unchecked: true })
  const save = (body: unknown): Promise<Reply> => ctx.mock.post(SAVE, ctx.token, body)
  const customers = async (customer: string): Promise<number> => (await ctx.mock.items(ctx.token, `$filter=Customer eq '${customer}'`)).body.length
  const rules = async (): Promise<Array<{ id: number; hits: number; remaining: number | null }>> => (await ctx.mock.request('GET', '/__mock/stubs')).body.rules

  it('a used-up rule beside a live one: the live one still answers, before and after the used-up one is removed', async () => {
    const live = (await addStub({ operationId: 'saveItems', answer: { body: { ...REFUSED, UpdatedItems: 2 } } })).body
    const once = (await addStub({ operationId: 'saveItems', answer: { body: { ...REFUSED, UpdatedItems: 1 } }, times: 1, priority: 1 })).body
    expect((await save(newOrder('Used up'))).body.UpdatedItems).toBe(1)
    expect((await save(newOrder('Used up'))).body.UpdatedItems).toBe(2)
    expect((await rules()).map((rule) => [rule.id, rule.hits, rule.remaining])).toEqual([
      [once.id, 1, 0],
      [live.id, 1, null],
    ])
    // Removing the used-up rule leaves the live one live.
    expect((await ctx.mock.request('DELETE', `/__mock/stubs/${once.id}`)).status).toBe(200)
    expect((await save(newOrder('Used up'))).body.UpdatedItems).toBe(2)
    expect((await rules()).map((rule) => [rule.id, rule.hits])).toEqual([[live.id, 2]])
    expect(await customers('Used up')).toBe(0)
    // And once the live one goes too, saves are performed again.
    await ctx.mock.request('DELETE', `/__mock/stubs/${live.id}`)
    expect((await save(newOrder('Used up'))).body).toMatchObject({ IsSaveSuccessfully: true, CreatedItems: 1 })
  })

  it('a commitThenDrop fault takes the save from an answer rule: the write is applied, the rule not consulted', async () => {
    const { body: rule } = await addStub({ operationId: 'saveItems', answer: { body: REFUSED } })
    await ctx.mock.request('POST', '/__mock/faults', { json: { rules: [{ operationId: 'saveItems', commitThenDrop: true, times: 1 }] } })
    const row = await readMaster(ctx.mock, ctx.token, 8)
    await expect(rawPost(ctx.mock, SAVE, ctx.mock.dataHeaders(ctx.token), customerChange(row, 'Committed past a rule'))).rejects.toThrow()
    expect((await readMaster(ctx.mock, ctx.token, 8)).Customer).toBe('Committed past a rule')
    expect((await rules())[0]).toMatchObject({ id: rule.id, hits: 0 })
    // The fault is used up: the next save is the rule's.
    expect((await save(newOrder('After the fault'))).body).toEqual(REFUSED)
    expect(await customers('After the fault')).toBe(0)
    const entries = (await ctx.mock.request('GET', '/__mock/requests?operationId=saveItems')).body.entries
    expect(entries.map((e: { status: number | null; fault: string | null; stub: number | null }) => [e.status, e.fault, e.stub])).toEqual([
      [null, 'commitThenDrop', null],
      [200, null, rule.id],
    ])
  })

  describe('an answer the served document cannot give', () => {
    it('is refused when the status has a body the answer leaves out', async () => {
      const refused = await addStub({ operationId: 'saveItems', answer: { status: 200 } })
      expect(refused.status).toBe(400)
      expect(refused.body.violations).toEqual([
        expect.objectContaining({
          pointer: '/body/answer/body',
          keyword: 'offDocument',
          message: expect.stringMatching(/^is required: saveItems answers 200 with a body/),
        }),
      ])
      expect(await rules()).toEqual([])
    })

    it('is refused when the status has no body and the answer gives one', async () => {
      const refused = await addStub({ operationId: 'sendEmail', answer: { status: 200, body: { Sent: true } } })
      expect(refused.status).toBe(400)
      expect(refused.body.violations).toEqual([
        expect.objectContaining({
          pointer: '/body/answer/body',
          keyword: 'offDocument',
          message: expect.stringMatching(/^must be absent: sendEmail answers 200 without a body/),
        }),
      ])
      // Without the body it is an answer sendEmail can give.
      expect((await addStub({ operationId: 'sendEmail', answer: { status: 200 } })).status).toBe(201)
    })
  })

  it('a merge patch leaves an error answer alone: only a success answer is patched', async () => {
    const { body: rule } = await addStub({ operationId: 'queryItems', answer: { patch: [] } })
    // A field the table lacks: the query is refused by the operation itself, after the rule was consulted.
    const refused = await ctx.mock.items(ctx.token, '$filter=NoSuchField eq 1')
    expect(refused.status).toBe(400)
    expect(refused.contentType).toMatch(/^application\/problem\+json/)
    expect(refused.body).toMatchObject({ code: 'UNKNOWN_FIELD', status: 400 })
    expect((await rules())[0]).toMatchObject({ id: rule.id, hits: 1 })
    // A success answer of the same operation is patched.
    expect((await ctx.mock.items(ctx.token, '$top=2')).body).toEqual([])
  })

  it('a $regex runs on a text of at most 1 MiB: a longer text does not match', async () => {
    const MiB = 1_048_576
    await addStub({ operationId: 'saveItems', match: { body: { Rows: [{ Row: { Customer: { $regex: '^x+$' } } }] } }, answer: { body: REFUSED } })
    // Exactly at the limit: matched, the rule answers.
    expect((await save(newOrder('x'.repeat(MiB)))).body).toEqual(REFUSED)
    // One character over: not matched, the save is performed.
    expect((await save(newOrder('x'.repeat(MiB + 1)))).body).toMatchObject({ IsSaveSuccessfully: true, CreatedItems: 1 })
    expect((await rules())[0]?.hits).toBe(1)
  })
})

describe('near misses', () => {
  const ctx = mockPerSuite()
  beforeEach(() => {
    ctx.mock.mock.clearRequests()
  })
  const nearMisses = async (query: string) => (await ctx.mock.request('GET', `/__mock/requests/near-misses?${query}`)).body

  it('when more requests matched than asked: the assertion names the matches and no near miss; the near-misses call still lists them', async () => {
    await ctx.mock.post(SAVE, ctx.token, newOrder('Initech'))
    await ctx.mock.post(SAVE, ctx.token, newOrder('Initek'))
    await ctx.mock.post(SAVE, ctx.token, newOrder('Initech'))
    const initech = { operationId: 'saveItems', match: { body: { Rows: [{ Row: { Customer: 'Initech' } }] } } }
    const error = (await ctx.mock.mock.assertRequested(initech, { times: 1 }).catch((e: unknown) => e)) as RequestAssertionError
    expect(error.name).toBe('RequestAssertionError')
    expect(error.matched).toBe(2)
    expect(error.nearMisses).toEqual([])
    expect(error.message).toContain('but 2 matched, of 3 requests in the journal.')
    expect(error.message).not.toMatch(/closest|Initek/)
    // Too few is another story: then the near miss is the news.
    const tooFew = (await ctx.mock.mock.assertRequested(initech, { times: 3 }).catch((e: unknown) => e)) as RequestAssertionError
    expect(tooFew.nearMisses.map((miss) => miss.differences)).toEqual([[{ pointer: '/body/Rows/0/Row/Customer', expected: '"Initech"', actual: '"Initek"' }]])
    expect(tooFew.message).toContain('The closest request that did not match:')
    // The near-misses call lists the closest others whatever matched.
    const listed = await nearMisses(`operationId=saveItems&match=${matchParam(initech.match)}`)
    expect(listed).toMatchObject({ matched: 2, total: 3 })
    expect(listed.nearMisses.map((miss: { distance: number; differences: unknown[] }) => [miss.distance, miss.differences])).toEqual([
      [0.5, [{ pointer: '/body/Rows/0/Row/Customer', expected: '"Initech"', actual: '"Initek"' }]],
    ])
  })

  it('scores headers by the share of header patterns a request meets: nearer first, whatever the order they came in', async () => {
    const headers = (extra: Record<string, string>) => ({ headers: { ...ctx.mock.dataHeaders(ctx.token), ...extra } })
    await ctx.mock.request('POST', '/ExplorerApi/api/items', {
      json: { query: '$top=1' },
      ...headers({ 'X-Run': 'run-1', 'X-Case': 'first', 'X-Step': 'one' }),
    })
    await ctx.mock.request('POST', '/ExplorerApi/api/items', {
      json: { query: '$top=1' },
      ...headers({ 'X-Run': 'run-2', 'X-Case': 'second', 'X-Step': 'two' }),
    })
    await ctx.mock.request('POST', '/ExplorerApi/api/items', { json: { query: '$top=1' }, ...headers({ 'X-Run': 'other', 'X-Case': 'third' }) })
    const want = { headers: { 'X-Run': { $regex: '^run-' }, 'X-Case': 'second', 'X-Step': { $contains: 'w' } } }
    const listed = await nearMisses(`match=${matchParam(want)}`)
    expect(listed.matched).toBe(1)
    // The first request meets one of three patterns, the third none (and lacks X-Step).
    expect(
      listed.nearMisses.map((miss: { distance: number; differences: Array<{ pointer: string }> }) => [miss.distance, miss.differences.map((d) => d.pointer)]),
    ).toEqual([
      [0.667, ['/headers/x-case', '/headers/x-step']],
      [1, ['/headers/x-run', '/headers/x-case', '/headers/x-step']],
    ])
    expect(listed.nearMisses[1].differences[2]).toEqual({ pointer: '/headers/x-step', expected: 'a text containing "w"', actual: 'absent' })
  })
})

describe('a user whose e-mail the fixture writes in mixed case', () => {
  const EMAIL = 'Viewer.Mixed@ACME.test'
  let mock: TestClient
  let token: string
  beforeAll(async () => {
    const fixture = JSON.parse(readFileSync(new URL('../../fixtures/default.json', import.meta.url), 'utf8')) as Record<string, any>
    fixture.organization.users[1].email = EMAIL
    mock = await startTestMock({ fixtureData: fixture })
    // Signed in as the address is written in another case.
    token = await mock.signIn({ username: EMAIL.toLowerCase(), password: IDS.viewer.password })
  })
  afterAll(() => mock?.close())

  it('is matched in any case by a rule, the journal and an assertion', async () => {
    await mock.request('POST', '/__mock/stubs', { json: { operationId: 'queryItems', match: { user: EMAIL.toLowerCase() }, answer: { body: [] } } })
    expect((await mock.items(token, '$top=2')).body).toEqual([])
    const admin = await mock.signIn()
    expect((await mock.items(admin, '$top=2')).body).toHaveLength(2)
    const journal = (await mock.request('GET', `/__mock/requests?match=${matchParam({ user: EMAIL.toUpperCase() })}`)).body.entries
    expect(journal.map((entry: { operationId: string; user: string }) => [entry.operationId, entry.user])).toEqual([['queryItems', EMAIL]])
    await expect(mock.mock.assertRequested({ operationId: 'queryItems', match: { user: EMAIL.toLowerCase() } }, { times: 1 })).resolves.toHaveLength(1)
  })
})
