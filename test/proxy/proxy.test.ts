/**
 * `appdata-kit proxy` as a team runs it: the built command line started as a process between a
 * client (fetch, here) and a mock playing a broken installation (off-document answer rules, added
 * to the mock directly). Answers reach the client as the installation sent them; each broken answer
 * is reported on the installation's side with its pointer, an off-document request on the client's
 * side, a leniency as a warning; the usage file is the mock's own; the reports are written on
 * SIGTERM; --fail-on and --ignore decide the exit code; TLS, a target down and a target that hangs.
 */
import { createServer, type Server } from 'node:http'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { IDS, startTestMock, type TestClient } from '../helpers/http.ts'
import { launchChromium } from '../helpers/browser.ts'
import { sharedTempDir, tempDir } from '../helpers/temp-dir.ts'
import { runToEnd, startProcess, stopStarted } from '../cli/processes.ts'
import { startMock } from '../../src/mock/mock.ts'
import type { ProxyReport } from '../../src/commands/proxy/inspector.ts'
import { BIN, ITEMS, named, proxy, report, stop } from './support.ts'

const dir = sharedTempDir('appdata-kit-proxy-')
afterEach(stopStarted)

const SIGN_IN_FORM = new URLSearchParams({
  client_id: IDS.clientId,
  username: IDS.admin.username,
  password: IDS.admin.password,
  grant_type: 'password',
  scope: 'openid apiv1 nosession',
}).toString()

