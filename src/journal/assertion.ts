/**
 * `mock.assertRequested()`: did the client send what the test expects? Resolves with the matching
 * journal entries, or rejects with a RequestAssertionError that says what was expected, how many
 * matched, and the closest requests with the members that differ (WireMock's near misses).
 * Typed without Node's types: the class is part of the package's public types.
 */
import type { Journal, JournalEntry } from './journal.ts'
import type { NearMiss, RequestQuery } from './match.ts'

/** How long an assertion waits for exchanges in flight to be recorded (an answer the client holds may not be journaled yet). */
export const SETTLE_MS = 1000
/** Near misses a failed assertion names. */
export const NEAR_MISSES = 3

export interface AssertRequestedOptions {
  /** Exactly this many matching requests (0: none); at least one when absent. */
  times?: number
}

/** A failed `assertRequested()`: the message says it all; the fields are for code that wants them. */
export class RequestAssertionError extends Error {
  override name = 'RequestAssertionError'
  /** The pattern and count asked for. */
  readonly expected: RequestQuery & { times?: number }
  /** How many requests in the journal matched. */
  readonly matched: number
  /** Those requests, oldest first. */
  readonly matches: JournalEntry[]
  /** The closest requests that did not match, nearest first (at most 3); empty when too many matched. */
  readonly nearMisses: NearMiss[]

  constructor(message: string, fields: { expected: RequestQuery & { times?: number }; matches: JournalEntry[]; nearMisses: NearMiss[] }) {
    super(message)
    this.expected = fields.expected
    this.matched = fields.matches.length
    this.matches = fields.matches
    this.nearMisses = fields.nearMisses
  }
}

/**
 * Waits (at most SETTLE_MS) for exchanges in flight to be recorded, then counts the journal's
 * requests matching `query`. A pattern that is none rejects with the 400 ProblemError the HTTP
 * query gives (violations under `/match`); `times` that is no count with a RangeError.
 */
export async function assertRequested(journal: Journal, query: RequestQuery = {}, options: AssertRequestedOptions = {}): Promise<JournalEntry[]> {
  const { times } = options
  if (times !== undefined && (!Number.isSafeInteger(times) || times < 0))
    throw new RangeError(`times must be a whole number of 0 or more, got ${String(times)}`)
  await journal.settled(SETTLE_MS)
  const found = await journal.search(query, { nearMisses: NEAR_MISSES })
  const count = found.matches.length
  if (times === undefined ? count > 0 : count === times) return found.matches
  const expected = {
    ...(query.operationId === undefined ? {} : { operationId: query.operationId }),
    ...(query.match === undefined ? {} : { match: query.match }),
  }
  // More than asked: the ones that matched are the news, not the ones that did not.
  const nearMisses = times !== undefined && count > times ? [] : found.nearMisses
  const lines = [
    `Expected ${times === undefined ? 'at least one request' : `exactly ${times} request${times === 1 ? '' : 's'}`} matching`,
    indent(JSON.stringify(expected, null, 2), 2),
    `but ${count} matched, of ${found.total} request${found.total === 1 ? '' : 's'} in the journal${found.evicted > 0 ? ` (${found.evicted} older ones evicted: --journal-limit)` : ''}.`,
  ]
  if (count > 0) {
    lines.push('Matched:', ...found.matches.slice(-10).map((entry) => `  ${heading(entry)}`))
    if (count > 10) lines.push(`  ... and ${count - 10} earlier`)
  }
  if (nearMisses.length > 0) {
    lines.push(`The closest request${nearMisses.length === 1 ? '' : 's'} that did not match:`)
    for (const miss of nearMisses) {
      lines.push(`  ${heading(miss)}, distance ${miss.distance}`)
      for (const difference of miss.differences.slice(0, 10)) lines.push(`    ${difference.pointer}: expected ${difference.expected}, was ${difference.actual}`)
      if (miss.differences.length > 10) lines.push(`    ... and ${miss.differences.length - 10} more`)
    }
  } else if (found.total === 0) {
    lines.push('The journal holds no API requests (control-plane calls are not recorded; reset() and clearRequests() empty it).')
  }
  throw new RequestAssertionError(lines.join('\n'), { expected: times === undefined ? expected : { ...expected, times }, matches: found.matches, nearMisses })
}

function heading(entry: { seq: number; method: string; path: string; operationId: string | null; status: number | null; user: string | null }): string {
  const about = [entry.operationId ?? 'no operation', entry.status === null ? 'connection cut' : String(entry.status), entry.user ?? 'no user'].join(', ')
  return `#${entry.seq} ${entry.method} ${entry.path} (${about})`
}

function indent(text: string, spaces: number): string {
  const pad = ' '.repeat(spaces)
  return text
    .split('\n')
    .map((line) => pad + line)
    .join('\n')
}
