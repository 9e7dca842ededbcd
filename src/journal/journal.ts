import type { MockWarning } from '../policy/warnings.ts'
import { redactHeaders, redactUrl, redactValue } from '../policy/redact.ts'
import { ReadyBytes } from '../wire/ready-bytes.ts'
import { bufferOf } from '../bytes.ts'
import type { MatchResult, RequestSubject } from '../rules/pattern.ts'
import { compileQuery, nearMissOf, subjectOf, type NearMiss, type RequestQuery } from './match.ts'

import type { FaultEffect } from '../rules/faults.ts'

/** A body as recorded: the value itself (kept by reference, not copied), or a note saying why not. */
export type RecordedBody = { kept: true; value: unknown } | { kept: false; note: string }

/**
 * One exchange as the journal stores it. Bodies are references to what the request and reply
 * already hold, so recording allocates one small object; the work of showing them (redaction,
 * parsing) happens only when someone reads the journal with bodies.
 */
export interface JournalRecord {
  seq: number
  /** When the exchange ended (answer sent or connection cut), on the mock's clock, in ms. */
  time: number
  method: string
  url: string
  operationId: string | null
  /** The signed-in user's e-mail (from the session the authentication step accepted); null without a valid session. */
  user: string | null
  status: number | null
  durationMs: number
  fault: FaultEffect | null
  /** The answer rule that answered or patched this request; null (or absent) for none. */
  stub?: number | null
  /** Warnings the request raised (things the API's description does not promise), in order. */
  warnings: readonly MockWarning[]
  /** The client closed the connection before an answer (set only then: the usual record does not carry it). */
  abandoned?: true
  requestHeaders?: Record<string, string | string[] | undefined>
  requestBody?: RecordedBody
  responseType?: string | null
  responseBody?: RecordedBody
}

/** A journal entry as the control plane shows it (the `JournalEntry` schema of spec/control-plane/). */
export interface JournalEntry {
  seq: number
  time: string
  method: string
  url: string
  path: string
  operationId: string | null
  /** The signed-in user's e-mail; null when the request carried no valid session (a sign-in, a refused token). */
  user: string | null
  status: number | null
  durationMs: number
  fault: FaultEffect | null
  stub: number | null
  /** Whether the client closed the connection before the mock answered (it timed out, or gave up); `status` is null then. */
  abandoned: boolean
  warnings: readonly MockWarning[]
  request?: { headers: Record<string, string>; body: unknown }
  response?: { contentType: string | null; body: unknown }
}

/** Which entries to show. */
export interface JournalFilter {
  operationId?: string
  /**
   * Only requests matching this pattern, a rule's `match` (`{ body?, headers?, user? }`, the
   * language of src/rules/pattern.ts); applied before `limit`.
   */
  match?: RequestQuery['match']
  /** Only the newest `limit` entries (after the operationId and match filters). */
  limit?: number
  /** Include headers and bodies, secrets redacted. */
  bodies?: boolean
}

/** The journal as the control plane shows it (the `JournalPage` schema). */
export interface JournalPage {
  capacity: number
  recorded: number
  evicted: number
  entries: JournalEntry[]
}

