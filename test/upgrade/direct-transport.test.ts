/**
 * The release mocks of a replay answer through Fastify's own request handler with light request
 * and answer objects (src/commands/upgrade/direct-transport.ts) rather than `inject`: every answer must be
 * the mock's, byte for byte, with the mock's headers, whatever path through the mock it takes (a
 * page written as ready bytes, a refusal, a warning, a HEAD, a streamed archive, a save that
 * changes what later reads see), and the target the mock reads must be the one `inject` gives it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { FastifyInstance } from 'fastify'
import { injectTransport, type Transport, type WireRequest, type WireResponse } from '../../src/wire/transport.ts'
import { DEFAULTS } from '../../src/mock/config.ts'
import { directTransport, targetOf } from '../../src/commands/upgrade/direct-transport.ts'
import { buildReleaseApp } from '../../src/commands/upgrade/release-mock.ts'
import { IDS } from '../helpers/http.ts'

/** Headers of Node's HTTP framing, which `inject` reads back from the text Node writes: no part of the mock's answer. */
const FRAMING = ['date', 'connection', 'transfer-encoding']

function answerOf(response: WireResponse) {
  const headers = Object.fromEntries(Object.entries(response.headers).filter(([name]) => !FRAMING.includes(name)))
  return { status: response.status, headers, body: Buffer.from(response.body).toString('latin1') }
}

const token = (response: WireResponse): string => {
  const body = JSON.parse(Buffer.from(response.body).toString('utf8')) as { access_token?: string; SessionToken?: string }
  return (body.access_token ?? body.SessionToken) as string
}

/** Two mocks of one release built alike, one answering through `inject` and one through the direct transport. */
async function pair(release: string): Promise<{ viaInject: Transport; direct: Transport; apps: FastifyInstance[] }> {
  const apps = [await buildReleaseApp(release, DEFAULTS.fixture), await buildReleaseApp(release, DEFAULTS.fixture)]
  return { viaInject: injectTransport(apps[0]!), direct: directTransport(apps[1]!), apps }
}

/** Sends each request to both mocks in turn and expects the same answers. */
async function sameAnswers(mocks: { viaInject: Transport; direct: Transport }, requests: WireRequest[]): Promise<WireResponse[]> {
  const answers: WireResponse[] = []
  for (const request of requests) {
    const expected = await mocks.viaInject.send(request)
    const got = await mocks.direct.send(request)
    expect(answerOf(got), `${request.method} ${request.path}`).toEqual(answerOf(expected))
    answers.push(got)
  }
  return answers
}

