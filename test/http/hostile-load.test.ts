/**
 * Hostile input against the built mock while a second client keeps being served. Every operation of
 * the API (each in a release that has it) and every control-plane call gets requests with hostile
 * sizes (megabyte texts, long arrays, thousands of members, long URLs and headers), names (members,
 * path and query parameters named after Object.prototype members, empty, 10,000 characters, control
 * and bidirectional characters), nesting (JSON nested 100,000 deep, filters in thousands of
 * parentheses) and encodings (invalid UTF-8, UTF-16, lone surrogates, NUL, broken percent-escapes,
 * raw bytes in the URL and headers). Each must be answered within ANSWER_BOUND_MS with a status below
 * 500, and meanwhile a second client polling health (and a small Get Items) must get every answer
 * within SIDE_BOUND_MS: one request must not stall everyone in a shared sandbox.
 *
 * The mock runs as its own process (dist/, `npm run build` first; `npm test` builds), so a request
 * that wedges it fails this suite by the clock instead of freezing the test runner. Requests go over
 * raw sockets, since no HTTP client library sends malformed bytes. The inputs come from fast-check
 * with the suite's fixed seed; a failure prints the seed and the request (`FC_SEED=<seed>` replays).
 *
 * The hardening issue's known failures, which other branches fix, are kept out of the properties
 * and pinned one by one in the describe blocks at the end, each named after its item.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { existsSync, readFileSync } from 'node:fs'
import { buildDocument } from '../../spec/index.ts'
import { normalizeVersion } from '../../spec/versions.ts'
import { controlPlaneDocument, documentForVersion, listOperations, type OperationEntry } from '../../src/document/reader.ts'
import { IDS } from '../helpers/http.ts'
import { FUZZ_SEED, runs } from '../helpers/property-runs.ts'
import { ROOT, startProcess, stopStarted } from '../cli/processes.ts'
import { bodyOf, parametersOf } from './support/fuzz.ts'
import { describeRaw, sendRaw, type RawRequest } from './support/raw-http.ts'

/** A hostile request must be answered within this (the largest takes well under a second on a loaded machine). */
const ANSWER_BOUND_MS = 8_000
/** Each answer the second client gets while hostile requests run (the issue asks health within 1.5 s; a loaded CI gets some slack). */
const SIDE_BOUND_MS = 2_000
const TEST_TIMEOUT_MS = 120_000

const SERVER = `${ROOT}dist/src/mock/server.js`
const DEFAULT_FIXTURE = readFileSync(`${ROOT}fixtures/default.json`, 'utf8')
const SIGN_IN_FORM = new URLSearchParams({
  client_id: IDS.clientId,
  username: IDS.admin.username,
  password: IDS.admin.password,
  grant_type: 'password',
  scope: 'openid apiv1 nosession',
}).toString()

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// ---- the mock and the second client ----------------------------------------------------------

interface Sample {
  what: string
  start: number
  ms: number
  status: number | string
}

/** A client that keeps asking for health (and, while `items` is on, one row) until stopped; bounded by its own count. */
class SecondClient {
  readonly samples: Sample[] = []
  items = true
  token = ''
  #stopped = false
  #loop: Promise<void> = Promise.resolve()

  /** Below 3.0, Get Items is a GET without a body. */
  constructor(
    readonly base: string,
    readonly legacy: boolean,
  ) {}

  start(): void {
    this.#loop = (async () => {
      for (let i = 0; i < 200_000 && !this.#stopped; i++) {
        await this.once('health')
        if (this.items) await this.once('items')
        await sleep(20)
      }
    })()
  }

  async stop(): Promise<void> {
    this.#stopped = true
    await this.#loop
  }

  /** One request of the second client, recorded; a failure to answer is recorded too, not thrown. */
  async once(what: 'health' | 'items'): Promise<Sample> {
    const start = performance.now()
    let status: number | string
    try {
      const answer =
        what === 'health'
          ? await fetch(`${this.base}/__mock/health`, { signal: AbortSignal.timeout(SIDE_BOUND_MS * 3) })
          : this.legacy
            ? await fetch(`${this.base}/ExplorerApi/api/items?$top=1`, {
                headers: { ApplicationId: IDS.applicationId, SessionToken: this.token },
                signal: AbortSignal.timeout(SIDE_BOUND_MS * 3),
              })
            : await fetch(`${this.base}/ExplorerApi/api/items`, {
                method: 'POST',
                headers: { 'content-type': 'application/json', ApplicationId: IDS.applicationId, SessionToken: this.token, WorkspaceId: IDS.workspaceId },
                body: JSON.stringify({ query: '$top=1' }),
                signal: AbortSignal.timeout(SIDE_BOUND_MS * 3),
              })
      status = answer.status
      await answer.arrayBuffer()
    } catch (error) {
      status = (error as Error).message
    }
    const sample = { what, start, ms: performance.now() - start, status }
    this.samples.push(sample)
    return sample
  }

  async signIn(signInPath: string): Promise<void> {
    const answer = await fetch(
      `${this.base}${signInPath}`,
      signInPath.includes('UserManagementService')
        ? {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify({ userName: IDS.admin.username, password: IDS.admin.password, clientId: IDS.legacyClientId }),
          }
        : { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: SIGN_IN_FORM },
    )
    const body = (await answer.json()) as { access_token?: string; SessionToken?: string }
    this.token = body.access_token ?? body.SessionToken ?? ''
    expect(this.token, `sign-in at ${signInPath}`).not.toBe('')
  }
}