async function signIn(base: string): Promise<{ token: string; headers: Record<string, string> }> {
  const answer = await fetch(`${base}/identityprovider/${IDS.org}/connect/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: SIGN_IN_FORM,
  })
  expect(answer.status).toBe(200)
  const token = ((await answer.json()) as { access_token: string }).access_token
  return { token, headers: { 'content-type': 'application/json', ApplicationId: IDS.applicationId, WorkspaceId: IDS.workspaceId, SessionToken: token } }
}

/** An answer rule the document cannot give, added to the mock directly (the proxy is the client's way in, not the test's). */
async function brokenAnswer(mock: TestClient, rule: Record<string, unknown>): Promise<void> {
  const added = await mock.request('POST', '/__mock/stubs', { json: { offDocument: true, times: 1, ...rule }, unchecked: true })
  expect(added.status, JSON.stringify(added.body)).toBe(201)
}

/** Two of the mock's own rows with their Id (an integer) as text: a page off its schema in one member only. */
async function rowsWithTextIds(mock: TestClient): Promise<unknown[]> {
  const { headers } = await signIn(mock.url)
  const rows = (await (await fetch(`${mock.url}${ITEMS}`, { method: 'POST', headers, body: JSON.stringify({ query: '$top=2' }) })).json()) as Array<
    Record<string, unknown>
  >
  return rows.map((row, i) => ({ ...row, Id: ['one', 'two'][i] }))
}

/** No password, and nothing shaped like a session token (43 characters of base64url). */
function expectNoSecret(text: string, token: string): void {
  expect(text).not.toContain(IDS.admin.password)
  expect(text).not.toContain(token)
  expect(text).not.toMatch(/[A-Za-z0-9_-]{43}/)
}

/** The headers a client reads of an answer, bar those of one connection and the date. */
function endToEnd(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {}
  headers.forEach((value, name) => {
    if (!['connection', 'keep-alive', 'transfer-encoding', 'date'].includes(name)) out[name] = value
  })
  return out
}

describe('appdata-kit proxy in front of a broken installation', () => {
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

  it("passes every answer as it came, and reports one broken answer of each kind on the installation's side with its pointer", async () => {
    const run = await proxy(mock.url)
    const { token, headers } = await signIn(run.url)
    // An answer that keeps to the document, byte for byte the mock's, headers bar hop-by-hop ones.
    const body = JSON.stringify({ query: '$top=3' })
    const direct = await fetch(`${mock.url}${ITEMS}`, { method: 'POST', headers, body })
    const through = await fetch(`${run.url}${ITEMS}`, { method: 'POST', headers, body })
    expect(Buffer.from(await through.arrayBuffer())).toEqual(Buffer.from(await direct.arrayBuffer()))
    expect(endToEnd(through.headers)).toEqual(endToEnd(direct.headers))
    expect((await report(run)).violations).toEqual([])

    const textIds = await rowsWithTextIds(mock)
    const broken: Array<{ rule: Record<string, unknown>; path: string; request: Record<string, unknown>; pointer: string; sent: string }> = [
      {
        rule: { operationId: 'queryItems', answer: { status: 418, body: { title: "I'm a teapot" } } },
        path: ITEMS,
        request: { query: '$top=1' },
        pointer: '/status',
        sent: JSON.stringify({ title: "I'm a teapot" }),
      },
      {
        rule: { operationId: 'queryItems', answer: { status: 200, headers: { 'Content-Type': 'text/html' }, body: '<html>maintenance</html>' } },
        path: ITEMS,
        request: { query: '$top=1' },
        pointer: '/headers/Content-Type',
        sent: '<html>maintenance</html>',
      },
      {
        rule: { operationId: 'downloadAttachment', answer: { status: 200, headers: { 'Content-Type': 'application/pdf' }, body: '%PDF-1.4 not really' } },
        path: '/ExplorerApi/api/attachments/download',
        request: { ids: [1] },
        pointer: '/headers/Content-Disposition',
        sent: '%PDF-1.4 not really',
      },
      {
        rule: { operationId: 'queryItems', answer: { status: 200, body: textIds } },
        path: ITEMS,
        request: { query: '$top=2' },
        pointer: '/body/*/Id',
        sent: JSON.stringify(textIds),
      },
    ]
    for (const { rule, path, request, sent } of broken) {
      await brokenAnswer(mock, rule)
      const answer = await fetch(`${run.url}${path}`, { method: 'POST', headers, body: JSON.stringify(request) })
      expect(await answer.text()).toBe(sent)
    }
    // A redirect passes to the client as it came: the proxy follows none.
    await brokenAnswer(mock, { operationId: 'queryItems', answer: { status: 302, headers: { Location: 'https://sso.example.test/login' } } })
    const redirected = await fetch(`${run.url}${ITEMS}`, { method: 'POST', headers, body: JSON.stringify({ query: '$top=1' }), redirect: 'manual' })
    expect(redirected.status).toBe(302)
    expect(redirected.headers.get('location')).toBe('https://sso.example.test/login')

    // A gateway status is the infrastructure's, on any operation: a warning, not a violation.
    await brokenAnswer(mock, { operationId: 'saveItems', answer: { status: 503, body: { title: 'Service Unavailable', status: 503 } } })
    const order = { Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Initech', Amount: 5, Status: 'Open' }, Details: [] }] }
    expect((await fetch(`${run.url}${ITEMS}/save`, { method: 'POST', headers, body: JSON.stringify(order) })).status).toBe(503)

    const found = (await report(run)).violations
    expect(named(found, 'answer', 'saveItems', '/status')).toMatchObject([
      { severity: 'warning', status: 503, message: expect.stringContaining('gateway status') },
    ])
    for (const { rule, pointer } of broken) {
      const status = (rule.answer as { status: number }).status
      const [finding, ...more] = named(found, 'answer', rule.operationId as string, pointer).filter((f) => f.status === status)
      expect(more, pointer).toEqual([])
      expect(finding?.severity, pointer).toBe('violation')
    }
    // Both rows had an Id of the wrong type: one finding, its example the first row's, redacted of nothing secret.
    expect(named(found, 'answer', 'queryItems', '/body/*/Id')[0]).toMatchObject({ message: 'must be integer', example: 'one', count: 1, status: 200 })
    expect(
      named(found, 'answer', 'queryItems', '/status')
        .map((f) => f.status)
        .sort(),
    ).toEqual([302, 418])
    expect(found.filter((f) => f.side === 'request')).toEqual([])
    expect(await stop(run)).toBe(1)
    expectNoSecret(run.stdout + run.stderr, token)
  })

  it("reports a client's off-document request on its side, a leniency as a warning, and nothing for exchanges that keep to the document", async () => {
    const run = await proxy(mock.url, ['--fail-on', 'any'])
    const { headers } = await signIn(run.url)
    await fetch(`${run.url}${ITEMS}`, { method: 'POST', headers, body: JSON.stringify({ query: "$top=5&$orderby=Customer desc&$filter=Status eq 'Open'" }) })
    await fetch(`${run.url}${ITEMS}`, { method: 'POST', headers, body: JSON.stringify({ query: '$filter=MasterId eq 1&relationKey=OrderLines' }) })
    await fetch(`${run.url}/ExplorerApi/api/attachments?$filter=ParentId eq 1`, { headers })
    const saved = await fetch(`${run.url}${ITEMS}/save`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Initech', Amount: 5, Status: 'Open' }, Details: [] }] }),
    })
    expect(saved.status).toBe(200)
    expect((await report(run)).violations).toEqual([])

    // Off the document: Rows must be a list; the lenient mock refuses it too.
    expect((await fetch(`${run.url}${ITEMS}/save`, { method: 'POST', headers, body: JSON.stringify({ Rows: 'nope' }) })).status).toBe(400)
    // Leniencies: an option the description does not list, a member no schema names.
    expect((await fetch(`${run.url}${ITEMS}`, { method: 'POST', headers, body: JSON.stringify({ query: '$top=1&$select=Customer' }) })).status).toBe(200)
    expect((await fetch(`${run.url}${ITEMS}`, { method: 'POST', headers, body: JSON.stringify({ query: '$top=1', extra: true }) })).status).toBe(200)
    // What only the strict document refuses: a detail group without rows.
    const emptyGroup = {
      Rows: [
        {
          Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Initech', Amount: 5, Status: 'Open' },
          Details: [{ RelationKey: IDS.relationKey, Rows: [] }],
        },
      ],
    }
    expect((await fetch(`${run.url}${ITEMS}/save`, { method: 'POST', headers, body: JSON.stringify(emptyGroup) })).status).toBe(200)
    const found = (await report(run)).violations
    expect(named(found, 'request', 'saveItems', '/body/Rows/*/Details/*/Rows')).toMatchObject([
      { severity: 'warning', message: expect.stringContaining('strict mode refuses it') },
    ])
    expect(named(found, 'request', 'saveItems', '/body/Rows')).toMatchObject([
      { severity: 'violation', message: 'must be array', example: 'nope', status: 400 },
    ])
    expect(named(found, 'request', 'queryItems', '/body/query')).toMatchObject([
      { severity: 'warning', message: expect.stringContaining('UNSUPPORTED_QUERY_OPTION') },
    ])
    expect(named(found, 'request', 'queryItems', '/body/extra')).toMatchObject([{ severity: 'warning', message: expect.stringContaining('UNKNOWN_MEMBER') }])
    // The mock's own refusal (a 400 problem) is its choice, not the description's: nothing on the answer side.
    expect(found.filter((f) => f.side === 'answer')).toEqual([])
    expect(found).toHaveLength(4)
    expect(await stop(run)).toBe(1)
  })

  it('writes the usage file the mock itself records for the same traffic, with no value and no secret', async () => {
    const recorded = join(dir, 'mock-usage.json')
    const recorder = await startTestMock({ recordUsage: recorded })
    const usage = join(dir, 'proxy-usage.json')
    const run = await proxy(recorder.url, ['--record-usage', usage])
    const { token, headers } = await signIn(run.url)
    await fetch(`${run.url}${ITEMS}`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ query: "$top=5&$orderby=Customer desc&$filter=Status eq 'Open' and Amount gt 10" }),
    })
    await fetch(`${run.url}${ITEMS}`, { method: 'POST', headers, body: JSON.stringify({ query: '$filter=MasterId eq 1&relationKey=OrderLines' }) })
    await fetch(`${run.url}${ITEMS}`, { method: 'POST', headers: { ...headers, SessionToken: 'not-a-token' }, body: JSON.stringify({ query: '$top=1' }) })
    await fetch(`${run.url}${ITEMS}/save`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Secret Customer GmbH', Amount: 5, Status: 'Open' }, Details: [] }],
      }),
    })
    await fetch(`${run.url}/ExplorerApi/api/attachments/download`, { method: 'POST', headers, body: JSON.stringify({ ids: [1] }) })
    await fetch(`${run.url}/ExplorerApi/api/storage/${IDS.masterStorageId}/identity/IdRow/next/2`, { headers })
    expect(await stop(run)).toBe(0)
    await recorder.close()
    const text = readFileSync(usage, 'utf8')
    expect(text).toBe(readFileSync(recorded, 'utf8'))
    expect((JSON.parse(text) as { interactions: unknown[] }).interactions.length).toBeGreaterThan(5)
    expectNoSecret(text, token)
    for (const value of [IDS.admin.username, 'Secret Customer GmbH', 'Open']) expect(text).not.toContain(value)
  })

  it('writes the report on SIGTERM as JSON, JUnit and HTML, which a browser shows a section per side, with no password or token anywhere', async () => {
    const files = { report: join(dir, 'report.json'), junit: join(dir, 'report.xml'), html: join(dir, 'report.html') }
    const run = await proxy(mock.url, ['--report', files.report, '--junit', files.junit, '--html', files.html])
    const { token, headers } = await signIn(run.url)
    await fetch(`${run.url}${ITEMS}`, { method: 'POST', headers, body: JSON.stringify({ query: '$top=2' }) })
    const [row] = await rowsWithTextIds(mock)
    await brokenAnswer(mock, { operationId: 'queryItems', answer: { status: 200, body: [{ ...(row as object), SessionToken: token }] } })
    await fetch(`${run.url}${ITEMS}`, { method: 'POST', headers, body: JSON.stringify({ query: '$top=1' }) })
    await fetch(`${run.url}${ITEMS}/save`, { method: 'POST', headers, body: JSON.stringify({ Rows: 'nope', password: IDS.admin.password }) })
    expect(await stop(run)).toBe(1)
    const json = JSON.parse(readFileSync(files.report, 'utf8')) as ProxyReport
    expect(json).toMatchObject({ target: mock.url, release: '3.0.19', releaseFrom: 'sign-in', exchanges: 4 })
    for (const finding of json.violations)
      expect(Object.keys(finding)).toEqual(
        expect.arrayContaining(['side', 'severity', 'operationId', 'method', 'path', 'status', 'pointer', 'message', 'count']),
      )
    expect(named(json.violations, 'answer', 'queryItems', '/body/*/Id')).toHaveLength(1)
    expect(named(json.violations, 'request', 'saveItems', '/body/Rows')).toHaveLength(1)
    const junit = readFileSync(files.junit, 'utf8')
    expect(junit).toMatch(/<testsuite name="appdata-kit proxy: the installation(&apos;|')s answers"/)
    expect(junit).toMatch(/<failure message="[^"]*must be integer[^"]*" type="violation"/)
    const html = readFileSync(files.html, 'utf8')
    for (const text of [readFileSync(files.report, 'utf8'), junit, html, run.stdout, run.stderr]) expectNoSecret(text, token)
    expect(html).not.toMatch(/<(script|link|img)\b/i)

    const page = await browser.newPage()
    const fetched: string[] = []
    await page.route('**/*', (route) => {
      if (route.request().url().startsWith('file:')) return route.continue()
      fetched.push(route.request().url())
      return route.abort()
    })
    await page.goto(`file://${files.html}`)
    expect(await page.locator('h1').innerText()).toBe(`appdata-kit proxy: ${mock.url}`)
    expect(await page.locator('section.side h2').allInnerTexts()).toEqual(["The client's side: requests", "The installation's side: answers"])
    expect(await page.locator('#summary-answer td').nth(1).innerText()).toBe('1')
    const answers = page.locator('#side-answer')
    expect(await answers.locator('table.findings-table tr.violation td').nth(2).innerText()).toBe('/body/*/Id')
    // The exchange that showed it, open, with its violation and the answer the client received.
    const exchange = answers.locator('details.exchange[open]').first()
    expect(await exchange.locator('summary').innerText()).toMatch(/^POST \/ExplorerApi\/api\/items → 200/)
    expect(await exchange.locator('ul.findings li.violation').first().innerText()).toContain('must be integer')
    expect(await exchange.locator('pre.answer').innerText()).toContain('"Id": "one"')
    const requests = page.locator('#side-request')
    expect(await requests.locator('table.findings-table tr.violation td:nth-child(3)').allInnerTexts()).toContain('/body/Rows')
    expect(fetched).toEqual([])
    await page.close()
  })

  it('exits by --fail-on (answer, request, any, none), and --ignore sets the findings it lists apart', async () => {
    const ignore = join(dir, 'ignore.json')
    writeFileSync(
      ignore,
      JSON.stringify([{ side: 'answer', operationId: 'queryItems', pointer: '/body/*/Id', reason: 'staging sends text Ids until the next release' }]),
    )
    /** A session whose only violation is on one side. */
    const session = async (side: 'request' | 'answer', flags: string[]): Promise<{ code: number | null; found: ProxyReport }> => {
      const run = await proxy(mock.url, flags)
      const { headers } = await signIn(run.url)
      if (side === 'answer') {
        await brokenAnswer(mock, { operationId: 'queryItems', answer: { status: 200, body: await rowsWithTextIds(mock) } })
        await fetch(`${run.url}${ITEMS}`, { method: 'POST', headers, body: JSON.stringify({ query: '$top=1' }) })
      } else {
        await fetch(`${run.url}${ITEMS}/save`, { method: 'POST', headers, body: JSON.stringify({ Rows: 'nope' }) })
      }
      const found = await report(run)
      const code = await stop(run)
      return { code, found }
    }
    const codes: Record<string, number | null> = {}
    for (const failOn of ['answer', 'request', 'any', 'none']) {
      for (const side of ['request', 'answer'] as const) codes[`${failOn} ${side}`] = (await session(side, ['--fail-on', failOn])).code
    }
    expect(codes).toEqual({
      'answer request': 0,
      'answer answer': 1,
      'request request': 1,
      'request answer': 0,
      'any request': 1,
      'any answer': 1,
      'none request': 0,
      'none answer': 0,
    })
    const ignored = await session('answer', ['--ignore', ignore])
    expect(ignored.code).toBe(0)
    expect(ignored.found.violations).toEqual([])
    // The older JSON list, as it was written, still loads; the finding it accepts carries its reason.
    expect(ignored.found.ignored).toMatchObject([
      { side: 'answer', operationId: 'queryItems', pointer: '/body/*/Id', reason: 'staging sends text Ids until the next release' },
    ])
  }, 60_000)

  it('judges exchanges before the first sign-in by the newest release, marked, and then by the release the sign-in path shows', async () => {
    const legacy = await startTestMock({ productVersion: '2.9' })
    try {
      const run = await proxy(legacy.url)
      // Before any sign-in: the newest release's Get Items is a POST, so this GET is none of its operations.
      await fetch(`${run.url}${ITEMS}?$top=1`)
      const answer = await fetch(`${run.url}/IntelligenceUserManagementService/UserManagementService.svc/Token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ userName: IDS.admin.username, password: IDS.admin.password, clientId: IDS.legacyClientId }),
      })
      expect(answer.status).toBe(200)
      const { SessionToken: token } = (await answer.json()) as { SessionToken: string }
      const page = await fetch(`${run.url}${ITEMS}?$top=2`, {
        headers: { ApplicationId: IDS.applicationId, WorkspaceId: IDS.workspaceId, SessionToken: token },
      })
      expect(page.status).toBe(200)
      const found = await report(run)
      expect(found).toMatchObject({ release: '2.9.0', releaseFrom: 'sign-in' })
      expect(found.violations).toMatchObject([
        { side: 'request', operationId: null, pointer: '', release: '3.0.19', beforeSignIn: true, message: expect.stringContaining('queryItemsLegacy') },
      ])
      expect(await stop(run)).toBe(0)
      expectNoSecret(run.stdout + run.stderr, token)
    } finally {
      await legacy.close()
    }
  })
})

describe('appdata-kit proxy and its target', () => {
  it('speaks HTTPS to the target, trusting --ca (or anything with --insecure), and answers 502 naming the target when its certificate is not trusted (a broken exchange)', async () => {
    const certs = tempDir('appdata-kit-proxy-tls-')
    const secure = await startMock({ tls: 'self-signed', tlsOut: certs, logLevel: 'silent', port: 0 })
    try {
      expect(secure.url).toMatch(/^https:/)
      for (const flags of [['--ca', join(certs, 'cert.pem')], ['--insecure']]) {
        const run = await proxy(secure.url, flags)
        expect((await signIn(run.url)).token.length).toBeGreaterThan(10)
        expect(await stop(run)).toBe(0)
      }
      const untrusting = await proxy(secure.url)
      const refused = await fetch(`${untrusting.url}/identityprovider/${IDS.org}/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: SIGN_IN_FORM,
      })
      expect(refused.status).toBe(502)
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(await refused.json()).toMatchObject({ code: 'TARGET_UNREACHABLE', detail: expect.stringContaining(new URL(secure.url).origin) })
      // No answer of the target's reached the client: a broken exchange, which fails --fail-on answer.
      expect((await report(untrusting)).violations).toMatchObject([
        {
          side: 'answer',
          severity: 'violation',
          pointer: '/status',
          status: 502,
          message: expect.stringContaining('certificate is not trusted (DEPTH_ZERO_SELF_SIGNED_CERT)'),
        },
      ])
      expect(await stop(untrusting)).toBe(1)
    } finally {
      await secure.close()
    }
  })

  it('answers 502 with a problem naming a target that is down, and 504 for one that hangs past --timeout, each a broken exchange that fails the run', async () => {
    // A port that was just free: nothing listens there.
    const closed = createServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const downPort = (closed.address() as AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const down = await proxy(`http://127.0.0.1:${downPort}`)
    const refused = await fetch(`${down.url}${ITEMS}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"$top=1"}' })
    expect(refused.status).toBe(502)
    expect(await refused.json()).toMatchObject({ status: 502, code: 'TARGET_UNREACHABLE', detail: expect.stringContaining(`http://127.0.0.1:${downPort}`) })
    expect((await report(down)).violations.filter((f) => f.side === 'answer')).toMatchObject([
      { side: 'answer', severity: 'violation', pointer: '/status', status: 502, message: expect.stringContaining('could not be reached (ECONNREFUSED)') },
    ])
    expect(await stop(down)).toBe(1)

    // A target that takes the request and never answers.
    const held: Array<() => void> = []
    const hanging: Server = createServer((request) => {
      request.resume()
      held.push(() => request.socket.destroy())
    })
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', resolve))
    try {
      const run = await proxy(`http://127.0.0.1:${(hanging.address() as AddressInfo).port}`, ['--timeout', '300'])
      const late = await fetch(`${run.url}${ITEMS}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"query":"$top=1"}' })
      expect(late.status).toBe(504)
      expect(await late.json()).toMatchObject({ code: 'TARGET_TIMEOUT', detail: expect.stringContaining('300 ms') })
      expect(held.length).toBe(1)
      expect(await stop(run)).toBe(1)
    } finally {
      for (const release of held) release()
      await new Promise<void>((resolve) => hanging.close(() => resolve()))
    }
  })

  it('passes a 60 MB save through intact, streamed, with its body reported unchecked past --check-limit', async () => {
    const mock = await startTestMock()
    try {
      // The mock answers only once it has planned and written the save; the proxy waits for it however busy the machine is.
      const run = await proxy(mock.url, ['--timeout', '600000'])
      const { headers } = await signIn(run.url)
      const line = (i: number, j: number) => ({ Id: -(2 * i + j + 1_000_000), IdRow: null, TIMESTAMP: null, Product: `Line ${j}`, Quantity: j, UnitPrice: 1.5 })
      const text = 'x'.repeat(900)
      const count = 49_000
      const body = JSON.stringify({
        Rows: Array.from({ length: count }, (_, i) => ({
          Row: { Id: -(i + 1), IdRow: null, TIMESTAMP: null, Customer: text, Amount: i, Status: 'New' },
          Details: [{ RelationKey: IDS.relationKey, Rows: [line(i, 1), line(i, 2)] }],
        })),
      })
      expect(Buffer.byteLength(body)).toBeGreaterThan(55 * 1024 * 1024)
      expect(Buffer.byteLength(body)).toBeLessThan(60 * 1024 * 1024)
      const answer = await fetch(`${run.url}${ITEMS}/save`, { method: 'POST', headers, body })
      expect(answer.status).toBe(200)
      expect(await answer.json()).toMatchObject({ IsSaveSuccessfully: true, CreatedItems: 3 * count })
      const found = await report(run)
      expect(named(found.violations, 'request', 'saveItems', '/body')).toMatchObject([
        { severity: 'warning', message: expect.stringContaining('over --check-limit') },
      ])
      expect(found.violations.filter((f) => f.severity === 'violation')).toEqual([])
      expect(await stop(run)).toBe(0)
    } finally {
      await mock.close()
    }
  }, 120_000)

  it("passes the request on as it came, bar Host (the target's) and the hop-by-hop headers, also when sent in absolute form", async () => {
    const seen: Array<{ url: string; raw: string[]; body: string }> = []
    const echo: Server = createServer((request, response) => {
      let body = ''
      request.on('data', (chunk: Buffer) => (body += chunk.toString()))
      request.on('end', () => {
        seen.push({ url: request.url ?? '', raw: request.rawHeaders, body })
        response.writeHead(200, { 'content-type': 'text/plain', 'x-echo': 'yes', 'keep-alive': 'timeout=5' })
        response.end('echoed')
      })
    })
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve))
    const port = (echo.address() as AddressInfo).port
    try {
      const run = await proxy(`http://127.0.0.1:${port}/prefix`)
      const { request } = await import('node:http')
      const send = (path: string) =>
        new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
          const req = request(
            run.url,
            {
              method: 'POST',
              path,
              headers: { 'X-Keep': 'kept', 'X-Drop-Me': 'dropped', Connection: 'keep-alive, X-Drop-Me', TE: 'trailers', 'Content-Type': 'text/plain' },
            },
            (res) => {
              let body = ''
              res.on('data', (chunk: Buffer) => (body += chunk.toString()))
              res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
            },
          )
          req.on('error', reject)
          req.end('hello')
        })
      const plain = await send('/x?a=1')
      const absolute = await send(`http://example.test/y?b=2`)
      expect(plain).toMatchObject({ status: 200, body: 'echoed', headers: { 'x-echo': 'yes' } })
      expect(absolute.body).toBe('echoed')
      expect(seen.map((s) => s.url)).toEqual(['/prefix/x?a=1', '/prefix/y?b=2'])
      const names = (raw: string[]) => raw.filter((_, i) => i % 2 === 0).map((name) => name.toLowerCase())
      for (const { raw, body } of seen) {
        expect(body).toBe('hello')
        expect(raw[raw.findIndex((name) => name.toLowerCase() === 'host') + 1]).toBe(`127.0.0.1:${port}`)
        expect(raw[raw.indexOf('X-Keep') + 1]).toBe('kept')
        expect(names(raw)).not.toContain('x-drop-me')
        expect(names(raw)).not.toContain('te')
      }
      expect(await stop(run)).toBe(0)
    } finally {
      await new Promise<void>((resolve) => echo.close(() => resolve()))
    }
  })

  it('answers only loopback names when bound to loopback, as the mock does, and its health and report endpoints', async () => {
    const run = await proxy('http://127.0.0.1:9')
    expect((await fetch(`${run.url}/__proxy/health`)).status).toBe(200)
    const { request } = await import('node:http')
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${run.url}/__proxy/health`, { headers: { host: 'rebound.example.test' } }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on('error', reject)
      req.end()
    })
    expect(status).toBe(403)
    expect(await stop(run)).toBe(0)
  })

  it("takes --product-version as the mock takes it: a release it does not emulate exits 2 with the mock's own message", async () => {
    for (const release of ['9.9', '4', '1.0', 'x']) {
      const mocked = await runToEnd(process.execPath, [BIN, 'mock', '--port', '0', '--product-version', release])
      const proxied = await runToEnd(process.execPath, [BIN, 'proxy', '--target', 'http://127.0.0.1:9', '--port', '0', '--product-version', release])
      expect([mocked.code, proxied.code], release).toEqual([2, 2])
      const message = /--product-version must be [^\n]*/.exec(mocked.stderr)?.[0]
      expect(message, mocked.stderr).toContain(`got "${release}"`)
      expect(proxied.stderr).toContain(message)
    }
    // What the mock emulates, the proxy judges by.
    const older = await proxy('http://127.0.0.1:9', ['--product-version', '2.9'])
    expect(await stop(older)).toBe(0)
    expect(older.stderr).toContain('judged by release 2.9.0')
  })

  it('refuses bad flags and files with exit 2', async () => {
    const bad = join(dir, 'bad-ignore.json')
    writeFileSync(bad, JSON.stringify([{ side: 'sideways' }]))
    for (const flags of [
      [],
      ['--target', 'ftp://example.test'],
      ['--target', 'http://127.0.0.1:9', '--fail-on', 'sometimes'],
      ['--target', 'http://127.0.0.1:9', '--ignore', bad],
      ['--target', 'http://127.0.0.1:9', '--product-version', 'x'],
    ]) {
      const run = await startProcess(process.execPath, [BIN, 'proxy', '--port', '0', ...flags])
      expect((await run.exited).code, flags.join(' ')).toBe(2)
    }
  })

  it('refuses an ignore entry naming it from 1 with its member, as upgrade does', async () => {
    const bad = join(dir, 'bad-ignore.yaml')
    writeFileSync(bad, '- side: answer\n  reason: fine\n- side: sideways\n')
    const run = await startProcess(process.execPath, [BIN, 'proxy', '--port', '0', '--target', 'http://127.0.0.1:9', '--ignore', bad])
    expect((await run.exited).code).toBe(2)
    expect(run.stderr).toContain(`error: ${bad}: entry 2, member side: must be one of request, answer, *; got "sideways"`)
    writeFileSync(bad, JSON.stringify([{ side: 'answer', kind: 'path-moved' }]))
    const foreign = await startProcess(process.execPath, [BIN, 'proxy', '--port', '0', '--target', 'http://127.0.0.1:9', '--ignore', bad])
    expect((await foreign.exited).code).toBe(2)
    expect(foreign.stderr).toContain('entry 1, member kind: not a member of an entry of proxy --ignore')
  })
})
