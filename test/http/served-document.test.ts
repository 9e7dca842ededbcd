/**
 * The document a client reads says exactly what the mock it talks to does: for each release and
 * each mode, the document the started mock serves at /openapi.json is read over HTTP, requests for
 * every operation are drawn from it (json-schema-faker through fast-check, fixed seed, plus the
 * document's own examples, half of them mutated), each is classified by the served document's own
 * schemas, and the mock must answer as that document says:
 * - positive data acceptance: a request the document allows is not refused as malformed (no 400);
 * - negative data rejection: a request the document does not allow is refused with a 4xx;
 * - response conformance: the status and media type are documented and the body matches its schema;
 * - no server error, and every refusal is a problem document.
 * The same kind of check Schemathesis runs, in both modes: strict must refuse exactly what its
 * document forbids, and the lenient document must not forbid what the lenient mock accepts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import fc from 'fast-check'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { listOperations, operationParameters, type OperationEntry } from '../../src/document/reader.ts'
import { DocumentValidators } from '../../src/document/validators.ts'
import { IDS, startTestMock, type Reply, type TestClient } from '../helpers/http.ts'
import { FUZZ_SEED, runs } from '../helpers/property-runs.ts'
import { bodyOf, describeShot, fromSchema, mutated, replyProblems, type Shot } from './support/fuzz.ts'

/** Requests per operation, release and mode: enough to meet every schema branch, few enough for seconds. */
const CASES = runs(40)

/** Values a signed-in client knows (the default fixture's), offered beside generated ones so requests reach the handlers. */
const KNOWN: Record<string, string> = {
  organizationphysicalname: IDS.org,
  storage_id: IDS.masterStorageId,
  field_name: 'IdRow',
}

interface Case {
  shot: Shot
  /** What the served document says of the request: none of its rules broken. */
  allowed: boolean
  violations: string[]
}

type ParameterValues = Record<'header' | 'query' | 'path', Record<string, unknown>>

function text(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value) ?? '')
}

/** The arbitrary of one parameter's value: generated from its schema, sometimes a known one, left out when optional. */
function parameterValue(document: OpenAPIObject, schema: unknown, name: string, required: boolean): fc.Arbitrary<unknown> {
  const generated = fromSchema({ ...(schema as object), components: document.components } as never)
  const value = KNOWN[name] === undefined ? generated : fc.oneof(fc.constant(KNOWN[name]), generated)
  return required ? value : fc.option(value, { nil: undefined })
}

/** Requests for one operation, as a client reading `document` would make them, each with what the document says of it. */
function casesFor(document: OpenAPIObject, validators: DocumentValidators, entry: OperationEntry, token: string, seed: number): Case[] {
  const parameters = operationParameters(document, entry)
  const values: Record<string, fc.Arbitrary<unknown>> = {}
  for (const p of parameters) {
    const key = `${p.in} ${p.name}`
    if (p.in === 'header' && p.name === 'SessionToken') values[key] = fc.constant(token)
    else if (p.in === 'header' && p.name === 'ApplicationId') values[key] = fc.constant(IDS.applicationId)
    else if (p.in === 'header' && p.name === 'WorkspaceId') values[key] = fc.constant(IDS.workspaceId)
    else values[key] = parameterValue(document, p.parameter.schema, p.name, p.required || p.in === 'path')
  }
  const body = bodyOf(document, entry)
  const bodyValue =
    body === undefined ? fc.constant(undefined) : mutated(fc.oneof(fromSchema(body.schema), ...body.examples.map((example) => fc.constant(example))))
  const bearer = JSON.stringify(entry.operation.security ?? []).includes('BearerAuth')
  const drawn = fc.sample(fc.record({ parameters: fc.record(values), body: bodyValue }), { seed, numRuns: CASES })
  return drawn.map(({ parameters: chosen, body: value }) => {
    const parts: ParameterValues = { header: {}, query: {}, path: {} }
    for (const p of parameters) {
      const v = chosen[`${p.in} ${p.name}`]
      if (v !== undefined && (p.in === 'header' || p.in === 'query' || p.in === 'path')) parts[p.in][p.name] = text(v)
    }
    let path = entry.path.replace(/\{([^}]+)\}/g, (_whole, name: string) => encodeURIComponent(String(parts.path[name] ?? '')))
    const query = new URLSearchParams()
    for (const [name, v] of Object.entries(parts.query)) query.set(name, String(v))
    if (query.size > 0) path += `?${query.toString().replaceAll('+', '%20')}`
    const headers: Record<string, string> = Object.fromEntries(Object.entries(parts.header).map(([name, v]) => [name, String(v)]))
    if (bearer) headers.Authorization = `Bearer ${token}`
    const shot: Shot = { method: entry.method.toUpperCase(), path, headers }
    let sentBody: unknown = value
    if (body?.mediaType === 'application/x-www-form-urlencoded') {
      // A form carries text only: what the server sees is each member as text.
      const form =
        value !== null && typeof value === 'object' && !Array.isArray(value) ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, text(v)])) : {}
      shot.form = form
      sentBody = form
    } else if (body !== undefined) shot.json = value
    const check = validators.requestValidator(entry)({
      headers: Object.fromEntries(Object.entries(headers).map(([name, v]) => [name.toLowerCase(), v])),
      query: Object.fromEntries(query),
      params: Object.fromEntries(Object.entries(parts.path).map(([name, v]) => [name, String(v)])),
      body: body === undefined ? undefined : sentBody,
    })
    const violations = [
      ...check.violations.map((v) => `${v.pointer} ${v.message}`),
      ...check.unknownMembers.map((m) => `${m} is not a member the document names`),
    ]
    return { shot, allowed: violations.length === 0, violations }
  })
}