interface Mock {
  url: string
  version: string
  side: SecondClient
  signInPath: string
}

function signInPathOf(version: string): string {
  if (version.startsWith('2.')) return '/IntelligenceUserManagementService/UserManagementService.svc/Token'
  return version === '3.0.18' ? '/identityprovider/connect/token' : `/identityprovider/${IDS.org}/connect/token`
}

/** Starts the built mock of a release and the second client against it. */
function builtMock(version: string, nodeFlags: string[] = []): Mock {
  const mock = { version, signInPath: signInPathOf(version) } as Mock
  beforeAll(async () => {
    if (!existsSync(SERVER)) throw new Error(`${SERVER} is missing: run npm run build first (npm test does)`)
    const run = await startProcess(process.execPath, [...nodeFlags, SERVER, '--port', '0', '--product-version', version, '--log-level', 'error'])
    if (run.url === undefined) throw new Error(`the mock did not start: ${run.stderr}`)
    mock.url = run.url
    mock.side = new SecondClient(run.url, version.startsWith('2.'))
    await mock.side.signIn(mock.signInPath)
    mock.side.start()
  })
  afterAll(async () => {
    await mock.side?.stop()
    stopStarted()
  })
  return mock
}

/**
 * One hostile request: answered within the bound, below 500; and the second client answered every
 * request it made meanwhile, within its bound, and answers once more afterwards.
 */
