/**
 * Request assertions: `GET /__mock/requests?match=`, `GET /__mock/requests/near-misses` and
 * `mock.assertRequested()` over the pattern language of answer rules.
 */
import type { Server } from 'node:http'
import { connect, type Socket } from 'node:net'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startTestMock, IDS, type TestClient } from '../helpers/http.ts'
import { RequestAssertionError } from '../../src/journal/assertion.ts'
import { ProblemError } from '../../src/errors.ts'
import { until } from '../helpers/until.ts'

const SAVE = '/ExplorerApi/api/items/save'
const newRow = (customer: string): unknown => ({ Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: customer, Status: 'Open' }, Details: [] }] })
const query = (match: unknown, extra = ''): string => `/__mock/requests?match=${encodeURIComponent(JSON.stringify(match))}${extra}`
const seqs = (entries: Array<{ seq: number }>): number[] => entries.map((entry) => entry.seq)

describe('request assertions', () => {
  let mock: TestClient
  let admin: string
  beforeAll(async () => {
    mock = await startTestMock()
    admin = await mock.signIn()
  })
  afterAll(() => mock.close())
  beforeEach(() => {
    mock.mock.clearRequests()
  })

  /**
   * A Get Items request in flight, sent over a socket of its own, resolved once the mock has taken
   * it (marked it in flight and applied its fault rules: a rule used once, then gone). Held by its
   * client, which sends all of the body but its last byte until `finish` (a probe rule of 1 ms
   * counts it), or by a fault rule of 3 s. `abandon` closes the connection and resolves once the
   * mock's side of it is closed too.
   */
  async function holdInFlight(target: TestClient, token: string, query: string, heldBy: 'client' | 'fault' = 'client') {
    const server = (target.mock.app as unknown as { server: Server }).server
    const serverSide = new Promise<Socket>((resolve) => server.once('connection', resolve))
    target.mock.setFaults([{ operationId: 'queryItems', latencyMs: heldBy === 'client' ? 1 : 3000, times: 1 }])
    const body = Buffer.from(JSON.stringify({ query }))
    const { hostname, port } = new URL(target.url)
    const socket = connect({ host: hostname, port: Number(port) })
    let answer = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => (answer += chunk))
    socket.on('error', () => undefined)
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
    const headers = Object.entries({
      ...target.dataHeaders(token),
      'Content-Type': 'application/json',
      'Content-Length': String(body.length),
      Connection: 'close',
    })
    socket.write(`POST /ExplorerApi/api/items HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${headers.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n`)
    socket.write(heldBy === 'client' ? body.subarray(0, -1) : body)
    const accepted = await serverSide
    // Bounded: a mock that never takes the request fails here, not by the test's timeout.
    await until(() => target.mock.faults().rules.length === 0, 'the mock to take the request')
    return {
      status: closed.then(() => Number(/^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1])),
      // The last byte without a FIN: Node's server ends a connection whose client half-closed it before
      // the answer was written (no half-open), so ending here would race the mock's answer. With
      // `Connection: close` the mock closes the connection once it has answered.
      finish: () => void socket.write(body.subarray(-1)),
      abandon: async () => {
        const gone = new Promise<void>((resolve) => accepted.once('close', () => resolve()))
        socket.destroy()
        await gone
      },
    }
  }

  /** The seq the journal gave the newest request. */
  const lastSeq = async (): Promise<number> => (await mock.request('GET', '/__mock/requests?limit=1')).body.entries[0].seq

  describe('GET /__mock/requests?match=', () => {
    it('keeps exactly the saves whose body has the member, and applies before limit', async () => {
      expect((await mock.post(SAVE, admin, newRow('Initech'))).status).toBe(200)
      const initech = await lastSeq()
      await mock.post(SAVE, admin, newRow('Initek'))
      await mock.items(admin, '$top=1')
      await mock.post(SAVE, admin, newRow('Initech'))
      const second = await lastSeq()
      await mock.post(SAVE, admin, newRow('Globex'))
      const match = { body: { Rows: [{ Row: { Customer: 'Initech' } }] } }
      const reply = await mock.request('GET', query(match))
      expect(reply.status).toBe(200)
      expect(seqs(reply.body.entries)).toEqual([initech, second])
      expect(reply.body.entries.every((entry: { operationId: string }) => entry.operationId === 'saveItems')).toBe(true)
      // The newest matching one, not the newest request.
      expect(seqs((await mock.request('GET', query(match, '&limit=1'))).body.entries)).toEqual([second])
      // Beside operationId, with bodies.
      const shown = (await mock.request('GET', query(match, '&operationId=saveItems&bodies=true'))).body.entries
      expect(shown.map((entry: { request: { body: { Rows: Array<{ Row: { Customer: string } }> } } }) => entry.request.body.Rows[0]?.Row.Customer)).toEqual([
        'Initech',
        'Initech',
      ])
      expect((await mock.request('GET', query(match, '&operationId=queryItems'))).body.entries).toEqual([])
    })

    it('matches the Get Items query text with $contains', async () => {
      await mock.items(admin, "$filter=Status eq 'Open'&$top=2")
      const open = await lastSeq()
      await mock.items(admin, '$top=2')
      await mock.items(admin, "$filter=Status eq 'Closed'")
      const reply = await mock.request('GET', query({ body: { query: { $contains: "Status eq 'Open'" } } }))
      expect(seqs(reply.body.entries)).toEqual([open])
      const regex = await mock.request('GET', query({ body: { query: { $regex: "^\\$filter=Status eq '(Open|Closed)'" } } }))
      expect(seqs(regex.body.entries)).toEqual([open, open + 2])
    })

    it('matches a header, by name in any case', async () => {
      await mock.post('/ExplorerApi/api/items', admin, { query: '$top=1' }, { headers: { 'X-Test-Case': 'first' } })
      const first = await lastSeq()
      await mock.post('/ExplorerApi/api/items', admin, { query: '$top=1' }, { headers: { 'X-Test-Case': 'second' } })
      await mock.items(admin, '$top=1')
      expect(seqs((await mock.request('GET', query({ headers: { 'x-test-case': 'first' } }))).body.entries)).toEqual([first])
      expect(seqs((await mock.request('GET', query({ headers: { 'X-TEST-CASE': { $contains: 's' } } }))).body.entries)).toEqual([first, first + 1])
    })

    it('records the signed-in user and matches it; a sign-in has none', async () => {
      const viewer = await mock.signIn(IDS.viewer)
      await mock.items(viewer, '$top=1')
      const viewed = await lastSeq()
      await mock.items(admin, '$top=1')
      await mock.items('not-a-token', '$top=1')
      const all = (await mock.request('GET', '/__mock/requests')).body.entries
      expect(all.map((entry: { operationId: string; user: string | null; status: number }) => [entry.operationId, entry.user, entry.status])).toEqual([
        ['signIn', null, 200],
        ['queryItems', IDS.viewer.username, 200],
        ['queryItems', IDS.admin.username, 200],
        ['queryItems', null, 401],
      ])
      expect(seqs((await mock.request('GET', query({ user: IDS.viewer.username }))).body.entries)).toEqual([viewed])
      // E-mail addresses compare without case.
      expect(seqs((await mock.request('GET', query({ user: 'Viewer@ACME.test' }))).body.entries)).toEqual([viewed])
    })

    it('refuses JSON that does not parse and a pattern that is none with 400 naming /query/match', async () => {
      const bad = await mock.request('GET', `/__mock/requests?match=${encodeURIComponent('{"body":')}`)
      expect(bad.status).toBe(400)
      expect(bad.contentType).toMatch(/application\/problem\+json/)
      expect(bad.body.violations).toEqual([expect.objectContaining({ pointer: '/query/match', keyword: 'json' })])
      const operator = await mock.request('GET', query({ body: { Rows: [{ Row: { Customer: { $near: 'Initech' } } }] } }))
      expect(operator.status).toBe(400)
      expect(operator.body.violations.map((v: { pointer: string }) => v.pointer)).toEqual(['/query/match/body/Rows/0/Row/Customer'])
      const regex = await mock.request('GET', query({ body: { query: { $regex: '(a)\\1' } } }))
      expect(regex.body.violations.map((v: { pointer: string }) => v.pointer)).toEqual(['/query/match/body/query/$regex'])
      const member = await mock.request('GET', query({ bdy: {}, user: 7 }))
      expect(member.status).toBe(400)
      // A wrong value is told before a member the pattern does not know (the telling ones first).
      expect(member.body.violations.map((v: { pointer: string }) => v.pointer)).toEqual(['/query/match/user', '/query/match/bdy'])
      expect((await mock.request('GET', query([1]))).body.violations[0].pointer).toBe('/query/match')
    })
  })

  describe('GET /__mock/requests/near-misses', () => {
    it('counts the matches and names the closest others with what differs, secrets redacted', async () => {
      await mock.post(SAVE, admin, newRow('Initek'))
      const initek = await lastSeq()
      await mock.items(admin, '$top=1')
      const path = `/__mock/requests/near-misses?operationId=saveItems&match=${encodeURIComponent(JSON.stringify({ body: { Rows: [{ Row: { Customer: 'Initech' } }] } }))}`
      const reply = await mock.request('GET', path)
      expect(reply.status).toBe(200)
      expect(reply.body).toMatchObject({ matched: 0, total: 2 })
      expect(reply.body.nearMisses[0]).toEqual({
        seq: initek,
        method: 'POST',
        path: SAVE,
        operationId: 'saveItems',
        status: 200,
        user: IDS.admin.username,
        distance: 0.5,
        differences: [{ pointer: '/body/Rows/0/Row/Customer', expected: '"Initech"', actual: '"Initek"' }],
      })
      expect(reply.body.nearMisses[1]).toMatchObject({ seq: initek + 1, operationId: 'queryItems' })
      expect((await mock.request('GET', `${path}&limit=1`)).body.nearMisses).toHaveLength(1)
      // A password is not shown, even in a difference.
      await mock.signIn()
      const signIn = await mock.request(
        'GET',
        `/__mock/requests/near-misses?operationId=signIn&match=${encodeURIComponent(JSON.stringify({ body: { password: 'guess' } }))}`,
      )
      expect(signIn.body.nearMisses[0].differences).toEqual([{ pointer: '/body/password', expected: '"guess"', actual: '[redacted]' }])
      expect(signIn.raw.toString()).not.toContain(IDS.admin.password)
      // Nor inside a part of the request shown whole.
      const whole = await mock.request(
        'GET',
        `/__mock/requests/near-misses?operationId=signIn&match=${encodeURIComponent(JSON.stringify({ body: ['a form'] }))}`,
      )
      expect(whole.body.nearMisses[0].differences).toEqual([{ pointer: '/body', expected: 'an array', actual: expect.stringContaining('"password":"[redact') }])
      expect(whole.raw.toString()).not.toContain(IDS.admin.password)
    })

    it('answers 400 without match, saying to give one: with no pattern no request is near', async () => {
      for (const path of ['/__mock/requests/near-misses', '/__mock/requests/near-misses?operationId=saveItems&limit=2']) {
        const reply = await mock.request('GET', path)
        expect(reply.status, path).toBe(400)
        expect(reply.body.violations).toEqual([expect.objectContaining({ pointer: '/query/match', keyword: 'required' })])
        expect(reply.body.hint).toMatch(/^Near misses are the journaled requests closest to a pattern: give one in match/)
      }
    })
  })

  describe('mock.assertRequested()', () => {
    const initech = { operationId: 'saveItems', match: { body: { Rows: [{ Row: { Customer: 'Initech' } }] } } }

    it('resolves with the matching entries when at least one matched', async () => {
      await mock.post(SAVE, admin, newRow('Initech'))
      const entries = await mock.mock.assertRequested(initech)
      expect(entries.map((entry) => [entry.operationId, entry.user])).toEqual([['saveItems', IDS.admin.username]])
      await expect(mock.mock.assertRequested({ match: { user: IDS.admin.username } })).resolves.toHaveLength(1)
      expect(mock.mock.requests({ match: initech.match })).toHaveLength(1)
    })

    it('counts with times, and rejects a wrong count naming the matches', async () => {
      await mock.post(SAVE, admin, newRow('Initech'))
      await mock.post(SAVE, admin, newRow('Initech'))
      await expect(mock.mock.assertRequested(initech, { times: 2 })).resolves.toHaveLength(2)
      const error = await mock.mock.assertRequested(initech, { times: 1 }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(RequestAssertionError)
      const failure = error as RequestAssertionError
      expect(failure.matched).toBe(2)
      expect(failure.expected).toEqual({ ...initech, times: 1 })
      expect(failure.message).toMatch(/^Expected exactly 1 request matching\n/)
      expect(failure.message).toContain('but 2 matched, of 2 requests in the journal.')
      expect(failure.message).toMatch(/Matched:\n {2}#\d+ POST \/ExplorerApi\/api\/items\/save \(saveItems, 200, admin@acme\.test\)/)
      await expect(mock.mock.assertRequested(initech, { times: 0 })).rejects.toThrow(/exactly 0 requests/)
      await expect(mock.mock.assertRequested({ operationId: 'deleteItems' }, { times: 0 })).resolves.toEqual([])
      await expect(mock.mock.assertRequested(initech, { times: -1 })).rejects.toThrow(RangeError)
    })

    it('rejects naming the near miss and the member that differs, nearest first', async () => {
      await mock.items(admin, '$top=1')
      await mock.post(SAVE, admin, newRow('Initek'))
      const initek = await lastSeq()
      const error = (await mock.mock.assertRequested(initech).catch((e: unknown) => e)) as RequestAssertionError
      expect(error).toBeInstanceOf(RequestAssertionError)
      expect(error.matched).toBe(0)
      expect(error.nearMisses.map((miss) => miss.seq)).toEqual([initek, initek - 1])
      expect(error.message).toBe(
        [
          'Expected at least one request matching',
          '  {',
          '    "operationId": "saveItems",',
          '    "match": {',
          '      "body": {',
          '        "Rows": [',
          '          {',
          '            "Row": {',
          '              "Customer": "Initech"',
          '            }',
          '          }',
          '        ]',
          '      }',
          '    }',
          '  }',
          'but 0 matched, of 2 requests in the journal.',
          'The closest requests that did not match:',
          `  #${initek} POST /ExplorerApi/api/items/save (saveItems, 200, admin@acme.test), distance 0.5`,
          '    /body/Rows/0/Row/Customer: expected "Initech", was "Initek"',
          `  #${initek - 1} POST /ExplorerApi/api/items (queryItems, 200, admin@acme.test), distance 1`,
          '    /operationId: expected saveItems, was queryItems',
          '    /body/Rows: expected an array, was absent',
        ].join('\n'),
      )
    })

    it('says the journal is empty, and refuses a pattern that is none as the HTTP query does', async () => {
      await expect(mock.mock.assertRequested(initech)).rejects.toThrow(/0 matched, of 0 requests in the journal\.\nThe journal holds no API requests/)
      const refused = await mock.mock.assertRequested({ match: { body: { $regex: '(?=a)b' } } }).catch((e: unknown) => e)
      expect(refused).toBeInstanceOf(ProblemError)
      expect((refused as ProblemError).extra.violations).toEqual([expect.objectContaining({ pointer: '/match/body/$regex' })])
    })

    it('waits for an exchange in flight to be recorded, and gives up on one that does not end', async () => {
      // Held in flight by its client, which sends all of the body but its last byte.
      const held = await holdInFlight(mock, admin, '$top=1')
      // In one turn of this process, where the mock runs too: nothing is recorded yet, and the
      // assertion, called before the last byte is sent, finds the exchange in flight.
      expect(mock.mock.requests({ operationId: 'queryItems' })).toEqual([])
      held.finish()
      await expect(mock.mock.assertRequested({ operationId: 'queryItems' }, { times: 1 })).resolves.toHaveLength(1)
      expect(await held.status).toBe(200)
      // One that does not end while the assertion waits: it stops waiting (after its bound, about a
      // second) and says what it saw, with the exchange still in flight; it ends only afterwards.
      const stuck = await holdInFlight(mock, admin, '$top=2')
      await expect(mock.mock.assertRequested({ operationId: 'queryItems' }, { times: 2 })).rejects.toThrow(/but 1 matched/)
      stuck.finish()
      expect(await stuck.status).toBe(200)
      await expect(mock.mock.assertRequested({ operationId: 'queryItems' }, { times: 2 })).resolves.toHaveLength(2)
    })

    it('does not wait out an exchange whose client gave up: it is journaled as abandoned, with no status', async () => {
      mock.mock.setFaults([{ operationId: 'queryItems', latencyMs: 60_000, times: 1 }])
      const gaveUp = new AbortController()
      const abandoned = fetch(`${mock.url}/ExplorerApi/api/items`, {
        method: 'POST',
        headers: { ...mock.dataHeaders(admin), 'content-type': 'application/json' },
        body: JSON.stringify({ query: '$top=1' }),
        signal: gaveUp.signal,
      }).catch((error: unknown) => error)
      await until(() => mock.mock.app.holds.size === 1, 'the query to be held by the fault')
      gaveUp.abort()
      await abandoned
      // Waited for while in flight, then recorded when its connection closed: not after the fault's minute.
      const [entry] = await mock.mock.assertRequested({ operationId: 'queryItems' }, { times: 1 })
      expect(entry).toMatchObject({ status: null, abandoned: true, fault: 'latency' })
      mock.mock.clearFaults()
    })
  })
})

describe('a body the journal did not keep', () => {
  let mock: TestClient
  beforeAll(async () => {
    mock = await startTestMock({ journalBodyLimit: 64 })
  })
  afterAll(() => mock.close())

  it('matches no body pattern, and the near miss says why', async () => {
    const token = await mock.signIn()
    await mock.post(SAVE, token, newRow('Initech'))
    const match = { body: { Rows: [{ Row: { Customer: 'Initech' } }] } }
    expect((await mock.request('GET', `/__mock/requests?match=${encodeURIComponent(JSON.stringify(match))}`)).body.entries).toEqual([])
    const error = (await mock.mock.assertRequested({ operationId: 'saveItems', match }).catch((e: unknown) => e)) as RequestAssertionError
    expect(error.nearMisses[0]?.differences).toEqual([
      { pointer: '/body', expected: 'a body to match (an object)', actual: expect.stringMatching(/^\[\d+ bytes, over the journal's 64-byte limit\]$/) },
    ])
    expect(error.message).toMatch(/\/body: expected a body to match \(an object\), was \[\d+ bytes, over the journal's 64-byte limit\]/)
  })
})