/** The request journal: the newest `capacity` exchanges with the API, in a fixed-size ring. */
export interface Journal {
  readonly capacity: number
  /** Largest body, in bytes, the journal keeps; 0 keeps none. */
  readonly bodyLimit: number
  /** Stores the record itself (its `seq` is set here), so the caller must hand over a fresh object. */
  add(record: JournalRecord): void
  /**
   * The entries the filter selects, at once (`startMock()`'s `requests()`). A `match` that is no
   * pattern throws a 400 `VALIDATION` ProblemError whose violations point under `at` (`/match` unless said).
   */
  read(filter?: JournalFilter, at?: string): JournalPage
  /** The same, matched in slices with turns of the event loop between them (`GET /__mock/requests`). */
  readSliced(filter?: JournalFilter, at?: string): Promise<JournalPage>
  /**
   * The records a query selects (as entries) and the closest of the others, nearest first, at most
   * `nearMisses` of them (WireMock's near misses); `total` is how many records the journal holds.
   * Matched in slices, with turns of the event loop between them, so other clients are answered.
   */
  search(
    query: RequestQuery,
    options: { nearMisses: number; at?: string },
  ): Promise<{ matches: JournalEntry[]; nearMisses: NearMiss[]; total: number; evicted: number }>
  /** An API exchange began (onRequest); `finish` it when it is recorded. */
  begin(token: object): void
  /**
   * The exchange is over; answers whether to record it: true once, for an exchange begun and not
   * ended since the last `clear()`. False for one begun before the last clear (a reset: it belongs
   * to the journal that was cleared, not to the new one), and for one that ended already: an
   * exchange leaves the set of those in flight once, so it is recorded at most once.
   */
  finish(token: object): boolean
  /** Exchanges begun and not finished: bounded, since `clear()` empties it and abandoned ones are swept. */
  readonly inFlight: number
  /**
   * Resolves once every exchange begun before the call is recorded or abandoned (the journal's
   * `abandoned` says so: a connection closed with no answer; `recordAbandoned` then records it),
   * or after `timeoutMs`: the journal records an exchange after its answer went out, so a client
   * may hold the answer a moment before the journal holds the request. Waits on events: each
   * exchange's end (`finish`), its connection's close (`whenClosed`), the deadline.
   */
  settled(timeoutMs: number): Promise<void>
  /** Forgets every entry, and every exchange in flight (they are not recorded when they end); returns how many entries there were. */
  clear(): number
}

/**
 * A journal holding at most `capacity` entries: a ring buffer, so recording is O(1) and memory
 * stays bounded however long a test suite runs.
 */