async function hostile(mock: Mock, request: RawRequest, bounds = { answerMs: ANSWER_BOUND_MS, sideMs: SIDE_BOUND_MS }): Promise<void> {
  const mark = performance.now()
  let status: number
  try {
    status = (await sendRaw(mock.url, request, bounds.answerMs)).status
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- request ---\n${describeRaw(request)}`)
  }
  expect(status, `5xx for\n${describeRaw(request)}`).toBeLessThan(500)
  const after = await mock.side.once('health')
  const meanwhile = mock.side.samples.filter((s) => s.start + s.ms >= mark)
  const unserved = meanwhile.filter((s) => (s.what === 'health' || mock.side.items) && (s.status !== 200 || s.ms > bounds.sideMs))
  expect(
    unserved.map((s) => `${s.what} ${s.status} after ${Math.round(s.ms)} ms`),
    `the second client was not served while the mock handled\n${describeRaw(request)}`,
  ).toEqual([])
  expect(after.status).toBe(200)
}

// ---- valid requests, then hostile ones --------------------------------------------------------

type Body =
  | { kind: 'json'; value: unknown }
  | { kind: 'form'; value: Record<string, string> }
  | { kind: 'multipart'; fields: Array<[string, string]>; files: Array<[string, Buffer]> }
  | { kind: 'none' }

interface Base {
  method: string
  path: string
  pathParams: Record<string, string>
  query: string
  headers: Array<[string, string]>
  body: Body
}

const VALID_PATH: Record<string, string> = { organizationphysicalname: IDS.org, storage_id: IDS.masterStorageId, field_name: 'IdRow', count: '3' }
const VALID_QUERY: Record<string, string> = {
  listAttachments: `$filter=${encodeURIComponent('ParentId eq 1')}`,
  queryItemsLegacy: `$top=2&$filter=${encodeURIComponent("Status eq 'Open'")}`,
}

function apiBase(mock: Mock, document: ReturnType<typeof buildDocument>, entry: OperationEntry): Base {
  const headers: Array<[string, string]> = []
  for (const parameter of parametersOf(document, entry)) {
    if (parameter.in !== 'header') continue
    const value = (
      { ApplicationId: IDS.applicationId, SessionToken: mock.side.token, WorkspaceId: IDS.workspaceId, WorkspaceIdOptional: IDS.workspaceId } as Record<
        string,
        string
      >
    )[parameter.name]
    headers.push([parameter.name, value ?? ''])
  }
  if (((entry.operation.security ?? []) as Array<Record<string, unknown>>).some((r) => 'BearerAuth' in r))
    headers.push(['Authorization', `Bearer ${mock.side.token}`])
  const spec = bodyOf(document, entry)
  const body: Body =
    spec === undefined
      ? { kind: 'none' }
      : spec.mediaType === 'application/x-www-form-urlencoded'
        ? { kind: 'form', value: spec.examples[0] as Record<string, string> }
        : { kind: 'json', value: spec.examples[0] ?? {} }
  return { method: entry.method.toUpperCase(), path: entry.path, pathParams: { ...VALID_PATH }, query: VALID_QUERY[entry.operationId] ?? '', headers, body }
}

function controlBase(entry: OperationEntry): Base {
  const spec = bodyOf(controlPlaneDocument(), entry)
  let body: Body = { kind: 'none' }
  if (entry.operationId === 'loadFixture') body = { kind: 'json', value: JSON.parse(DEFAULT_FIXTURE) }
  else if (entry.operationId === 'uploadAttachments')
    body = { kind: 'multipart', fields: [['parentId', '2']], files: [['delivery-note.pdf', Buffer.from('%PDF-1.4 hostile')]] }
  else if (spec !== undefined) body = { kind: 'json', value: spec.examples[0] ?? {} }
  return { method: entry.method.toUpperCase(), path: entry.path, pathParams: {}, query: '', headers: [], body }
}

/** Names that must stay names: Object.prototype's members (but `__proto__`, item 4), empty, long, control, bidi and script characters. */
const HOSTILE_NAMES = [
  'constructor',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'prototype',
  '',
  ' ',
  '\u0000',
  '\u0007',
  'a.b',
  'a/b',
  '$ref',
  '%24top',
  'Id ',
  'ID',
  'IDROW',
  '\u202eevil',
  '名前',
  '😀',
  'x'.repeat(10_000),
  "'; DROP TABLE Rows; --",
  '{{7*7}}',
  '${jndi:ldap://x}',
]

/** Path parameter values as they go into the URL, raw or escaped; no `.`/`..` segment (the URL would normalise) and none over 500. */
const PATH_VALUES = [
  'constructor',
  'toString',
  '%00',
  '%2e%2e%2fx',
  'a%2Fb',
  '%C0%AF',
  '%ED%A0%80',
  '%',
  '%zz',
  '%E0%A4%A',
  '\u00c3\u00a9',
  '\u00ff',
  'a'.repeat(500),
  '-1',
  '1e400',
  '9007199254740993',
  'NaN',
  '%20',
  '%F0%9F%98%80',
  "'",
  '"',
  '<x>',
  ';',
  ',',
  '~',
  '*',
]

/** Texts a value may be, as bytes would carry them: NUL, lone surrogates, bidi overrides, a megabyte of emoji. */
const HOSTILE_TEXTS = ['', '\u0000', '\ud800', '\udfff', '\u202e', "'", "''", '%', '%26', '&', '\\', '"', '\r\n', '💥'.repeat(3), 'null', '-0', '1e400']

type Mutation =
  | { kind: 'bigString'; pick: number; size: number; unit: string }
  | { kind: 'bigArray'; pick: number; size: number }
  | { kind: 'manyMembers'; pick: number; size: number }
  | { kind: 'hostileName'; pick: number; name: string; text: string }
  | { kind: 'deep'; pick: number; depth: number; shape: 'array' | 'object' }
  | { kind: 'bodyBytes'; variant: number }
  | { kind: 'pathParam'; pick: number; value: string }
  | { kind: 'queryParam'; name: string; value: string; raw: boolean }
  | { kind: 'longUrl'; length: number }
  | { kind: 'longHeader'; pick: number; length: number }
  | { kind: 'manyHeaders'; count: number }
  | { kind: 'headerBytes'; pick: number; variant: number }
  | { kind: 'filterNesting'; depth: number }

/**
 * One mutation of each kind per run, so every operation meets every kind on every run; the kind's
 * sizes, names and bytes are drawn.
 */
const EACH_KIND: Array<fc.Arbitrary<Mutation>> = [
  fc.record({
    kind: fc.constant('bigString' as const),
    pick: fc.nat(),
    size: fc.constantFrom(65_536, 1_048_576, 4_194_304),
    unit: fc.constantFrom('a', 'é', '😀', '\\u0000', "'"),
  }),
  fc.record({ kind: fc.constant('bigArray' as const), pick: fc.nat(), size: fc.constantFrom(1_000, 5_000) }),
  fc.record({ kind: fc.constant('manyMembers' as const), pick: fc.nat(), size: fc.constantFrom(1_000, 20_000) }),
  fc.record({ kind: fc.constant('hostileName' as const), pick: fc.nat(), name: fc.constantFrom(...HOSTILE_NAMES), text: fc.constantFrom(...HOSTILE_TEXTS) }),
  fc.record({
    kind: fc.constant('deep' as const),
    pick: fc.nat(),
    depth: fc.constantFrom(100, 1_000, 10_000, 100_000),
    shape: fc.constantFrom('array' as const, 'object' as const),
  }),
  fc.record({ kind: fc.constant('bodyBytes' as const), variant: fc.nat({ max: 7 }) }),
  fc.record({ kind: fc.constant('pathParam' as const), pick: fc.nat(), value: fc.constantFrom(...PATH_VALUES) }),
  fc.record({
    kind: fc.constant('queryParam' as const),
    name: fc.constantFrom(...HOSTILE_NAMES.filter((n) => n.length < 100)),
    value: fc.constantFrom(...HOSTILE_TEXTS),
    raw: fc.boolean(),
  }),
  fc.record({ kind: fc.constant('longUrl' as const), length: fc.constantFrom(1_000, 2_000, 2_048, 2_049, 2_400) }),
  fc.record({ kind: fc.constant('longHeader' as const), pick: fc.nat(), length: fc.constantFrom(1_000, 8_000, 17_000) }),
  fc.record({ kind: fc.constant('manyHeaders' as const), count: fc.constantFrom(100, 1_000) }),
  fc.record({ kind: fc.constant('headerBytes' as const), pick: fc.nat(), variant: fc.nat({ max: 3 }) }),
  fc.record({ kind: fc.constant('filterNesting' as const), depth: fc.constantFrom(10, 300, 5_000) }),
]
const mutations = fc.tuple(...EACH_KIND)

/** Places in a JSON value (first 200, depth first) that satisfy `test`; the root is `{ parent: null }`. */
function places(value: unknown, test: (node: unknown) => boolean): Array<{ parent: Record<string, unknown> | unknown[] | null; key: string | number }> {
  const found: Array<{ parent: Record<string, unknown> | unknown[] | null; key: string | number }> = []
  if (test(value)) found.push({ parent: null, key: '' })
  const visit = (node: unknown, depth: number) => {
    if (found.length >= 200 || depth > 8 || node === null || typeof node !== 'object') return
    for (const [key, child] of Object.entries(node)) {
      if (test(child)) found.push({ parent: node as Record<string, unknown>, key: Array.isArray(node) ? Number(key) : key })
      visit(child, depth + 1)
    }
  }
  visit(value, 0)
  return found
}

/** Replaces (or, for `add`, adds into) the picked place; returns the new root. */
function change(root: unknown, test: (node: unknown) => boolean, pick: number, replace: (node: unknown) => unknown): unknown {
  const list = places(root, test)
  if (list.length === 0) return replace(root)
  const place = list[pick % list.length] as (typeof list)[number]
  if (place.parent === null) return replace(root)
  const parent = place.parent as Record<string | number, unknown>
  parent[place.key] = replace(parent[place.key])
  return root
}

const isObject = (node: unknown): boolean => node !== null && typeof node === 'object' && !Array.isArray(node)

/** JSON text nested `depth` deep, without building the value (JSON.stringify would recurse). */
function nestedText(depth: number, shape: 'array' | 'object'): string {
  return shape === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
}

const NESTED = '"\u0000nested\u0000"'

function bodyBytes(body: Body, variant: number): { bytes: Buffer; type: string } {
  const text = body.kind === 'form' ? new URLSearchParams(body.value).toString() : (JSON.stringify(body.kind === 'json' ? body.value : {}) ?? '{}')
  const type = body.kind === 'form' ? 'application/x-www-form-urlencoded' : 'application/json'
  const utf8 = Buffer.from(text, 'utf8')
  const middle = Math.max(1, text.indexOf('"', 2) + 1)
  switch (variant) {
    case 0: // invalid UTF-8 inside the first string
      return { bytes: Buffer.concat([utf8.subarray(0, middle), Buffer.from([0xff, 0xfe, 0x80]), utf8.subarray(middle)]), type }
    case 1: // UTF-16LE with its byte order mark, labelled JSON
      return { bytes: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]), type: `${type}; charset=utf-16` }
    case 2: // a UTF-8 byte order mark
      return { bytes: Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), utf8]), type }
    case 3: // a lone surrogate, escaped
      return { bytes: Buffer.from(text.replace('"', '"\\ud800'), 'utf8'), type }
    case 4: // an overlong '/' (0xc0 0xaf)
      return { bytes: Buffer.concat([utf8.subarray(0, middle), Buffer.from([0xc0, 0xaf]), utf8.subarray(middle)]), type }
    case 5: // raw NUL bytes
      return { bytes: Buffer.concat([utf8.subarray(0, middle), Buffer.from([0, 0, 0]), utf8.subarray(middle)]), type }
    case 6: // latin1 bytes, labelled latin1
      return { bytes: Buffer.from(text.replace('"', '"\u00e9\u00ff'), 'latin1'), type: `${type}; charset=latin1` }
    default: // cut in half
      return { bytes: utf8.subarray(0, Math.floor(utf8.length / 2)), type }
  }
}

function multipart(fields: Array<[string, string]>, files: Array<[string, Buffer]>): { bytes: Buffer; type: string } {
  const boundary = '----hostile7d1f'
  const parts: Buffer[] = []
  for (const [name, value] of fields) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`, 'utf8'))
  for (const [name, bytes] of files) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/octet-stream\r\n\r\n`, 'utf8'),
      bytes,
      Buffer.from('\r\n'),
    )
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`))
  return { bytes: Buffer.concat(parts), type: `multipart/form-data; boundary=${boundary}` }
}

