/**
 * Answer rules (POST/GET/DELETE /__mock/stubs) over HTTP against a started mock: matching, whole
 * answers that perform nothing, merge patches of real answers, the off-document check, priority,
 * `times`, scenarios, delays, and the journal. Delays are asserted from below only; a big match by
 * the event loop's longest block, never by how long a request took.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { beforeEach, describe, expect, it } from 'vitest'
import { IDS, mockPerSuite, type Reply } from '../helpers/http.ts'
import { refusedSave } from '../../spec/control-plane/paths/add-stub.ts'
import { ProblemError } from '../../src/errors.ts'
import { refusal } from '../helpers/refusal.ts'

const SAVE = '/ExplorerApi/api/items/save'
const signInPath = `/identityprovider/${IDS.org}/connect/token`
const signInForm = {
  client_id: IDS.clientId,
  username: IDS.admin.username,
  password: IDS.admin.password,
  grant_type: 'password',
  scope: 'openid apiv1 nosession',
}

/** A save refused the product's way (the description, "Save rows"): the answer of the document's example rule, addStub's `refusedSave`. */
const REFUSED = refusedSave.answer.body

const newOrder = (customer: string) => ({
  Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: customer, Amount: 10, Status: 'Open' }, Details: [] }],
})

describe('/__mock/stubs', () => {
  const ctx = mockPerSuite()
  beforeEach(async () => {
    await ctx.mock.request('POST', '/__mock/reset')
  })

  const addStub = (rule: unknown): Promise<Reply> => ctx.mock.request('POST', '/__mock/stubs', { json: rule, unchecked: true })
  const save = (body: unknown): Promise<Reply> => ctx.mock.post(SAVE, ctx.token, body)
  const customers = async (customer: string): Promise<number> => (await ctx.mock.items(ctx.token, `$filter=Customer eq '${customer}'`)).body.length

  it('refuses only the matching save, only `times` times; other saves are performed', async () => {
    const added = await addStub({ ...refusedSave, times: 2 })
    expect(added.status).toBe(201)
    expect(added.body).toMatchObject({ id: expect.any(Number), operationId: 'saveItems', hits: 0, remaining: 2, priority: 5 })

    const outcomes: boolean[] = []
    for (let i = 0; i < 3; i++) outcomes.push((await save(newOrder('Initech'))).body.IsSaveSuccessfully)
    expect(outcomes).toEqual([false, false, true])
    const refused = (await save(newOrder('Initech'))).body
    expect(refused.IsSaveSuccessfully).toBe(true)
    // Two refused saves wrote nothing; the two performed ones wrote their rows.
    expect(await customers('Initech')).toBe(2)
    // A save the rule does not match is performed while the rule is active.
    await ctx.mock.request('POST', '/__mock/reset')
    await addStub({ operationId: 'saveItems', match: { body: { Rows: [{ Row: { Customer: 'Initech' } }] } }, answer: { body: REFUSED } })
    expect((await save(newOrder('Globex Two'))).body.IsSaveSuccessfully).toBe(true)
    expect(await customers('Globex Two')).toBe(1)
    const first = (await save(newOrder('Initech'))).body
    expect(first).toEqual(REFUSED)
  })

  it('a whole answer writes nothing, and the journal names the rule', async () => {
    const { body: rule } = await addStub({ operationId: 'saveItems', answer: { body: { ...REFUSED, CreatedItems: 0 } } })
    const reply = await save(newOrder('Nowritten'))
    expect(reply.status).toBe(200)
    expect(reply.contentType).toMatch(/^application\/json/)
    expect(await customers('Nowritten')).toBe(0)
    const entries = (await ctx.mock.request('GET', '/__mock/requests?operationId=saveItems&bodies=true')).body.entries
    expect(entries.at(-1)).toMatchObject({ status: 200, stub: rule.id, response: { body: REFUSED } })
    const read = (await ctx.mock.request('GET', '/__mock/requests?operationId=queryItems')).body.entries.at(-1)
    expect(read.stub).toBeNull()
  })

  it('a merge patch changes the real answer while the row is written', async () => {
    const { body: rule } = await addStub({ operationId: 'saveItems', answer: { patch: { LockedItems: 1, MasterToRecalculate: null } }, offDocument: true })
    const reply = await ctx.mock.post(SAVE, ctx.token, newOrder('Patched'), { unchecked: true })
    expect(reply.body).toMatchObject({ IsSaveSuccessfully: true, CreatedItems: 1, LockedItems: 1, ReturnData: { PrimaryKeyData: expect.any(Object) } })
    expect(reply.body).not.toHaveProperty('MasterToRecalculate')
    expect(await customers('Patched')).toBe(1)
    const entry = (await ctx.mock.request('GET', '/__mock/requests?operationId=saveItems&bodies=true')).body.entries.at(-1)
    expect(entry).toMatchObject({ stub: rule.id, response: { body: { LockedItems: 1 } } })
  })

  it('patches a page of rows (an answer the mock writes as ready bytes)', async () => {
    expect((await addStub({ operationId: 'queryItems', answer: { patch: [] } })).status).toBe(201)
    const reply = await ctx.mock.items(ctx.token, '$top=3')
    expect(reply.body).toEqual([])
    expect(reply.headers.get('x-mock-warnings')).toBeNull()
    expect(reply.headers.get('content-length')).toBe('2')
  })

  describe('an answer the served document cannot give', () => {
    const cases: Array<[string, unknown, string[]]> = [
      ['an undocumented status', { operationId: 'saveItems', answer: { status: 418, body: REFUSED } }, ['/body/answer/status']],
      [
        'a body that breaks the schema',
        { operationId: 'saveItems', answer: { body: { ...REFUSED, IsSaveSuccessfully: 'yes' } } },
        ['/body/answer/body/IsSaveSuccessfully'],
      ],
      [
        'a media type not declared',
        { operationId: 'saveItems', answer: { headers: { 'Content-Type': 'text/xml' }, body: '<ok/>' } },
        ['/body/answer/headers/Content-Type'],
      ],
      ['a patch that breaks the schema', { operationId: 'saveItems', answer: { patch: { CreatedItems: 'many' } } }, ['/body/answer/patch/CreatedItems']],
    ]
    it.each(cases)('is refused with the violations: %s', async (_name, rule, pointers) => {
      const refused = await addStub(rule)
      expect(refused.status).toBe(400)
      expect(refused.contentType).toMatch(/^application\/problem\+json/)
      expect(refused.body.code).toBe('VALIDATION')
      expect(refused.body.violations.map((v: { pointer: string }) => v.pointer)).toEqual(pointers)
      expect((await ctx.mock.request('GET', '/__mock/stubs')).body.rules).toEqual([])
    })

    it('is accepted with offDocument, and every answer it gives is flagged', async () => {
      const added = await addStub({ operationId: 'saveItems', answer: { status: 418, body: { IsSaveSuccessfully: 'yes' } }, offDocument: true })
      expect(added.status).toBe(201)
      expect(added.body).toMatchObject({ offDocument: true, violations: [{ pointer: '/body/answer/status' }] })
      for (let i = 0; i < 2; i++) {
        const reply = await ctx.mock.post(SAVE, ctx.token, newOrder('Teapot'), { unchecked: true })
        expect(reply.status).toBe(418)
        expect(reply.body).toEqual({ IsSaveSuccessfully: 'yes' })
        expect(reply.headers.get('x-mock-warnings')).toBe('OFF_DOCUMENT_ANSWER')
      }
      const patchRule = await addStub({ operationId: 'saveItems', answer: { patch: { CreatedItems: 'many' } }, offDocument: true, priority: 1 })
      expect(patchRule.status).toBe(201)
      const patched = await ctx.mock.post(SAVE, ctx.token, newOrder('Teapot'), { unchecked: true })
      expect(patched.body.CreatedItems).toBe('many')
      expect(patched.headers.get('x-mock-warnings')).toBe('OFF_DOCUMENT_ANSWER')
      // Strict mode gives no answer the description does not promise.
      const strict = await ctx.mock.post(SAVE, ctx.token, newOrder('Teapot'), { headers: { 'X-Mock-Strict': '1' } })
      expect(strict.status).toBe(400)
      expect(strict.body).toMatchObject({ code: 'STRICT_MODE', warning: 'OFF_DOCUMENT_ANSWER' })
    })

    it('a rule on every operation must say offDocument; patterns and operations are checked', async () => {
      const missing = await addStub({ answer: { status: 418 } })
      expect(missing.body.violations.map((v: { pointer: string }) => v.pointer)).toEqual(['/body/operationId'])
      // Keeping the operation's own answer needs no operation: a delay on every call.
      const everywhere = await addStub({ answer: {}, delayMs: 1, times: 1 })
      expect(everywhere.status).toBe(201)
      expect((await ctx.mock.items(ctx.token, '$top=1')).body).toHaveLength(1)
      expect((await ctx.mock.request('GET', '/__mock/stubs')).body.rules[0]).toMatchObject({ hits: 1, remaining: 0 })
      const bad = await addStub({
        operationId: 'saveItem',
        match: { body: { Customer: { $regex: '(a)\\1' } }, headers: { X: { $nope: 1 } } },
        answer: { patch: {} },
      })
      expect(bad.status).toBe(400)
      expect(bad.body.violations.map((v: { pointer: string }) => v.pointer)).toEqual([
        '/body/operationId',
        '/body/match/body/Customer/$regex',
        '/body/match/headers/X',
      ])
      const both = await addStub({ operationId: 'saveItems', answer: { patch: {}, status: 200 } })
      expect(both.body.violations.map((v: { pointer: string }) => v.pointer)).toEqual(['/body/answer/patch'])
      const schema = await addStub({ operationId: 'saveItems', answer: { patch: {} }, delayMs: 600_000, setState: 'x' })
      expect(schema.status).toBe(400)
      expect(schema.body.violations.map((v: { pointer: string }) => v.pointer).sort()).toEqual(['/body', '/body/delayMs'])
    })
  })

  it('tries lower priorities first, and the newest rule first among equals', async () => {
    const body = (n: number) => ({ ...REFUSED, UpdatedItems: n })
    await addStub({ operationId: 'saveItems', answer: { body: body(1) } })
    await addStub({ operationId: 'saveItems', answer: { body: body(2) } })
    expect((await save(newOrder('P'))).body.UpdatedItems).toBe(2)
    await addStub({ operationId: 'saveItems', answer: { body: body(3) }, priority: 1 })
    await addStub({ operationId: 'saveItems', answer: { body: body(4) }, priority: 9 })
    expect((await save(newOrder('P'))).body.UpdatedItems).toBe(3)
    const listed = (await ctx.mock.request('GET', '/__mock/stubs')).body.rules
    expect(listed.map((r: { answer: { body: { UpdatedItems: number } } }) => r.answer.body.UpdatedItems)).toEqual([3, 2, 1, 4])
    expect(listed.map((r: { hits: number }) => r.hits)).toEqual([1, 1, 0, 0])
  })

  it('plays a scenario: the second sign-in fails', async () => {
    const unauthorized = {
      type: 'urn:appdata-kit:problem:token-expired',
      title: 'Session token expired',
      status: 401,
      detail: 'Sign in again.',
      code: 'TOKEN_EXPIRED',
    }
    await addStub({ operationId: 'signIn', scenario: 'session', whenState: 'Started', setState: 'signed in', answer: { patch: {} } })
    await addStub({ operationId: 'signIn', scenario: 'session', whenState: 'signed in', answer: { status: 401, body: unauthorized } })
    const first = await ctx.mock.request('POST', signInPath, { form: signInForm })
    expect(first.status).toBe(200)
    expect(first.body.access_token).toEqual(expect.any(String))
    const second = await ctx.mock.request('POST', signInPath, { form: signInForm })
    expect(second.status).toBe(401)
    expect(second.contentType).toMatch(/^application\/problem\+json/)
    expect(second.body).toEqual(unauthorized)
    expect((await ctx.mock.request('GET', '/__mock/stubs')).body.scenarios).toEqual({ session: 'signed in' })
    // A reset removes the rules and the scenario states.
    const reset = await ctx.mock.request('POST', '/__mock/reset')
    expect(reset.body.cleared.stubs).toBe(2)
    expect((await ctx.mock.request('GET', '/__mock/stubs')).body).toEqual({ rules: [], scenarios: {} })
    expect((await ctx.mock.request('POST', signInPath, { form: signInForm })).status).toBe(200)
  })

  it('delays only the matching query', async () => {
    const delayMs = 400
    await addStub({ operationId: 'queryItems', match: { body: { query: { $contains: "Status eq 'Open'" } } }, answer: {}, delayMs })
    const started = performance.now()
    const slow = await ctx.mock.items(ctx.token, "$top=2&$filter=Status eq 'Open'")
    expect(slow.status).toBe(200)
    expect(performance.now() - started).toBeGreaterThanOrEqual(delayMs - 1)
    expect(slow.body).toHaveLength(2)
    await ctx.mock.items(ctx.token, '$top=2')
    const listed = (await ctx.mock.request('GET', '/__mock/stubs')).body.rules
    expect(listed[0].hits).toBe(1)
  })

  it('matches the signed-in user and headers', async () => {
    await addStub({ operationId: 'queryItems', match: { user: 'Viewer@acme.test', headers: { 'X-Test-Run': { $regex: '^run-' } } }, answer: { body: [] } })
    const viewer = await ctx.mock.signIn(IDS.viewer)
    const headers = (token: string, run?: string) => ({ headers: ctx.mock.dataHeaders(token, run === undefined ? {} : { 'X-Test-Run': run }) })
    const asViewer = await ctx.mock.request('POST', '/ExplorerApi/api/items', { json: { query: '$top=2' }, ...headers(viewer, 'run-7') })
    expect(asViewer.body).toEqual([])
    const noHeader = await ctx.mock.request('POST', '/ExplorerApi/api/items', { json: { query: '$top=2' }, ...headers(viewer) })
    expect(noHeader.body).toHaveLength(2)
    const asAdmin = await ctx.mock.request('POST', '/ExplorerApi/api/items', { json: { query: '$top=2' }, ...headers(ctx.token, 'run-7') })
    expect(asAdmin.body).toHaveLength(2)
  })

  it('never answers a request the mock refuses anyway: rules come after authorization', async () => {
    const { body: rule } = await addStub({ operationId: 'saveItems', answer: { body: REFUSED } })
    const viewer = await ctx.mock.signIn(IDS.viewer)
    // The read-only user may not save: 403, the rule's answer or not.
    const readOnly = await ctx.mock.post(SAVE, viewer, newOrder('Viewer'))
    expect(readOnly.status).toBe(403)
    expect(readOnly.body.code).toBe('READ_ONLY_USER')
    // An application the workspace lacks: 404.
    const unknownApplication = await ctx.mock.post(SAVE, ctx.token, newOrder('Elsewhere'), {
      headers: { ApplicationId: 'a1b2c3d4-0000-4000-8000-0000000000ff' },
    })
    expect(unknownApplication.status).toBe(404)
    expect(unknownApplication.body.code).toBe('UNKNOWN_APPLICATION')
    // A workspace that is not the user's: 403.
    const foreign = await ctx.mock.post(SAVE, ctx.token, newOrder('Elsewhere'), { headers: { WorkspaceId: '6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6bff' } })
    expect(foreign.status).toBe(403)
    expect(foreign.body.code).toBe('FOREIGN_WORKSPACE')
    // None of them was the rule's: its first hit is the admin's save.
    expect((await ctx.mock.request('GET', '/__mock/stubs')).body.rules[0]).toMatchObject({ id: rule.id, hits: 0 })
    expect((await save(newOrder('Admin'))).body).toEqual(REFUSED)
    expect((await ctx.mock.request('GET', '/__mock/stubs')).body.rules[0]).toMatchObject({ id: rule.id, hits: 1 })
  })

  it('lists hit counts, removes one rule by id (404 for an unknown one) or all', async () => {
    const a = (await addStub({ operationId: 'queryItems', answer: { body: [] }, name: 'empty' })).body
    const b = (await addStub({ operationId: 'saveItems', answer: { patch: {} } })).body
    await ctx.mock.items(ctx.token, '$top=1')
    const listed = (await ctx.mock.request('GET', '/__mock/stubs')).body
    expect(listed.rules.map((r: { id: number; hits: number }) => [r.id, r.hits])).toEqual([
      [b.id, 0],
      [a.id, 1],
    ])
    const removed = await ctx.mock.request('DELETE', `/__mock/stubs/${a.id}`)
    expect(removed.body).toMatchObject({ id: a.id, name: 'empty', hits: 1 })
    const unknown = await ctx.mock.request('DELETE', `/__mock/stubs/${a.id}`)
    expect(unknown.status).toBe(404)
    expect(unknown.contentType).toMatch(/^application\/problem\+json/)
    expect((await ctx.mock.items(ctx.token, '$top=1')).body).toHaveLength(1)
    expect((await ctx.mock.request('DELETE', '/__mock/stubs')).body).toEqual({ cleared: 1 })
    expect((await ctx.mock.request('GET', '/__mock/stubs')).body.rules).toEqual([])
  })

  it('shares one table with fault rules: a delay goes with an answer rule, a failing fault takes the request', async () => {
    const { body: rule } = await addStub({ operationId: 'queryItems', answer: { body: [] } })
    await ctx.mock.request('POST', '/__mock/faults', {
      json: {
        rules: [
          { operationId: 'queryItems', latencyMs: 200, times: 1 },
          { operationId: 'queryItems', status: 503, times: 1 },
        ],
      },
    })
    const started = performance.now()
    const delayed = await ctx.mock.items(ctx.token, '$top=1')
    expect(delayed.body).toEqual([])
    expect(performance.now() - started).toBeGreaterThanOrEqual(199)
    const failed = await ctx.mock.request('POST', '/ExplorerApi/api/items', {
      json: { query: '$top=1' },
      headers: ctx.mock.dataHeaders(ctx.token),
      unchecked: true,
    })
    expect(failed.status).toBe(503)
    expect((await ctx.mock.items(ctx.token, '$top=1')).body).toEqual([])
    const entries = (await ctx.mock.request('GET', '/__mock/requests?operationId=queryItems')).body.entries.slice(-3)
    expect(entries.map((e: { fault: string | null; stub: number | null }) => [e.fault, e.stub])).toEqual([
      ['latency', rule.id],
      ['status', null],
      [null, rule.id],
    ])
    // Clearing one kind leaves the other.
    expect((await ctx.mock.request('DELETE', '/__mock/faults')).body).toEqual({ cleared: 0 })
    expect((await ctx.mock.request('GET', '/__mock/stubs')).body.rules[0].hits).toBe(2)
  })

  it('is steered from startMock() too: stub, stubs, removeStub, clearStubs', async () => {
    const running = ctx.mock.mock
    const rule = running.stub({ operationId: 'saveItems', answer: { body: REFUSED }, times: 1 })
    expect(rule).toMatchObject({ id: expect.any(Number), remaining: 1, hits: 0 })
    expect((await save(newOrder('InProcess'))).body).toEqual(REFUSED)
    expect(running.stubs().rules).toEqual([{ ...rule, hits: 1, remaining: 0 }])
    // A used-up rule no longer matches.
    expect((await save(newOrder('InProcess'))).body.IsSaveSuccessfully).toBe(true)
    let refusal: unknown
    try {
      running.stub({ operationId: 'saveItems', answer: { status: 418, body: {} } })
    } catch (error) {
      refusal = error
    }
    expect(refusal).toMatchObject({ status: 400, code: 'VALIDATION', extra: { violations: [expect.objectContaining({ pointer: '/body/answer/status' })] } })
    expect(() => running.removeStub(999)).toThrow(/no answer rule 999/)
    expect(running.clearStubs()).toBe(1)
    expect(running.stubs()).toEqual({ rules: [], scenarios: {} })
  })

  it('matches a 2 MB body against one rule without stalling', async () => {
    await addStub({ operationId: 'saveItems', match: { body: { Rows: [{ Row: { Customer: { $regex: '^Needle' } } }] } }, answer: { body: REFUSED } })
    const rows = Array.from({ length: 9000 }, (_, i) => ({
      Row: { Id: -(i + 1), IdRow: null, TIMESTAMP: null, Customer: `Hay ${'x'.repeat(200)} ${i}`, Amount: i, Status: 'Open' },
      Details: [],
    }))
    rows.push({ Row: { Id: -9001, IdRow: null, TIMESTAMP: null, Customer: 'Needle', Amount: 1, Status: 'Open' }, Details: [] })
    const body = { Rows: rows }
    expect(JSON.stringify(body).length).toBeGreaterThan(2_000_000)
    // The mock runs in this process: the longest the event loop was held while it read the body,
    // matched it and answered is what other clients would have waited (a matcher that rescanned
    // the array per element would hold it for seconds).
    const loop = monitorEventLoopDelay({ resolution: 10 })
    loop.enable()
    const reply = await save(body)
    loop.disable()
    expect(reply.body).toEqual(REFUSED)
    expect(loop.max / 1e6).toBeLessThan(2_000)
    // The hay alone is not matched: the save is performed.
    rows.pop()
    expect((await save({ Rows: rows.slice(0, 50) })).body).toMatchObject({ IsSaveSuccessfully: true, CreatedItems: 50 })
  })
})

