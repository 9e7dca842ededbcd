import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { createJournal, type Journal, type JournalRecord, type RecordedBody } from '../../journal/journal.ts'
import { isControlUrl } from '../../policy/control-access.ts'
import { ReadyBytes } from '../../wire/ready-bytes.ts'
import { addPayloadTap } from '../../http/ready-answer.ts'

declare module 'fastify' {
  interface FastifyInstance {
    journal: Journal
  }
  interface FastifyReply {
    /** The payload onSend saw, for the journal; set only when bodies are kept. */
    journalPayload: RecordedBody | null
  }
}

/** Longest URL the journal keeps whole; longer ones (answered 414 anyway) are cut, so entries stay small. */
const MAX_RECORDED_URL = 4096

function requestBody(request: FastifyRequest, limit: number): RecordedBody {
  // What the client sent, also when a step before validation adapted the body.
  const sent = request.sentBody ?? request.body
  if (sent === undefined || sent === null) return { kept: true, value: null }
  // Content-Length is the body's size for free; measuring a parsed body would cost a serialisation.
  const declared = request.headers['content-length']
  if (declared === undefined) return { kept: false, note: '[body of unknown size (chunked), not kept]' }
  const length = Number(declared)
  if (length > limit) return { kept: false, note: `[${length} bytes, over the journal's ${limit}-byte limit]` }
  return { kept: true, value: sent }
}

/** The request's headers when their text fits the body limit; the mock accepts up to 1 MB of them. */
function requestHeaders(request: FastifyRequest, limit: number): FastifyRequest['headers'] {
  let size = 0
  for (const text of request.raw.rawHeaders) size += text.length
  return size > limit ? { 'x-journal-note': `[${size} characters of headers, over the journal's ${limit}-byte limit]` } : request.headers
}

function payloadBody(payload: unknown, limit: number): RecordedBody {
  if (payload === null || payload === undefined) return { kept: true, value: '' }
  if (Buffer.isBuffer(payload) || payload instanceof ReadyBytes) {
    const length = Buffer.isBuffer(payload) ? payload.byteLength : payload.length
    return length > limit ? { kept: false, note: `[${length} bytes, over the journal's ${limit}-byte limit]` } : { kept: true, value: payload }
  }
  if (typeof payload === 'string') {
    // UTF-8 takes 1 to 3 bytes per UTF-16 unit, so the length alone settles most cases without scanning the text.
    if (payload.length > limit) return { kept: false, note: `[${payload.length} characters, over the journal's ${limit}-byte limit]` }
    if (payload.length * 3 <= limit || Buffer.byteLength(payload) <= limit) return { kept: true, value: payload }
    return { kept: false, note: `[${Buffer.byteLength(payload)} bytes, over the journal's ${limit}-byte limit]` }
  }
  return { kept: false, note: '[streamed body, not kept]' }
}

/** Keeps the answer's body for the journal, by reference (a payload tap: answers written as ready bytes too). */
function keepJournalPayload(request: FastifyRequest, reply: FastifyReply, payload: unknown): void {
  const limit = request.server.journal.bodyLimit
  if (limit > 0 && !isControlUrl(request.url)) reply.journalPayload = payloadBody(payload, limit)
}

/**
 * Records one exchange, at its one ending: answered (onResponse, `status`), or ended with no
 * answer (`status` null, `endUnanswered`): cut by a rule, or `abandoned` by its client before the
 * mock answered. `journal.finish` answers true once per exchange begun, so an exchange is recorded
 * once whichever ending comes; one begun before a reset or clearRequests() belongs to the journal
 * that was emptied and is not recorded.
 */