/** Percent-encodes any text; a lone surrogate, which encodeURIComponent refuses, goes as the UTF-8 of U+FFFD. */
function encode(text: string): string {
  try {
    return encodeURIComponent(text)
  } catch {
    return [...Buffer.from(text, 'utf8')].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join('')
  }
}

/** Whether a text would make a folder download hit item 5 (`..` in an attachment's name or folder). */
const dotDot = (text: string) => text.includes('..')

/** The hostile request a mutation makes of a valid one. */
function mutate(base: Base, m: Mutation, operationId: string): RawRequest {
  let path = base.path
  let query = base.query
  let headers: Array<[string, string]> = base.headers.map(([n, v]) => [n, v])
  let body: Body = structuredClone(base.body)
  let raw: { bytes: Buffer; type: string } | undefined
  let rawJson: string | undefined
  const params = Object.keys(base.pathParams).filter((name) => path.includes(`{${name}}`))
  const json = body.kind === 'json' ? body : undefined
  switch (m.kind) {
    case 'bigString': {
      const text = m.unit.repeat(Math.ceil(m.size / m.unit.length))
      if (json)
        json.value = change(
          json.value,
          (n) => typeof n === 'string',
          m.pick,
          () => text,
        )
      else if (body.kind === 'form') body.value = { ...body.value, username: text }
      else if (body.kind === 'multipart') body.files = [['big.bin', Buffer.alloc(m.size, 0x61)]]
      else query = `${query}${query === '' ? '' : '&'}x=${'a'.repeat(1_500)}`
      break
    }
    case 'bigArray':
      if (json)
        json.value = change(json.value, Array.isArray, m.pick, (node) =>
          Array.from({ length: m.size }, () => structuredClone(Array.isArray(node) && node.length > 0 ? node[0] : 1)),
        )
      else if (body.kind === 'multipart') body.files = Array.from({ length: Math.min(m.size, 1_000) }, (_, i) => [`f${i}.txt`, Buffer.from('x')])
      break
    case 'manyMembers':
      if (json)
        json.value = change(json.value, isObject, m.pick, (node) => ({
          ...(isObject(node) ? (node as object) : {}),
          ...Object.fromEntries(Array.from({ length: m.size }, (_, i) => [`m${i}`, i])),
        }))
      else if (body.kind === 'form') body.value = { ...body.value, ...Object.fromEntries(Array.from({ length: m.size }, (_, i) => [`m${i}`, String(i)])) }
      else if (body.kind === 'multipart')
        body.fields = [...body.fields, ...Array.from({ length: Math.min(m.size, 1_000) }, (_, i): [string, string] => [`m${i}`, 'x'])]
      break
    case 'hostileName':
      if (json) json.value = change(json.value, isObject, m.pick, (node) => ({ ...(isObject(node) ? (node as object) : {}), [m.name]: m.text }))
      else if (body.kind === 'form') body.value = { ...body.value, [m.name]: m.text }
      else if (body.kind === 'multipart') {
        // Item 5 (a folder download with `..` in a name) is pinned below, not drawn here.
        const name = dotDot(m.name) ? 'plain' : m.name
        body.files = [[`${name}.txt`, Buffer.from('x')]]
        if (!dotDot(m.text)) body.fields = [...body.fields, ['folder', m.text]]
      } else query = `${query}${query === '' ? '' : '&'}${encode(m.name)}=${encode(m.text)}`
      break
    case 'deep':
      if (json) {
        json.value = change(json.value, isObject, m.pick, (node) => ({ ...(isObject(node) ? (node as object) : {}), nested: NESTED }))
        rawJson = (JSON.stringify(json.value) ?? '{}').replace(JSON.stringify(NESTED), nestedText(m.depth, m.shape))
      } else if (body.kind === 'form') body.value = { ...body.value, nested: nestedText(m.depth, m.shape) }
      break
    case 'bodyBytes':
      if (body.kind === 'multipart')
        raw = {
          bytes: Buffer.concat([multipart(body.fields, body.files).bytes.subarray(0, 60), Buffer.from([0xff, 0x00, 0xc0])]),
          type: multipart([], []).type,
        }
      else if (body.kind !== 'none') raw = bodyBytes(body, m.variant)
      break
    case 'pathParam':
      if (params.length > 0) path = path.replace(`{${params[m.pick % params.length]}}`, m.value)
      else path = `${path}/${m.value}`
      break
    case 'queryParam':
      query = `${query}${query === '' ? '' : '&'}${m.raw ? m.name.replace(/[\s#?&]/g, '') : encode(m.name)}=${m.raw ? m.value.replace(/[\s#]/g, '') : encode(m.value)}`
      break
    case 'longUrl':
      // Padding in an extra parameter (an operation without query parameters ignores it or warns).
      query = `${query}${query === '' ? '' : '&'}pad=`
      break
    case 'longHeader': {
      const long = 'a'.repeat(m.length)
      if (headers.length > 0) (headers[m.pick % headers.length] as [string, string])[1] = long
      else headers.push(['X-Long', long])
      break
    }
    case 'manyHeaders':
      headers = [...headers, ...Array.from({ length: m.count }, (_, i): [string, string] => [`X-H${i}`, String(i)])]
      break
    case 'headerBytes': {
      const value = ['\u00e9\u00ff\u0080', '=?utf-8?b?w6k=?=', '\u0001', ' \t '][m.variant] as string
      if (headers.length > 0) (headers[m.pick % headers.length] as [string, string])[1] = value
      else headers.push(['X-Bytes', value])
      break
    }
    case 'filterNesting': {
      const nested = (condition: string, depth: number) => `${'('.repeat(depth)}${condition}${')'.repeat(depth)}`
      if (operationId === 'queryItems') body = { kind: 'json', value: { query: `$top=1&$filter=${nested('Id eq 1', m.depth)}` } }
      else if (operationId === 'queryItemsLegacy') query = `$filter=${encode(nested('Id eq 1', Math.min(m.depth, 300)))}`
      else if (operationId === 'listAttachments') query = `$filter=${encode(nested('ParentId eq 1', Math.min(m.depth, 300)))}`
      else if (json)
        json.value = change(json.value, isObject, 0, (node) => ({ ...(isObject(node) ? (node as object) : {}), $filter: nested('Id eq 1', m.depth) }))
      break
    }
  }
  for (const name of params) path = path.replace(`{${name}}`, base.pathParams[name] as string)
  let target = query === '' ? path : `${path}?${query}`
  if (m.kind === 'longUrl') target += 'a'.repeat(Math.max(0, m.length - target.length))
  if (raw === undefined && body.kind !== 'none') {
    if (body.kind === 'json') raw = { bytes: Buffer.from(rawJson ?? JSON.stringify(body.value) ?? 'null', 'utf8'), type: 'application/json' }
    else if (body.kind === 'form') raw = { bytes: Buffer.from(new URLSearchParams(body.value).toString(), 'utf8'), type: 'application/x-www-form-urlencoded' }
    else raw = multipart(body.fields, body.files)
  }
  return {
    method: base.method,
    target,
    headers: raw === undefined ? headers : [...headers, ['Content-Type', raw.type]],
    ...(raw === undefined ? {} : { body: raw.bytes }),
  }
}