/** The problem code of a refusal, if it has one. */
function problemCode(reply: Reply): string | undefined {
  const body = reply.body as { code?: unknown } | string
  return typeof body === 'object' && body !== null && typeof body.code === 'string' ? body.code : undefined
}

/**
 * Refusals no schema can say. Wrong credentials are refused with 400 `invalid_grant` (RFC 6749,
 * section 5.2); strict mode refuses a ProcedureName that is not the named action's. Get Items takes its options in one query text whose grammar (filter language,
 * the application's field names, which options exist) the document gives in prose, not as a
 * schema, so a text the schema lets through may still be refused as not understood, or in strict
 * mode for an option the description does not list.
 */
function refusedForMeaning(entry: OperationEntry, code: string | undefined, warning: unknown): boolean {
  if (code === 'INVALID_GRANT') return true
  // Strict mode runs an action only under its own stored procedure's name, which the action's Id decides.
  if (entry.operationId === 'runAction') return code === 'STRICT_MODE' && warning === 'PROCEDURE_NAME_MISMATCH'
  if (entry.operationId !== 'queryItems' && entry.operationId !== 'queryItemsLegacy') return false
  return (
    ['BAD_QUERY', 'BAD_FILTER', 'UNKNOWN_FIELD'].includes(code ?? '') ||
    (code === 'STRICT_MODE' && ['UNSUPPORTED_QUERY_OPTION', 'EMPTY_RELATION_KEY'].includes(String(warning)))
  )
}

/** What is wrong with the mock's answer to one case, by the document it served. */
function disagreements(validators: DocumentValidators, entry: OperationEntry, item: Case, reply: Reply): string[] {
  const found: string[] = []
  const code = problemCode(reply)
  if (reply.status >= 500) found.push(`server error ${reply.status}`)
  const warning = (reply.body as { warning?: unknown } | null)?.warning
  if (item.allowed && reply.status === 400 && !refusedForMeaning(entry, code, warning))
    found.push(`positive data acceptance: the document allows the request, the mock refused it (400 ${code})`)
  if (!item.allowed && reply.status < 400)
    found.push(`negative data rejection: the document forbids the request (${item.violations.join('; ')}), the mock answered ${reply.status}`)
  found.push(...replyProblems(reply).map((problem) => `problem document: ${problem}`))
  found.push(
    ...validators
      .responseProblems(entry, { status: reply.status, contentType: reply.contentType, body: reply.body })
      .map((problem) => `response conformance: ${problem}`),
  )
  return found
}

/** Runs the check against one started mock; returns one line per disagreement, and how many requests of each kind were sent. */
async function checkServedDocument(mock: TestClient, seed: number): Promise<{ failures: string[]; allowed: number; forbidden: number }> {
  const served = await mock.request('GET', '/openapi.json', { unchecked: true })
  const document = served.body as OpenAPIObject
  const validators = new DocumentValidators(document)
  const token = await mock.signIn()
  const failures: string[] = []
  let allowed = 0
  let forbidden = 0
  for (const [index, entry] of listOperations(document).entries()) {
    for (const item of casesFor(document, validators, entry, token, seed + index)) {
      if (item.allowed) allowed++
      else forbidden++
      const reply = await mock.request(item.shot.method, item.shot.path, {
        headers: item.shot.headers,
        json: item.shot.json,
        form: item.shot.form,
        unchecked: true,
      })
      for (const problem of disagreements(validators, entry, item, reply)) {
        failures.push(`${entry.operationId}: ${problem}\n${describeShot(item.shot)}\n--> ${reply.status} ${reply.raw.toString('utf8').slice(0, 300)}`)
      }
    }
  }
  return { failures, allowed, forbidden }
}

/** A failure's kind (operation and check), for a short summary. */
function kindOf(failure: string): string {
  return failure.split('\n')[0]?.replace(/\(.*$/s, '').trim() ?? failure
}

const RELEASES = ['3.0.19', '3.0.18', '2.9'] as const
const MODES = [
  { name: 'lenient', strict: false },
  { name: 'strict', strict: true },
] as const

describe.each(RELEASES)('the document a mock of release %s serves says what it does', (release) => {
  describe.each(MODES)('$name mode', ({ strict }) => {
    let mock: TestClient
    beforeAll(async () => {
      mock = await startTestMock({ productVersion: release, strict })
    })
    afterAll(() => mock?.close())

    it('accepts what its document allows, refuses what it forbids, answers as it documents', async () => {
      const { failures, allowed, forbidden } = await checkServedDocument(mock, FUZZ_SEED)
      const first = new Map<string, string>()
      for (const failure of failures) if (!first.has(kindOf(failure))) first.set(kindOf(failure), failure)
      expect([...first.keys()], `seed ${FUZZ_SEED}: ${failures.length} disagreements; the first of each kind:\n${[...first.values()].join('\n\n')}`).toEqual([])
      // Both kinds of request were sent, so both checks ran.
      expect(allowed).toBeGreaterThan(100)
      expect(forbidden).toBeGreaterThan(100)
    }, 120_000)
  })
})