describe('the direct transport answers as inject does', () => {
  const opened: FastifyInstance[] = []
  afterAll(async () => {
    for (const app of opened) await app.close()
  })

  describe('on 3.0.19', () => {
    let mocks: Awaited<ReturnType<typeof pair>>
    let headers: Record<string, string>
    beforeAll(async () => {
      mocks = await pair('3.0.19')
      opened.push(...mocks.apps)
      const [signedIn] = await sameAnswers(mocks, [
        {
          method: 'POST',
          path: `/identityprovider/${IDS.org}/connect/token`,
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            client_id: IDS.clientId,
            username: IDS.admin.username,
            password: IDS.admin.password,
            grant_type: 'password',
            scope: 'openid apiv1 nosession',
          }).toString(),
        },
      ])
      expect(signedIn!.status).toBe(200)
      headers = { ApplicationId: IDS.applicationId, WorkspaceId: IDS.workspaceId, SessionToken: token(signedIn!), 'Content-Type': 'application/json' }
    })

    it("pages as ready bytes, with the mock's warnings, and refusals", async () => {
      const answers = await sameAnswers(mocks, [
        { method: 'POST', path: '/ExplorerApi/api/items', headers, body: JSON.stringify({ query: '$top=7&$orderby=Customer desc' }) },
        { method: 'POST', path: '/ExplorerApi/api/items', headers, body: JSON.stringify({ query: '$top=3&$format=json' }) },
        { method: 'POST', path: '/ExplorerApi/api/items', headers, body: JSON.stringify({ query: '$orderby=Nothing asc' }) },
        { method: 'POST', path: '/ExplorerApi/api/items', headers, body: '{"query": ' },
        { method: 'POST', path: '/ExplorerApi/api/items', headers, body: '' },
        { method: 'POST', path: '/ExplorerApi/api/items', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ query: '$top=1' }) },
        { method: 'GET', path: '/ExplorerApi/api/items?$top=2', headers },
        { method: 'GET', path: '/ExplorerApi/api/nothing-here', headers },
      ])
      expect(answers.map((a) => a.status)).toEqual([200, 200, 400, 400, 400, 401, 405, 404])
      expect(JSON.parse(Buffer.from(answers[0]!.body).toString('utf8'))).toHaveLength(7)
      expect(answers[1]!.headers['x-mock-warnings']).toBe('UNSUPPORTED_QUERY_OPTION')
      expect(answers[0]!.headers['content-length']).toBe(String(answers[0]!.body.length))
    })

    it('writes, and reads what was written, through the same state changes', async () => {
      const [saved] = await sameAnswers(mocks, [
        {
          method: 'POST',
          path: '/ExplorerApi/api/items/save',
          headers,
          body: JSON.stringify({ Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Initech', Amount: 120, Status: 'Open' }, Details: [] }] }),
        },
      ])
      const id = Number(JSON.parse(Buffer.from(saved!.body).toString('utf8')).ReturnData.PrimaryKeyData['-1'].newKeys.Id)
      const [read] = await sameAnswers(mocks, [
        { method: 'POST', path: '/ExplorerApi/api/items', headers, body: JSON.stringify({ query: `$filter=Id eq ${id}` }) },
      ])
      const [row] = JSON.parse(Buffer.from(read!.body).toString('utf8')) as Array<{ TIMESTAMP: string }>
      const version = Number(Buffer.from(row!.TIMESTAMP, 'base64').readBigUInt64BE())
      // The older delete body: taken with the mock's warning.
      const [deleted] = await sameAnswers(mocks, [
        {
          method: 'POST',
          path: '/ExplorerApi/api/items/delete',
          headers,
          body: JSON.stringify([{ Rows: [{ Row: { Id: id, TIMESTAMP: version }, Details: [] }] }]),
        },
      ])
      expect(deleted!.status).toBe(200)
      expect(deleted!.headers['x-mock-warnings']).toBe('LEGACY_DELETE_BODY')
    })

    it('answers HEAD with the headers and no body (Fastify writes none), and streams an archive whole', async () => {
      const answers = await sameAnswers(mocks, [
        { method: 'HEAD', path: `/ExplorerApi/api/storage/${IDS.masterStorageId}/identity/IdRow/next/1`, headers },
        { method: 'POST', path: '/ExplorerApi/api/attachments/download', headers, body: JSON.stringify({ ids: [1, 2], rk: '' }) },
      ])
      expect(answers[0]!.status).toBe(200)
      expect(answers[0]!.body).toHaveLength(0)
      expect(answers[1]!.status).toBe(200)
      expect(answers[1]!.body.length).toBeGreaterThan(22)
    })
  })

  it('on 2.9.0, reads a target as inject gives it to the mock (encoded, dot segments resolved, no fragment)', async () => {
    const mocks = await pair('2.9.0')
    opened.push(...mocks.apps)
    const [signedIn] = await sameAnswers(mocks, [
      {
        method: 'POST',
        path: '/IntelligenceUserManagementService/UserManagementService.svc/Token',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ userName: IDS.admin.username, password: IDS.admin.password, clientId: IDS.legacyClientId }),
      },
    ])
    expect(signedIn!.status, Buffer.from(signedIn!.body).toString()).toBe(200)
    const headers = { ApplicationId: IDS.applicationId, WorkspaceId: IDS.workspaceId, SessionToken: token(signedIn!) }
    const answers = await sameAnswers(mocks, [
      { method: 'GET', path: "/ExplorerApi/api/items?$filter=Customer eq 'Northwind Traders'&$top=3", headers },
      { method: 'GET', path: "/ExplorerApi/x/../api/items?$filter=Status eq 'Open'#page-2", headers },
      { method: 'GET', path: "/ExplorerApi/api/items?$filter=Customer eq 'Zoë'", headers },
    ])
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200])
    expect(JSON.parse(Buffer.from(answers[0]!.body).toString('utf8')).length).toBeGreaterThan(0)
  })
})

describe('the request target', () => {
  const asUrl = (target: string) => {
    const url = new URL(target.startsWith('//') ? `http://localhost${target}` : target, 'http://localhost')
    return url.pathname + url.search
  }
  /** The target, or the error's code when there is none (`inject` refuses such a request, and so does the transport). */
  const attempt = (make: (target: string) => string, target: string) => {
    try {
      return make(target)
    } catch (error) {
      return (error as { code?: string }).code
    }
  }

  it('is the one a URL parser makes of it, whatever characters it holds', () => {
    const char = fc.constantFrom(...'aZ09-._~!$&()*+,;=:@/%?#\'" <>[]\\^`{|}\u00e9\u4e2d\ud83d\ude00'.split(''), ...['%2e', '%2E', '..', '%41', '%zz'])
    fc.assert(
      fc.property(fc.array(char, { maxLength: 24 }), (chars) => {
        const target = `/${chars.join('')}`
        expect(attempt(targetOf, target)).toBe(attempt(asUrl, target))
      }),
    )
  })

  it('is taken as it is when already in that form', () => {
    const target = '/ExplorerApi/api/items?$top=1000&$orderby=Id%20asc&$filter=Amount%20gt%201.5'
    expect(targetOf(target)).toBe(target)
    expect(asUrl(target)).toBe(target)
  })
})