// ---- the properties ---------------------------------------------------------------------------

const document = buildDocument()
const PASSES: Array<{ version: string; only?: ReadonlySet<string> }> = [
  { version: '3.0.19' },
  // Operations the latest release does not have, each in a release that has it.
  { version: '3.0.18', only: new Set(['signInWithoutOrganization']) },
  { version: '2.9', only: new Set(['signInLegacy', 'queryItemsLegacy']) },
]

for (const pass of PASSES) {
  const version = normalizeVersion(pass.version) as string
  const releaseDocument = documentForVersion(document, version)
  const operations = listOperations(releaseDocument).filter((entry) => pass.only === undefined || pass.only.has(entry.operationId))

  describe(`hostile input to release ${pass.version}: every answer in time, below 500, and a second client served meanwhile`, () => {
    const mock = builtMock(pass.version)

    it('has its operations', () => {
      expect(operations.length).toBeGreaterThanOrEqual(pass.only?.size ?? 10)
    })

    for (const entry of operations) {
      it(
        `${entry.operationId} (${entry.method.toUpperCase()} ${entry.path})`,
        async () => {
          await fc.assert(
            fc.asyncProperty(mutations, async (each) => {
              for (const m of each) {
                await hostile(mock, mutate(apiBase(mock, releaseDocument, entry), m, entry.operationId))
                // Hostile saves may have written megabytes; the next request starts from the fixture (sessions stay).
                expect((await fetch(`${mock.url}/__mock/reset`, { method: 'POST' })).status).toBe(200)
              }
            }),
            // A stall makes every shrinking step wait for the bounds: report the first failure as it is.
            { seed: FUZZ_SEED, numRuns: runs(pass.only === undefined ? 2 : 3), endOnFailure: true },
          )
        },
        TEST_TIMEOUT_MS,
      )
    }

    if (pass.only === undefined) {
      for (const entry of listOperations(controlPlaneDocument())) {
        it(
          `control plane: ${entry.operationId} (${entry.method.toUpperCase()} ${entry.path})`,
          async () => {
            // Fault rules, clock jumps and fixture loads may rightly change what Get Items answers: meanwhile only health counts.
            mock.side.items = false
            try {
              await fc.assert(
                fc.asyncProperty(mutations, async (each) => {
                  for (const m of each) await hostile(mock, mutate(controlBase(entry), m, entry.operationId))
                  // Back to the start: no fault or answer rule, the default fixture, a fresh session; then a small Get Items is served.
                  expect((await fetch(`${mock.url}/__mock/faults`, { method: 'DELETE' })).status).toBe(200)
                  expect((await fetch(`${mock.url}/__mock/stubs`, { method: 'DELETE' })).status).toBe(200)
                  expect(
                    (await fetch(`${mock.url}/__mock/fixture`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: DEFAULT_FIXTURE }))
                      .status,
                  ).toBe(200)
                  await mock.side.signIn(mock.signInPath)
                  const items = await mock.side.once('items')
                  expect(items.status).toBe(200)
                  expect(items.ms).toBeLessThan(SIDE_BOUND_MS)
                }),
                { seed: FUZZ_SEED, numRuns: runs(2), endOnFailure: true },
              )
            } finally {
              mock.side.items = true
            }
          },
          TEST_TIMEOUT_MS,
        )
      }

      it(
        'control plane: the console and its assets under hostile names',
        async () => {
          // Object.prototype's member names are item 6, pinned below.
          const names = PATH_VALUES.filter((value) => !['constructor', 'toString'].includes(value))
          await fc.assert(
            fc.asyncProperty(fc.constantFrom('', ...names), async (name) => {
              await hostile(mock, { method: 'GET', target: `/__mock/ui${name === '' ? '' : `/${name}`}`, headers: [] })
            }),
            { seed: FUZZ_SEED, numRuns: runs(8), endOnFailure: true },
          )
        },
        TEST_TIMEOUT_MS,
      )
    }
  })
}

