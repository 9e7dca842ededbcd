/**
 * Request patterns over the journal: `GET /__mock/requests?match=`, `GET /__mock/requests/near-misses`
 * and `mock.assertRequested()`. The pattern language itself is request-pattern.ts (the one answer
 * rules use); this file holds a journal record up to it, checks a `match` that came as text, and
 * says what differs without showing secrets.
 */
import type { Violation } from '../errors.ts'
import { violationsProblem } from '../document/violations.ts'
import { compileRequestPattern, type CompiledRequestPattern, type Difference, type RequestMatch, type RequestSubject } from '../rules/pattern.ts'
import { isSecretName, redactValue, REDACTED } from '../policy/redact.ts'

/** What a pattern reads of a journal record (journal-store.ts's JournalRecord has it; named here so neither file imports the other). */
export interface MatchableRecord {
  seq: number
  method: string
  url: string
  operationId: string | null
  user: string | null
  status: number | null
  requestHeaders?: Record<string, string | string[] | undefined>
  requestBody?: { kept: true; value: unknown } | { kept: false; note: string }
}

/** Which requests a journal query or an assertion asks for: the operation and a rule's `match`. */
export interface RequestQuery {
  operationId?: string | undefined
  /** A rule's `match`: `{ body?: PATTERN, headers?: { NAME: PATTERN }, user?: EMAIL }`. */
  match?: RequestMatch | undefined
}

/** A request in the journal that did not match, with how far it was and what differed. */
export interface NearMiss {
  seq: number
  method: string
  path: string
  operationId: string | null
  status: number | null
  user: string | null
  /** 0 for an exact match, 1 when nothing the pattern asks is there (WireMock's distance). */
  distance: number
  /** The members that differ, secrets' values shown as `[redacted]`. */
  differences: Difference[]
}

const MATCH_MEMBERS = new Set(['body', 'headers', 'user'])

/** The violations of a `match` that is not a rule's `match` object (its patterns are checked by compileRequestPattern). */
function shapeViolations(match: unknown, at: string): Violation[] {
  if (match === null || typeof match !== 'object' || Array.isArray(match)) {
    return [{ pointer: at, keyword: 'type', message: 'must be an object with body, headers or user' }]
  }
  const violations: Violation[] = []
  for (const [name, value] of Object.entries(match)) {
    const pointer = `${at}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}`
    if (!MATCH_MEMBERS.has(name))
      violations.push({ pointer, keyword: 'additionalProperties', message: `is not a member of a match: use body, headers or user` })
    else if (name === 'headers' && (value === null || typeof value !== 'object' || Array.isArray(value)))
      violations.push({ pointer, keyword: 'type', message: 'must be an object of header names' })
    else if (name === 'user' && typeof value !== 'string') violations.push({ pointer, keyword: 'type', message: 'must be the e-mail of the signed-in user' })
  }
  return violations
}

/**
 * Checks and compiles a query's pattern; refuses it with a 400 `VALIDATION` problem whose
 * violations point at `at` (`/query/match` over HTTP, `/match` in-process).
 */
export function compileQuery(query: RequestQuery, at: string): CompiledRequestPattern {
  const violations = query.match === undefined ? [] : shapeViolations(query.match, at)
  if (violations.length === 0) {
    const compiled = compileRequestPattern({ operationId: query.operationId, match: query.match }, at)
    if (compiled.ok) return compiled.pattern
    violations.push(...compiled.violations)
  }
  throw violationsProblem(violations)
}

/** The `match` query parameter: URL-decoded already, JSON here; refused naming `/query/match` when it is not JSON. */
export function parseMatchParameter(text: string | undefined): RequestMatch | undefined {
  if (text === undefined) return undefined
  try {
    return JSON.parse(text) as RequestMatch
  } catch (error) {
    const violations: Violation[] = [
      { pointer: '/query/match', keyword: 'json', message: `is not JSON (${(error as Error).message}); send a rule's match object, URL-encoded` },
    ]
    throw violationsProblem(violations)
  }
}

const SHOWN_REDACTED = { isSecret: isSecretName, text: REDACTED }

const NOT_KEPT = '[not kept: the journal keeps no headers or bodies with --journal-body-limit 0]'

/** A journal record as the pattern sees it: what the journal kept, and why not where it kept nothing. */
export function subjectOf(record: MatchableRecord): RequestSubject {
  // Secrets match only as they are shown: a pattern cannot learn a token one guess at a time.
  const subject: RequestSubject = { operationId: record.operationId, body: null, headers: {}, user: record.user, redacted: SHOWN_REDACTED }
  const body = record.requestBody
  if (body === undefined) subject.bodyNote = NOT_KEPT
  else if (!body.kept) subject.bodyNote = body.note
  else if (body.value instanceof Uint8Array) subject.bodyNote = `[${body.value.byteLength} bytes, not a JSON or form body]`
  else subject.body = body.value
  const headers = record.requestHeaders
  if (headers === undefined) subject.headersNote = NOT_KEPT
  else if (typeof headers['x-journal-note'] === 'string' && Object.keys(headers).length === 1) subject.headersNote = headers['x-journal-note']
  else subject.headers = headers
  return subject
}

/**
 * What differs, with nothing secret shown: the value of a password, token or other secret member
 * as `[redacted]`, and a part of the request shown whole (an object, an array) with its secret
 * members redacted.
 */
export function redactDifferences(differences: Difference[], subject: RequestSubject): Difference[] {
  return differences.map((difference) => {
    if (difference.actual === 'absent') return difference
    const segments = difference.pointer
      .split('/')
      .slice(1)
      .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'))
    if (segments.some((segment) => isSecretName(segment))) return { ...difference, actual: REDACTED }
    const value = valueAt(subject, segments)
    if (value === null || typeof value !== 'object') return difference
    const text = JSON.stringify(redactValue(value)) ?? ''
    return { ...difference, actual: text.length > 80 ? `${text.slice(0, 77)}...` : text }
  })
}

/** The request's value at a difference's pointer (`/body/...`, `/headers/NAME`); undefined when there is none. */
function valueAt(subject: RequestSubject, segments: string[]): unknown {
  const [part, ...rest] = segments
  let value: unknown = part === 'body' && subject.bodyNote === undefined ? subject.body : part === 'headers' ? subject.headers : undefined
  for (const segment of rest) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) return undefined
    value = (value as Record<string, unknown>)[segment]
  }
  return value
}

/** A non-matching record as a near miss. */
export function nearMissOf(record: MatchableRecord, distance: number, differences: Difference[], subject: RequestSubject): NearMiss {
  return {
    seq: record.seq,
    method: record.method,
    path: record.url.split('?')[0] ?? record.url,
    operationId: record.operationId,
    status: record.status,
    user: record.user,
    distance: Math.round(distance * 1000) / 1000,
    differences: redactDifferences(differences, subject),
  }
}
