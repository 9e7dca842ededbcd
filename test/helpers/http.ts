import { afterAll, beforeAll, beforeEach, expect } from 'vitest'
import { startMock, type LaunchedMock, type StartOptions } from '../../src/mock/mock.ts'
import { fixedDeps } from '../../src/deps.ts'
import { createClient, rowVersion } from '../../src/client/client.ts'
import { httpTransport, type Transport } from '../../src/wire/transport.ts'
import { bufferOf, textOf } from '../../src/bytes.ts'
import { conformanceProblems } from '../../contracts/conformance.ts'

export { rowVersion }

/** The default fixture's identifiers, which users' scripts depend on (README, Default fixture). */
export const IDS = {
  org: 'acme',
  admin: { username: 'admin@acme.test', password: 'admin-pass' },
  viewer: { username: 'viewer@acme.test', password: 'viewer-pass' },
  clientId: 'appdataapiv1',
  legacyClientId: 'appdata-legacy',
  workspaceId: '6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b70',
  applicationId: 'a1b2c3d4-0000-4000-8000-000000000001',
  masterStorageId: '5e7d0c1a-1111-4111-8111-000000000001',
  detailStorageId: '5e7d0c1a-1111-4111-8111-000000000002',
  relationKey: 'OrderLines',
  /** The Deliveries application: one field of each product data type. */
  deliveriesId: 'a1b2c3d4-0000-4000-8000-000000000003',
  deliveriesStorageId: '5e7d0c1a-1111-4111-8111-000000000004',
  actionOk: 'c0ffee00-0000-4000-8000-000000000001',
  actionFails: 'c0ffee00-0000-4000-8000-000000000002',
  providerId: 'e0000000-0000-4000-8000-000000000001',
} as const

export interface Reply<T = any> {
  status: number
  headers: Headers
  contentType: string
  body: T
  raw: Buffer
}

export interface RequestOptions {
  headers?: Record<string, string>
  json?: unknown
  form?: Record<string, string>
  /** Raw body text or bytes, sent as given. */
  body?: string | Buffer
  /** Skip the document check (for replies that are not meant to conform, such as /docs). */
  unchecked?: boolean
}

/**
 * A started mock with fixed time and randomness, and a client whose every reply is checked
 * against the document of the release the mock emulates, so mock and document cannot drift apart.
 */
export async function startTestMock(options: StartOptions = {}) {
  const deps = options.deps ?? fixedDeps('2026-11-01T09:00:00.000Z')
  const mock = await startMock({ logLevel: 'silent', ...options, deps })
  return new TestClient(mock)
}

/**
 * Requests to a started mock over HTTP, each answer held to the document of the release the
 * mock emulates (contracts/conformance.ts), so mock and document cannot drift apart. A thin layer
 * over the package's own transport and client.
 */
export class TestClient {
  readonly transport: Transport

  constructor(readonly mock: LaunchedMock) {
    this.transport = httpTransport(mock.url, { timeoutMs: 20_000 })
  }

  get url(): string {
    return this.mock.url
  }

  async close(): Promise<void> {
    await this.transport.close()
    await this.mock.close()
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...options.headers }
    let body: string | Buffer | undefined = options.body
    if (options.json !== undefined) {
      headers['content-type'] ??= 'application/json'
      body = JSON.stringify(options.json)
    } else if (options.form !== undefined) {
      headers['content-type'] ??= 'application/x-www-form-urlencoded'
      body = new URLSearchParams(options.form).toString()
    }
    const response = await this.transport.send({ method, path, headers, ...(body === undefined ? {} : { body }) })
    const raw = bufferOf(response.body)
    const contentType = response.headers['content-type'] ?? ''
    const text = textOf(raw)
    const parsed = /json/.test(contentType) && text !== '' ? JSON.parse(text) : text
    if (options.unchecked !== true) {
      const problems = conformanceProblems(this.mock.config.productVersion, { method, path, status: response.status, contentType, body: parsed })
      expect(problems, `${method} ${path} answered ${response.status} ${text.slice(0, 300)}`).toEqual([])
    }
    return { status: response.status, headers: new Headers(response.headers), contentType, body: parsed as T, raw }
  }

  /** The package's client for this mock, with the default fixture's ids and the release's forms. */
  client(token?: string) {
    return createClient({
      transport: this.transport,
      productVersion: this.mock.config.productVersion,
      organization: IDS.org,
      clientId: IDS.clientId,
      legacyClientId: IDS.legacyClientId,
      workspaceId: IDS.workspaceId,
      applicationId: IDS.applicationId,
      ...(token === undefined ? {} : { token }),
      onAnswer: (answer) => {
        const problems = conformanceProblems(this.mock.config.productVersion, answer)
        expect(problems, `${answer.method} ${answer.path} answered ${answer.status}`).toEqual([])
      },
    })
  }

  /** Signs in with the current form for the emulated release; returns the token. */
  async signIn(user: { username: string; password: string } = IDS.admin): Promise<string> {
    return (await this.client().signIn(user)).token
  }

  /** The three headers of a data operation. */
  dataHeaders(token: string, extra: Record<string, string> = {}): Record<string, string> {
    return { ApplicationId: IDS.applicationId, SessionToken: token, WorkspaceId: IDS.workspaceId, ...extra }
  }

  /** POST to a data operation with the data headers. */
  post<T = any>(path: string, token: string, json: unknown, extra: RequestOptions = {}): Promise<Reply<T>> {
    return this.request<T>('POST', path, { ...extra, json, headers: { ...this.dataHeaders(token), ...extra.headers } })
  }

  /** Get Items with a query text (POST form). */
  items<T = any>(token: string, query: string): Promise<Reply<T>> {
    return this.post<T>('/ExplorerApi/api/items', token, { query })
  }
}

/**
 * A new mock and a signed-in admin token before each test of the calling `describe`, for tests
 * that write; read the fields inside the tests (`ctx.mock`, `ctx.token`).
 */
export function freshMockPerTest(options: StartOptions = {}): { mock: TestClient; token: string } {
  const ctx = {} as { mock: TestClient; token: string }
  beforeEach(async () => {
    await ctx.mock?.close()
    ctx.mock = await startTestMock(options)
    ctx.token = await ctx.mock.signIn()
  })
  afterAll(() => ctx.mock?.close())
  return ctx
}

/**
 * One mock and a signed-in admin token for all tests of the calling `describe`, for tests that
 * only read or that do not depend on each other's writes (`ctx.mock`, `ctx.token`).
 */
export function mockPerSuite(options: StartOptions = {}): { mock: TestClient; token: string } {
  const ctx = {} as { mock: TestClient; token: string }
  beforeAll(async () => {
    ctx.mock = await startTestMock(options)
    ctx.token = await ctx.mock.signIn()
  })
  afterAll(() => ctx.mock?.close())
  return ctx
}