// ---- inputs that once wedged or failed the mock ---------------------------------------------------

/**
 * Inputs that once hung the mock, stalled every client or answered 500. Each block runs against a
 * mock of its own (killed after it, so a regression that wedges it cannot take the others along).
 */
const DATA_HEADERS = (token: string): Array<[string, string]> => [
  ['ApplicationId', IDS.applicationId],
  ['SessionToken', token],
  ['WorkspaceId', IDS.workspaceId],
]
const jsonRequest = (target: string, value: unknown, headers: Array<[string, string]> = []): RawRequest => ({
  method: 'POST',
  target,
  headers: [...headers, ['Content-Type', 'application/json']],
  body: Buffer.from(JSON.stringify(value), 'utf8'),
})

/** The default fixture, changed by `edit`, loaded through the control plane. */
async function loadChanged(mock: Mock, edit: (fixture: any) => void): Promise<void> {
  const fixture = JSON.parse(DEFAULT_FIXTURE)
  edit(fixture)
  const answer = await fetch(`${mock.url}/__mock/fixture`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fixture) })
  expect(answer.status, await answer.text()).toBe(200)
  await mock.side.signIn(mock.signInPath)
}

describe('an identity sequence near 2^53 does not hang the mock', () => {
  const mock = builtMock('3.0.19')
  it(
    'reserving identities past 2^53 is answered in time while health is served',
    async () => {
      await loadChanged(mock, (fixture) => {
        fixture.sequences = { [IDS.masterStorageId]: { nextId: 1_000, nextIdentity: Number.MAX_SAFE_INTEGER - 1 } }
      })
      await hostile(mock, {
        method: 'GET',
        target: `/ExplorerApi/api/storage/${IDS.masterStorageId}/identity/IdRow/next/4`,
        headers: DATA_HEADERS(mock.side.token),
      })
    },
    TEST_TIMEOUT_MS,
  )
})