function recordExchange(request: FastifyRequest, reply: FastifyReply, status: number | null, abandoned = false): void {
  const { journal, clock } = request.server
  if (!journal.finish(reply)) return
  const record: JournalRecord = {
    seq: 0,
    // The mock's clock, not the wall clock: a test that fixed or moved the time sees that time.
    time: clock.now(),
    method: request.method,
    url: request.url.length > MAX_RECORDED_URL ? `${request.url.slice(0, MAX_RECORDED_URL)}...[${request.url.length} characters]` : request.url,
    operationId: request.routeOptions.config?.operationId ?? null,
    // Set by the authentication step when the session was valid; a refused or absent token leaves it null.
    user: request.principal?.user.email ?? null,
    status,
    durationMs: reply.elapsedTime,
    // What the rules did, from the one record their adapter writes (src/mock/plugins/rules.ts).
    fault: request.ruleOutcome?.fault ?? null,
    stub: request.ruleOutcome?.answerRule ?? null,
    warnings: request.mockWarnings ?? [],
  }
  if (abandoned) record.abandoned = true
  if (journal.bodyLimit > 0) {
    record.requestHeaders = requestHeaders(request, journal.bodyLimit)
    record.requestBody = requestBody(request, journal.bodyLimit)
    record.responseType = status === null ? null : ((reply.getHeader('content-type') as string | undefined) ?? null)
    record.responseBody =
      status === null
        ? { kept: false, note: abandoned ? '[no answer: the client closed the connection first]' : '[no answer: the connection was cut]' }
        : (reply.journalPayload ?? { kept: true, value: '' })
  }
  journal.add(record)
}

/**
 * Ends an exchange with no answer: its connection closed by a rule (`cut`: a fault's drop or
 * commitThenDrop, src/mock/plugins/rules.ts), or by its client while a rule held it (`abandoned`,
 * src/mock/plugins/holds.ts). Fastify runs no onResponse for an answer it never finished writing
 * (the reply hijacked, or its connection destroyed before a byte of it went out), so this is the
 * exchange's one journal entry, at once rather than when the journal next looks for abandoned ones.
 */
export function endUnanswered(request: FastifyRequest, reply: FastifyReply, how: 'cut' | 'abandoned'): void {
  recordExchange(request, reply, null, how === 'abandoned')
}

/**
 * Marks an API exchange in flight, so `assertRequested()` can wait for an answer the client already
 * holds to be recorded. Called by the mock's arrival hook (app.ts), which every request passes
 * anyway: a hook of its own and a `close` listener per request cost more than recording it does.
 */
export function markInFlight(request: FastifyRequest, reply: FastifyReply): void {
  if (!isControlUrl(request.url)) request.server.journal.begin(reply)
}

/** Closed before its answer was written: no onResponse follows (a client that gave up, a cut connection). */
const abandoned = (token: object): boolean => {
  const raw = (token as FastifyReply).raw
  return raw.destroyed && !raw.writableFinished
}

/** Its connection's close, for a `settled` wait: a listener added only while an assertion waits on the exchange. */
const whenClosed = (token: object, then: () => void): (() => void) => {
  const raw = (token as FastifyReply).raw
  raw.once('close', then)
  return () => raw.off('close', then)
}

/** An exchange the journal found abandoned, recorded as such (no status). */
const recordAbandoned = (token: object): void => {
  const reply = token as FastifyReply
  recordExchange(reply.request, reply, null, true)
}

/**
 * The request journal (`GET /__mock/requests`): every API request's method, URL, operation,
 * status and duration, recorded in `onResponse` after the answer has gone out, so it adds
 * nothing to the client's wait (exchanges are marked in flight on arrival, `markInFlight`).
 * Bodies are kept by reference (no copies) when `bodyLimit` > 0; control-plane calls are skipped.
 * Register before the routes.
 */
export function registerJournal(app: FastifyInstance, options: { capacity: number; bodyLimit: number }): void {
  const journal = createJournal({ ...options, abandoned, recordAbandoned, whenClosed })
  app.decorate('journal', journal)
  app.decorateReply('journalPayload', null)
  if (journal.bodyLimit > 0) addPayloadTap(app, keepJournalPayload)
  app.addHook('onResponse', (request, reply, done) => {
    if (!isControlUrl(request.url)) recordExchange(request, reply, reply.statusCode)
    else journal.finish(reply)
    done()
  })
}
