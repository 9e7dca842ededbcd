/**
 * Every error value of the store answers with its problem (src/http/context.ts, STORE_PROBLEMS),
 * each provoked over HTTP the way a client would: one row per store code, so a code added to the
 * store needs a row here as well as a problem there.
 */
import { describe, expect, it } from 'vitest'
import { STORE_PROBLEMS } from '../../src/http/context.ts'
import type { StoreErrorCode } from '../../src/store/model/types.ts'
import { IDS, mockPerSuite, type TestClient } from '../helpers/http.ts'

type Provoke = (mock: TestClient, token: string) => Promise<{ status: number; body: { code?: string } }>

const identities =
  (storage: string, field: string, count: string): Provoke =>
  (mock, token) =>
    mock.request('GET', `/ExplorerApi/api/storage/${storage}/identity/${field}/next/${count}`, { headers: mock.dataHeaders(token) })

/** For each store code: a request that makes the store return it, and the problem the client gets. */
const CASES: Record<StoreErrorCode, { provoke: Provoke; problem: string; status: number }> = {
  BAD_QUERY: { provoke: (mock, token) => mock.items(token, '$top=1&$top=2'), problem: 'BAD_QUERY', status: 400 },
  BAD_FILTER: { provoke: (mock, token) => mock.items(token, "$filter=Customer eq 'x' and"), problem: 'BAD_FILTER', status: 400 },
  UNKNOWN_FIELD: { provoke: (mock, token) => mock.items(token, '$orderby=NoSuchField asc'), problem: 'UNKNOWN_FIELD', status: 400 },
  UNKNOWN_RELATION_KEY: { provoke: (mock, token) => mock.items(token, '$top=1&relationKey=NoSuchDetail'), problem: 'UNKNOWN_RELATION_KEY', status: 404 },
  UNKNOWN_APPLICATION: {
    provoke: (mock, token) =>
      mock.post('/ExplorerApi/api/items', token, { query: '$top=1' }, { headers: { ApplicationId: '00000000-0000-4000-8000-000000000000' } }),
    problem: 'UNKNOWN_APPLICATION',
    status: 404,
  },
  UNKNOWN_STORAGE: { provoke: identities(IDS.masterStorageId, 'Customer', '1'), problem: 'UNKNOWN_STORAGE', status: 404 },
  UNKNOWN_ACTION: {
    provoke: (mock, token) => mock.post('/ExplorerApi/api/action/run', token, { actionId: 'c0ffee00-0000-4000-8000-000000000099', parametersMap: [] }),
    problem: 'UNKNOWN_ACTION',
    status: 404,
  },
  UNKNOWN_ROW: {
    provoke: async (mock) => {
      const form = new FormData()
      form.append('applicationId', IDS.applicationId)
      form.append('parentId', '404')
      form.append('file', new Blob(['x'], { type: 'text/plain' }), 'x.txt')
      const response = await fetch(`${mock.url}/__mock/attachments`, { method: 'POST', body: form, signal: AbortSignal.timeout(20_000) })
      return { status: response.status, body: (await response.json()) as { code?: string } }
    },
    problem: 'UNKNOWN_ROW',
    status: 404,
  },
  INVALID_COUNT: { provoke: identities(IDS.masterStorageId, 'IdRow', '0'), problem: 'VALIDATION', status: 400 },
}

describe("the store's error values over HTTP", () => {
  const ctx = mockPerSuite()

  it('has a case for every code the store returns', () => {
    expect(Object.keys(CASES).sort()).toEqual(Object.keys(STORE_PROBLEMS).sort())
  })

  for (const [code, { provoke, problem, status }] of Object.entries(CASES)) {
    it(`${code} answers ${status} ${problem}`, async () => {
      const reply = await provoke(ctx.mock, ctx.token)
      expect(reply.body.code).toBe(problem)
      expect(reply.status).toBe(status)
    })
  }
})