/** What a refusal over HTTP and the same refusal in process (`mock.stub()`) must both say. */
interface Refusal {
  status: number
  code: string
  detail: string
  violations: Array<{ pointer: string; keyword: string; message: string }>
}

describe('/__mock/stubs: every answer a rule gives is valid HTTP', () => {
  const ctx = mockPerSuite()
  beforeEach(async () => {
    await ctx.mock.request('POST', '/__mock/reset')
  })

  /** Adds a rule over HTTP (sent as written: a raw JSON text stays as it is) and in process, and answers both refusals. */
  const refusals = async (rule: unknown): Promise<{ http: Refusal; inProcess: Refusal }> => {
    const text = typeof rule === 'string' ? rule : JSON.stringify(rule)
    const reply = await ctx.mock.request('POST', '/__mock/stubs', { body: text, headers: { 'content-type': 'application/json' }, unchecked: true })
    expect(reply.status, text.slice(0, 200)).toBe(400)
    expect(reply.contentType).toMatch(/^application\/problem\+json/)
    let thrown: unknown
    try {
      ctx.mock.mock.stub(JSON.parse(text))
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(ProblemError)
    const error = thrown as ProblemError
    expect(ctx.mock.mock.stubs().rules).toEqual([])
    return { http: reply.body, inProcess: { status: error.status, code: error.code, detail: error.message, violations: error.violations } }
  }

  const deep = (levels: number, inner = '1'): string => `${'{"a":'.repeat(levels)}${inner}${'}'.repeat(levels)}`
  const tooDeepPointer = (at: string): string => `${at}${'/a'.repeat(64)}`

  const cases: Array<[string, unknown, string, string]> = [
    [
      'a header value with CR LF',
      { operationId: 'queryItems', answer: { headers: { 'X-Run': 'a\r\nSet-Cookie: x=1' }, body: [] } },
      '/body/answer/headers/X-Run',
      'headerValue',
    ],
    [
      'a header value with NUL',
      { operationId: 'queryItems', answer: { headers: { 'X-Run': 'a\u0000b' }, body: [] } },
      '/body/answer/headers/X-Run',
      'headerValue',
    ],
    [
      'a header value past U+00FF',
      { operationId: 'queryItems', answer: { headers: { 'X-Price': '5 €' }, body: [] } },
      '/body/answer/headers/X-Price',
      'headerValue',
    ],
    [
      'a header value past ASCII',
      { operationId: 'queryItems', answer: { headers: { 'X-City': 'Zürich' }, body: [] } },
      '/body/answer/headers/X-City',
      'headerValue',
    ],
    ['a header name with a space', { operationId: 'queryItems', answer: { headers: { 'X Run': 'a' }, body: [] } }, '/body/answer/headers/X Run', 'headerName'],
    [
      'a header name with a colon',
      { operationId: 'queryItems', answer: { headers: { 'X-Run:': 'a' }, body: [] } },
      '/body/answer/headers/X-Run:',
      'headerName',
    ],
    [
      'Transfer-Encoding: chunked',
      { operationId: 'queryItems', answer: { headers: { 'Transfer-Encoding': 'chunked' }, body: [] } },
      '/body/answer/headers/Transfer-Encoding',
      'connectionHeader',
    ],
    [
      'Content-Length',
      { operationId: 'queryItems', answer: { headers: { 'content-length': '2' }, body: [] } },
      '/body/answer/headers/content-length',
      'connectionHeader',
    ],
    [
      'Connection',
      { operationId: 'queryItems', answer: { headers: { Connection: 'close' }, body: [] } },
      '/body/answer/headers/Connection',
      'connectionHeader',
    ],
    [
      'Keep-Alive',
      { operationId: 'queryItems', answer: { headers: { 'Keep-Alive': 'timeout=5' }, body: [] } },
      '/body/answer/headers/Keep-Alive',
      'connectionHeader',
    ],
    [
      'Proxy-Connection',
      { operationId: 'queryItems', answer: { headers: { 'Proxy-Connection': 'keep-alive' }, body: [] } },
      '/body/answer/headers/Proxy-Connection',
      'connectionHeader',
    ],
    ['TE', { operationId: 'queryItems', answer: { headers: { TE: 'trailers' }, body: [] } }, '/body/answer/headers/TE', 'connectionHeader'],
    ['Trailer', { operationId: 'queryItems', answer: { headers: { Trailer: 'X-Sum' }, body: [] } }, '/body/answer/headers/Trailer', 'connectionHeader'],
    ['Upgrade', { operationId: 'queryItems', answer: { headers: { Upgrade: 'websocket' }, body: [] } }, '/body/answer/headers/Upgrade', 'connectionHeader'],
    ['Host', { operationId: 'queryItems', answer: { headers: { Host: 'example.test' }, body: [] } }, '/body/answer/headers/Host', 'connectionHeader'],
    [
      'Access-Control-Allow-Origin',
      { operationId: 'queryItems', answer: { headers: { 'Access-Control-Allow-Origin': '*' }, body: [] } },
      '/body/answer/headers/Access-Control-Allow-Origin',
      'corsHeader',
    ],
    [
      'one header named twice',
      { operationId: 'queryItems', answer: { headers: { 'content-type': 'application/json', 'Content-Type': 'text/xml' }, body: [] } },
      '/body/answer/headers/Content-Type',
      'duplicateHeader',
    ],
    // A 100 left the client waiting for an answer that never came; a 101 switched protocols.
    ['an interim status', { operationId: 'queryItems', answer: { status: 101 } }, '/body/answer/status', 'minimum'],
    ['a body with 204', { operationId: 'queryItems', answer: { status: 204, body: 'x' } }, '/body/answer/body', 'noContent'],
    ['a body 65 levels deep', `{"operationId":"queryItems","answer":{"body":${deep(65)}}}`, tooDeepPointer('/body/answer/body'), 'maxDepth'],
    ['a body 5,000 levels deep', `{"operationId":"queryItems","answer":{"body":${deep(5000)}}}`, tooDeepPointer('/body/answer/body'), 'maxDepth'],
    ['a patch 65 levels deep', `{"operationId":"saveItems","answer":{"patch":${deep(65)}}}`, tooDeepPointer('/body/answer/patch'), 'maxDepth'],
    ['a patch 5,000 levels deep', `{"operationId":"saveItems","answer":{"patch":${deep(5000)}}}`, tooDeepPointer('/body/answer/patch'), 'maxDepth'],
    [
      'a body pattern 5,000 levels deep',
      `{"operationId":"saveItems","match":{"body":${deep(5000)}},"answer":{}}`,
      tooDeepPointer('/body/match/body'),
      'maxDepth',
    ],
  ]
  it.each(cases)('refuses %s with 400 and its pointer, over HTTP and in process alike, offDocument or not', async (_name, rule, pointer, keyword) => {
    for (const offDocument of [false, true]) {
      const written = typeof rule === 'string' ? (offDocument ? rule.replace(/^\{/, '{"offDocument":true,') : rule) : { ...(rule as object), offDocument }
      const { http, inProcess } = await refusals(written)
      expect(http).toMatchObject({ status: 400, code: 'VALIDATION' })
      // Off the document too (204 is no status of Get Items), it is refused; with offDocument, for this alone.
      expect(http.violations).toContainEqual(expect.objectContaining({ pointer, keyword }))
      if (offDocument) expect(http.violations).toEqual([expect.objectContaining({ pointer, keyword })])
      expect(http.detail).toContain(pointer)
      expect(inProcess).toEqual({ status: http.status, code: http.code, detail: http.detail, violations: http.violations })
    }
  })

  it('sends the headers it accepts, a tab in a value, and a body 64 levels deep', async () => {
    const added = await ctx.mock.request('POST', '/__mock/stubs', {
      json: { operationId: 'queryItems', answer: { headers: { 'X-Run': 'a\tb', "X-Installation's_Own~Header": 'v 1', 'Set-Cookie': 'run=7' }, body: [] } },
      unchecked: true,
    })
    expect(added.status).toBe(201)
    const reply = await ctx.mock.items(ctx.token, '$top=1')
    expect(reply.body).toEqual([])
    expect(reply.headers.get('x-run')).toBe('a\tb')
    expect(reply.headers.get("x-installation's_own~header")).toBe('v 1')
    expect(reply.headers.get('set-cookie')).toBe('run=7')
    const deepest = `{"operationId":"queryItems","priority":1,"offDocument":true,"answer":{"body":${deep(64, '"bottom"')}}}`
    expect((await ctx.mock.request('POST', '/__mock/stubs', { body: deepest, headers: { 'content-type': 'application/json' }, unchecked: true })).status).toBe(
      201,
    )
    const nested = await ctx.mock.request('POST', '/ExplorerApi/api/items', {
      json: { query: '$top=1' },
      headers: ctx.mock.dataHeaders(ctx.token),
      unchecked: true,
    })
    expect(nested.status).toBe(200)
    expect(nested.raw.toString()).toBe(deep(64, '"bottom"'))
  })

  it('answers no request with 500 after a refused rule: the refused rule was never added', async () => {
    await refusals({ operationId: 'queryItems', answer: { headers: { 'X-Run': 'a\r\nb' }, body: [] } })
    await refusals({ operationId: 'queryItems', answer: { headers: { 'Transfer-Encoding': 'chunked' }, body: [] } })
    const reply = await ctx.mock.items(ctx.token, '$top=1')
    expect(reply.status).toBe(200)
    expect(reply.body).toHaveLength(1)
  })
})

describe('/__mock/stubs: gateway statuses, the document, strict mode', () => {
  const ctx = mockPerSuite()
  const strictCtx = mockPerSuite({ strict: true })
  beforeEach(async () => {
    await ctx.mock.request('POST', '/__mock/reset')
    await strictCtx.mock.request('POST', '/__mock/reset')
  })
  const addStub = (rule: unknown, mock = ctx.mock): Promise<Reply> => mock.request('POST', '/__mock/stubs', { json: rule, unchecked: true })
  const rawSave = (body: unknown, headers: Record<string, string> = {}, mock = ctx.mock, token = ctx.token): Promise<Reply> =>
    mock.request('POST', SAVE, { json: body, headers: { ...mock.dataHeaders(token), ...headers }, unchecked: true })
  const pointers = (reply: Reply): string[] => reply.body.violations.map((v: { pointer: string }) => v.pointer)

  it('gives a gateway status on any operation without offDocument, flagged INFRASTRUCTURE_ANSWER, even to a strict request', async () => {
    const added = await addStub({ operationId: 'saveItems', answer: { status: 503, headers: { 'Retry-After': '2' }, body: 'Service Unavailable' } })
    expect(added.status).toBe(201)
    expect(added.body).toMatchObject({ offDocument: false, violations: [] })
    for (const strict of ['0', '1']) {
      const reply = await rawSave(newOrder('Gateway'), { 'X-Mock-Strict': strict })
      expect(reply.status).toBe(503)
      expect(reply.contentType).toMatch(/^text\/plain/)
      expect(reply.body).toBe('Service Unavailable')
      expect(reply.headers.get('retry-after')).toBe('2')
      expect(reply.headers.get('x-mock-warnings')).toBe('INFRASTRUCTURE_ANSWER')
    }
    // Nothing was written, and the journal has the warning.
    expect((await ctx.mock.items(ctx.token, "$filter=Customer eq 'Gateway'")).body).toEqual([])
    expect(ctx.mock.mock.requests({ operationId: 'saveItems' }).at(-1)?.warnings).toEqual([
      { code: 'INFRASTRUCTURE_ANSWER', message: expect.stringContaining('503') },
    ])
    // Without a body, and on every operation (no operationId, no offDocument): a 502 for a read.
    expect((await addStub({ answer: { status: 502 }, priority: 1, times: 1 })).status).toBe(201)
    const read = await ctx.mock.request('POST', '/ExplorerApi/api/items', {
      json: { query: '$top=1' },
      headers: ctx.mock.dataHeaders(ctx.token),
      unchecked: true,
    })
    expect(read.status).toBe(502)
    expect(read.raw.length).toBe(0)
    expect(read.headers.get('x-mock-warnings')).toBe('INFRASTRUCTURE_ANSWER')
  })

  it('holds a gateway status the operation lists to its document (Sign in answers 503 with a problem)', async () => {
    const refused = await addStub({ operationId: 'signIn', answer: { status: 503, body: { retry: true } } })
    expect(refused.status).toBe(400)
    expect(pointers(refused)).toContain('/body/answer/body/title')
  })

  it('needs offDocument for any other status the operation does not list, and then flags OFF_DOCUMENT_ANSWER', async () => {
    expect(pointers(await addStub({ operationId: 'saveItems', answer: { status: 429 } }))).toEqual(['/body/answer/status'])
    expect((await addStub({ operationId: 'saveItems', answer: { status: 429 }, offDocument: true })).status).toBe(201)
    const reply = await rawSave(newOrder('TooMany'))
    expect(reply.status).toBe(429)
    expect(reply.headers.get('x-mock-warnings')).toBe('OFF_DOCUMENT_ANSWER')
  })

  it('in a mock started with --strict, refuses an off-document rule when it is added, naming offDocument (HTTP and in process)', async () => {
    const rule = { operationId: 'saveItems', answer: { status: 418, body: REFUSED }, offDocument: true }
    const refused = await addStub(rule, strictCtx.mock)
    expect(refused.status).toBe(400)
    expect(refused.body).toMatchObject({ code: 'STRICT_MODE', warning: 'OFF_DOCUMENT_ANSWER' })
    expect(pointers(refused)).toEqual(['/body/offDocument', '/body/answer/status'])
    expect(refused.body.detail).toMatch(/^\/body\/offDocument is refused in strict mode/)
    const thrown = refusal(() => strictCtx.mock.mock.stub(rule))
    expect({ status: thrown.status, code: thrown.code, detail: thrown.message, violations: thrown.violations }).toEqual({
      status: 400,
      code: 'STRICT_MODE',
      detail: refused.body.detail,
      violations: refused.body.violations,
    })
    // A patch off the document too; what the document gives, and a gateway status, are accepted.
    expect(pointers(await addStub({ operationId: 'saveItems', answer: { patch: { Colour: 'red' } }, offDocument: true }, strictCtx.mock))).toEqual([
      '/body/offDocument',
      '/body/answer/patch/Colour',
    ])
    expect((await addStub({ operationId: 'saveItems', answer: { body: REFUSED }, offDocument: true }, strictCtx.mock)).status).toBe(201)
    expect((await addStub({ operationId: 'saveItems', answer: { status: 504 }, priority: 1 }, strictCtx.mock)).status).toBe(201)
    const token = await strictCtx.mock.signIn()
    const gateway = await rawSave(newOrder('Strict'), {}, strictCtx.mock, token)
    expect(gateway.status).toBe(504)
    expect(gateway.headers.get('x-mock-warnings')).toBe('INFRASTRUCTURE_ANSWER')
    expect(strictCtx.mock.mock.stubs().rules).toHaveLength(2)
  })

  it('says plainly that `*` is no operation: a rule for every operation leaves operationId out', async () => {
    const refused = await addStub({ operationId: '*', answer: { status: 503 } })
    expect(refused.status).toBe(400)
    expect(refused.body.violations).toEqual([expect.objectContaining({ pointer: '/body/operationId', keyword: 'everyOperation' })])
    expect(refused.body.detail).toContain('leaves operationId out')
    expect(refused.body.detail).not.toContain('pattern')
    // Other faults of the rule are still named beside it.
    expect(pointers(await addStub({ operationId: '*', answer: { status: 503 }, times: 0 })).sort()).toEqual(['/body/operationId', '/body/times'])
    expect(refusal(() => ctx.mock.mock.stub({ operationId: '*', answer: { status: 503 } })).violations).toEqual(refused.body.violations)
  })

  it('refuses in process with the violations, naming the wrong value before the members missing', async () => {
    const thrown = refusal(() => ctx.mock.mock.stub({ operationId: 'saveItems', answer: { body: { IsSaveSuccessfully: 3 } } }))
    expect(thrown).toMatchObject({ status: 400, code: 'VALIDATION' })
    expect(thrown.violations).toHaveLength(12)
    expect(thrown.violations).toContainEqual({ pointer: '/body/answer/body/IsSaveSuccessfully', keyword: 'type', message: 'must be boolean' })
    expect(thrown.message).toMatch(/^\/body\/answer\/body\/IsSaveSuccessfully must be boolean; /)
    expect(thrown.message).toMatch(/\(and 9 more\)$/)
    // An array of rows where the answer may be rows or a count: no "must be object" from the count's alternative.
    const rows = refusal(() => ctx.mock.mock.stub({ operationId: 'queryItems', answer: { body: [{ Id: 'x' }] } }))
    expect(rows.message).toMatch(/^\/body\/answer\/body\/0\/Id must be integer; /)
    expect(rows.violations.map((v) => v.pointer)).not.toContain('/body/answer/body')
  })

  it('refuses a patch member the success answer does not name, unless offDocument', async () => {
    const refused = await addStub({ operationId: 'saveItems', answer: { patch: { LockedItem: 1 } } })
    expect(refused.status).toBe(400)
    expect(refused.body.violations).toEqual([expect.objectContaining({ pointer: '/body/answer/patch/LockedItem', keyword: 'unknownMember' })])
    // Members it names, and keys of a map it declares (PrimaryKeyData, newKeys), are fine.
    expect(
      (await addStub({ operationId: 'saveItems', answer: { patch: { LockedItems: 1, ReturnData: { PrimaryKeyData: { '-7': { newKeys: { Id: '99' } } } } } } }))
        .status,
    ).toBe(201)
    const off = await addStub({ operationId: 'saveItems', answer: { patch: { LockedItem: 1 } }, offDocument: true, priority: 1 })
    expect(off.status).toBe(201)
    const reply = await rawSave(newOrder('Misspelt'))
    expect(reply.body.LockedItem).toBe(1)
    expect(reply.headers.get('x-mock-warnings')).toBe('OFF_DOCUMENT_ANSWER')
  })

  it('refuses a header pattern that can never match, and `times` past 2^31 - 1', async () => {
    for (const pattern of [{ a: 1 }, 5, ['x'], { $contains: 'x', $regex: 'y' }]) {
      const refused = await addStub({ operationId: 'queryItems', match: { headers: { 'X-Run': pattern } }, answer: {} })
      expect(refused.status, JSON.stringify(pattern)).toBe(400)
      expect(
        refused.body.violations.map((v: { pointer: string }) => v.pointer),
        JSON.stringify(pattern),
      ).toEqual(['/body/match/headers/X-Run'])
    }
    for (const pattern of ['run-7', { $contains: 'run' }, { $regex: '^run-' }]) {
      expect((await addStub({ operationId: 'queryItems', match: { headers: { 'X-Run': pattern } }, answer: {} })).status, JSON.stringify(pattern)).toBe(201)
    }
    expect(pointers(await addStub({ operationId: 'queryItems', answer: {}, times: 2 ** 31 }))).toEqual(['/body/times'])
    expect((await addStub({ operationId: 'queryItems', answer: {}, times: 2 ** 31 - 1 })).body.remaining).toBe(2 ** 31 - 1)
  })
})