describe('one huge $filter or $orderby does not stall everyone', () => {
  // Unfixed, these take gigabytes (the issue measured 4 GB for 55 MB of `(`): a capped heap ends such a run instead of the machine's memory.
  const mock = builtMock('3.0.19', ['--max-old-space-size=1536'])
  /**
   * Bounds against a stall, not a speed measurement (the unfixed mock took 10 to 56 s and gigabytes):
   * the refusals' own figures are measured by hand and in the bench. Reading and parsing a 50 MB body
   * takes the event loop a second or more on a loaded two-core machine, hence the side bound of 5 s.
   */
  const ISSUE_BOUNDS = { answerMs: 8_000, sideMs: 5_000 }
  const items = (query: string) => jsonRequest('/ExplorerApi/api/items', { query }, DATA_HEADERS(mock.side.token))
  it(
    'a 50 MB $filter of ( is refused or answered in time while health is served',
    async () => {
      await hostile(mock, items(`$filter=${'('.repeat(50_000_000)}`), ISSUE_BOUNDS)
    },
    TEST_TIMEOUT_MS,
  )
  it(
    'a $orderby of 4 M items (12 MB) is refused or answered in time while health is served',
    async () => {
      await hostile(mock, items(`$orderby=${'Id,'.repeat(4_000_000)}Id`), ISSUE_BOUNDS)
    },
    TEST_TIMEOUT_MS,
  )
  // Found by this suite: far smaller than the issue's, yet 56 s on the built mock (10,000 items: 159 s).
  it(
    'a $orderby of 2,500 text items (22 KB) is refused or answered in time while health is served',
    async () => {
      await hostile(mock, items(`$top=1&$orderby=${'Customer,'.repeat(2_500)}Id`), ISSUE_BOUNDS)
    },
    TEST_TIMEOUT_MS,
  )
})