export function createJournal(options: {
  capacity: number
  bodyLimit: number
  /** Whether an exchange in flight was closed by its client with no answer. */
  abandoned?: (token: object) => boolean
  /** Records an exchange `abandoned` found (which finishes it); without it, the exchange is only forgotten. */
  recordAbandoned?: (token: object) => void
  /** Calls `then` when the exchange's connection closes; answers what stops listening. Asked only for exchanges a `settled` waits on. */
  whenClosed?: (token: object, then: () => void) => () => void
}): Journal {
  const { capacity, bodyLimit } = options
  // Asked only while an assertion waits, or when many exchanges are in flight, so no exchange pays
  // a listener to say it was abandoned (a request a rule holds has one: src/mock/plugins/holds.ts).
  const abandoned = options.abandoned ?? (() => false)
  if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`journal capacity must be a positive integer, got ${capacity}`)
  let ring: Array<JournalRecord | undefined> = new Array<JournalRecord | undefined>(capacity)
  let next = 0
  let size = 0
  let recorded = 0
  let seq = 0
  // Begun and not ended since the last clear: the exchanges still to be recorded, each once.
  const inFlight = new Set<object>()
  // Waited for once by `settled` and still not recorded: slow on purpose (a latency fault), or never to finish.
  const notAwaited = new WeakSet<object>()
  // When the set holds this many, the abandoned ones are swept out (recorded): a client that keeps
  // giving up on requests the mock answers without a rule cannot make it grow.
  let sweepAt = SWEEP_MIN

  // `settled` calls waiting for exchanges to end: each resolves when its last one ends (or at its deadline).
  const waiters = new Set<Waiter>()
  const ended = (token: object): void => {
    for (const waiter of waiters) {
      if (waiter.waiting.delete(token) && waiter.waiting.size === 0) waiter.done()
    }
  }
  const giveUp = (token: object): void => {
    if (!inFlight.has(token)) return
    if (options.recordAbandoned !== undefined) options.recordAbandoned(token)
    inFlight.delete(token)
    ended(token)
  }
  const sweep = (): void => {
    for (const token of inFlight) if (abandoned(token)) giveUp(token)
    sweepAt = Math.max(SWEEP_MIN, inFlight.size * 2)
  }

  /** Stored records, oldest first. */
  const ordered = (): JournalRecord[] => {
    const out: JournalRecord[] = []
    const start = (next - size + capacity) % capacity
    for (let i = 0; i < size; i++) {
      const record = ring[(start + i) % capacity]
      if (record !== undefined) out.push(record)
    }
    return out
  }

  const page = (selected: JournalRecord[], filter: JournalFilter): JournalPage => {
    const shown = filter.limit === undefined ? selected : selected.slice(Math.max(0, selected.length - filter.limit))
    return { capacity, recorded, evicted: recorded - size, entries: shown.map((r) => toEntry(r, filter.bodies === true)) }
  }

  return {
    capacity,
    bodyLimit,
    add(record) {
      seq += 1
      recorded += 1
      // Stored as given, not copied: this runs for every API request.
      record.seq = seq
      ring[next] = record
      next = (next + 1) % capacity
      if (size < capacity) size += 1
    },
    read(filter = {}, at = '/match') {
      let records = ordered()
      const pattern = filter.match === undefined ? undefined : compileQuery({ operationId: filter.operationId, match: filter.match }, at)
      if (pattern !== undefined)
        records = records.filter((r) =>
          pattern.operationOnly ? pattern.operationId === undefined || r.operationId === pattern.operationId : pattern.test(subjectOf(r)),
        )
      else if (filter.operationId !== undefined) records = records.filter((r) => r.operationId === filter.operationId)
      return page(records, filter)
    },
    async readSliced(filter = {}, at = '/match') {
      const pattern = filter.match === undefined ? undefined : compileQuery({ operationId: filter.operationId, match: filter.match }, at)
      if (pattern === undefined) return this.read(filter, at)
      const records: JournalRecord[] = []
      await inSlices(
        ordered(),
        (record) => pattern.matchSliced(subjectOf(record), { report: false, sliceMs: QUERY_SLICE_MS }),
        (record, result) => {
          if (result.matched) records.push(record)
        },
      )
      return page(records, filter)
    },
    async search(query, options) {
      const pattern = compileQuery(query, options.at ?? '/match')
      const records = ordered()
      const found: JournalRecord[] = []
      const missed: Array<{ record: JournalRecord; subject: RequestSubject; result: MatchResult }> = []
      await inSlices(
        records,
        (record) => pattern.matchSliced(subjectOf(record), { report: options.nearMisses > 0, sliceMs: QUERY_SLICE_MS }),
        (record, result) => {
          if (result.matched) found.push(record)
          else if (options.nearMisses > 0) missed.push({ record, subject: subjectOf(record), result })
        },
      )
      // Nearest first; between equals, the newer request (the one a test most likely meant).
      missed.sort((a, b) => a.result.distance - b.result.distance || b.record.seq - a.record.seq)
      const nearMisses = missed
        .slice(0, options.nearMisses)
        .map(({ record, subject, result }) => nearMissOf(record, result.distance, result.differences, subject))
      return { matches: found.map((r) => toEntry(r, false)), nearMisses, total: records.length, evicted: recorded - size }
    },
    begin(token) {
      inFlight.add(token)
      if (inFlight.size >= sweepAt) sweep()
    },
    finish(token) {
      if (!inFlight.delete(token)) return false
      ended(token)
      return true
    },
    get inFlight() {
      return inFlight.size
    },
    settled(timeoutMs) {
      const waiting = new Set([...inFlight].filter((token) => !notAwaited.has(token)))
      for (const token of waiting) {
        if (!abandoned(token)) continue
        giveUp(token)
        waiting.delete(token)
      }
      if (waiting.size === 0) return Promise.resolve()
      return new Promise((resolve) => {
        const unsubscribe: Array<() => void> = []
        const waiter: Waiter = {
          waiting,
          done: () => {
            clearTimeout(timer)
            waiters.delete(waiter)
            for (const stop of unsubscribe) stop()
            resolve()
          },
        }
        waiters.add(waiter)
        // A client that closes with no answer ends its exchange when it closes: its close is the event waited on.
        for (const token of waiting) {
          const stop = options.whenClosed?.(token, () => {
            if (inFlight.has(token) && abandoned(token)) giveUp(token)
          })
          if (stop !== undefined) unsubscribe.push(stop)
        }
        const timer = setTimeout(() => {
          // Still there after the wait: slow on purpose (a latency fault), or never to finish; either way not waited for again.
          for (const token of waiting) notAwaited.add(token)
          waiter.done()
        }, timeoutMs)
      })
    },
    clear() {
      const cleared = size
      ring = new Array<JournalRecord | undefined>(capacity)
      next = 0
      size = 0
      recorded = 0
      inFlight.clear()
      // Nothing in flight is waited for any more.
      for (const waiter of [...waiters]) waiter.done()
      sweepAt = SWEEP_MIN
      return cleared
    },
  }
}