describe('an answer rule matched against a 2 MB save does not stall everyone', () => {
  const mock = builtMock('3.0.19')
  it(
    'a 2 MB save with one rule set is answered in time while health is served',
    async () => {
      const rule = {
        operationId: 'saveItems',
        match: { body: { Rows: [{ Row: { Customer: { $regex: '^Needle' } } }, { Row: { Status: { $contains: 'Open' } } }] } },
        answer: { patch: { LockedItems: 0 } },
      }
      const added = await fetch(`${mock.url}/__mock/stubs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(rule) })
      expect(added.status, await added.text()).toBe(201)
      // 10,000 rows of 200 characters: each element of the pattern's array is held against every row.
      const rows = Array.from({ length: 10_000 }, (_, i) => ({
        Row: { Id: -(i + 1), IdRow: null, TIMESTAMP: null, Customer: `${'x'.repeat(200)}${i}`, Status: 'Open' },
        Details: [],
      }))
      await hostile(mock, jsonRequest('/ExplorerApi/api/items/save', { Rows: rows }, DATA_HEADERS(mock.side.token)))
    },
    TEST_TIMEOUT_MS,
  )
})

describe('a field named __proto__ keeps its values', () => {
  const mock = builtMock('3.0.19')
  it(
    'a saved __proto__ value reads back',
    async () => {
      await loadChanged(mock, (fixture) => {
        fixture.applications[0].master.fields.push({ name: '__proto__', type: 'String' })
      })
      const body = `{"Rows":[{"Row":{"Id":-1,"IdRow":null,"TIMESTAMP":null,"Customer":"Proto","__proto__":"kept"},"Details":[]}]}`
      const saved = await fetch(`${mock.url}/ExplorerApi/api/items/save`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ApplicationId: IDS.applicationId, SessionToken: mock.side.token, WorkspaceId: IDS.workspaceId },
        body,
      })
      expect(saved.status).toBe(200)
      const read = await fetch(`${mock.url}/ExplorerApi/api/items`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ApplicationId: IDS.applicationId, SessionToken: mock.side.token, WorkspaceId: IDS.workspaceId },
        body: JSON.stringify({ query: "$filter=Customer eq 'Proto'" }),
      })
      const text = await read.text()
      expect(text).toContain('"__proto__":"kept"')
    },
    TEST_TIMEOUT_MS,
  )
})

describe('a folder download with .. in a name is no 500', () => {
  const mock = builtMock('3.0.19')
  it(
    'an upload into folder .., downloaded with another id, is a zip or a 4xx',
    async () => {
      const upload = multipart(
        [
          ['parentId', '2'],
          ['folder', '..'],
        ],
        [['x.txt', Buffer.from('x')]],
      )
      const added = await fetch(`${mock.url}/__mock/attachments`, { method: 'POST', headers: { 'content-type': upload.type }, body: upload.bytes })
      expect(added.status).toBe(201)
      // The answer lists the folder it created, then the file in it.
      const records = (await added.json()) as Array<{ Id: number; IsFolder: boolean; Name: string }>
      const folderId = records.find((record) => record.IsFolder && record.Name === '..')?.Id
      const fileId = records.find((record) => !record.IsFolder)?.Id
      expect(folderId).toBeDefined()
      // Several ids put a folder's files under its name in the zip: the entry `../x.txt`.
      await hostile(mock, jsonRequest('/ExplorerApi/api/attachments/download', { ids: [folderId, fileId], rk: '' }, DATA_HEADERS(mock.side.token)))
    },
    TEST_TIMEOUT_MS,
  )
})

describe('console asset names of Object.prototype are no 500', () => {
  const mock = builtMock('3.0.19')
  it.each(['constructor', '__proto__', 'toString'])(
    '/__mock/ui/%s',
    async (name) => {
      await hostile(mock, { method: 'GET', target: `/__mock/ui/${name}`, headers: [] })
    },
    TEST_TIMEOUT_MS,
  )
})

describe('a URL over 2048 characters is 414 whatever its path', () => {
  const mock = builtMock('3.0.19')
  it(
    'a 3,000-character unknown path answers 414',
    async () => {
      const answer = await sendRaw(mock.url, { method: 'GET', target: `/${'a'.repeat(3_000)}`, headers: [] }, ANSWER_BOUND_MS)
      expect(answer.status).toBe(414)
    },
    TEST_TIMEOUT_MS,
  )
})