/** A `settled` call waiting: the exchanges it still waits for, and what ends the wait. */
interface Waiter {
  waiting: Set<object>
  done: () => void
}

/** In-flight exchanges that make `begin` look for abandoned ones (and at least twice as many as remain after a look). */
const SWEEP_MIN = 1024

/**
 * The longest stretch of a journal query between two turns of the event loop, ms. Shorter than
 * pattern.ts's default slice (SLICE_MS, 8), as the answer rules' is (table.ts's MATCH_SLICE_MS): a query is a test's control call that may run for
 * seconds over a full journal, and an API request beside it crosses about two turns of the loop,
 * so it waits about two slices (measured with one client at a time: a small Get Items took 2.4 ms
 * beside an idle loop, 17.7 ms beside 8 ms slices, 5.3 ms beside 2 ms ones). A turn costs microseconds.
 */
const QUERY_SLICE_MS = 2

/**
 * Matches records in turn, in slices of at most QUERY_SLICE_MS with a turn of the event loop between
 * them: many small records add up as one large one would, and neither holds the loop.
 */
async function inSlices(
  records: readonly JournalRecord[],
  match: (record: JournalRecord) => MatchResult | Promise<MatchResult>,
  take: (record: JournalRecord, result: MatchResult) => void,
): Promise<void> {
  let started = performance.now()
  for (const record of records) {
    const pending = match(record)
    const result = pending instanceof Promise ? await pending : pending
    take(record, result)
    if (performance.now() - started >= QUERY_SLICE_MS) {
      await new Promise((resolve) => setImmediate(resolve))
      started = performance.now()
    }
  }
}

function toEntry(record: JournalRecord, bodies: boolean): JournalEntry {
  const entry: JournalEntry = {
    seq: record.seq,
    time: new Date(record.time).toISOString(),
    method: record.method,
    url: redactUrl(record.url),
    path: record.url.split('?')[0] ?? record.url,
    operationId: record.operationId,
    user: record.user,
    status: record.status,
    durationMs: Math.round(record.durationMs * 1000) / 1000,
    fault: record.fault,
    stub: record.stub ?? null,
    abandoned: record.abandoned === true,
    warnings: record.warnings,
  }
  if (bodies) {
    entry.request = { headers: redactHeaders(record.requestHeaders ?? {}), body: showRequestBody(record.requestBody) }
    entry.response = { contentType: record.responseType ?? null, body: showResponseBody(record.responseBody, record.responseType ?? null) }
  }
  return entry
}

function showRequestBody(body: RecordedBody | undefined): unknown {
  if (body === undefined) return null
  if (!body.kept) return body.note
  if (Buffer.isBuffer(body.value) || body.value instanceof Uint8Array) return `[${body.value.byteLength} bytes]`
  return redactValue(body.value)
}

function showResponseBody(body: RecordedBody | undefined, contentType: string | null): unknown {
  if (body === undefined) return null
  if (!body.kept) return body.note
  // An answer written as ready bytes is joined only now, when the journal is read.
  const value = body.value instanceof ReadyBytes ? bufferOf(body.value.body) : body.value
  const text = typeof value === 'string' ? value : Buffer.isBuffer(value) && isTextual(contentType) ? value.toString('utf8') : undefined
  if (text === undefined) return Buffer.isBuffer(value) ? `[${value.byteLength} bytes of ${contentType ?? 'unknown type'}]` : null
  if (text === '') return ''
  if (contentType !== null && /json/i.test(contentType)) {
    try {
      return redactValue(JSON.parse(text))
    } catch {
      // Not JSON after all: shown as the text it is.
    }
  }
  return text
}

function isTextual(contentType: string | null): boolean {
  return contentType !== null && /^(text\/|application\/([\w.+-]*json|xml|x-www-form-urlencoded))/i.test(contentType)
}
