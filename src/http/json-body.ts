import { isUtf8 } from 'node:buffer'
import type { Readable } from 'node:stream'
import { errorCodes, type FastifyInstance, type FastifyRequest } from 'fastify'
import { ProblemError } from '../errors.ts'
import { describeJsonSyntaxError, parseJsonText } from '../wire/json-syntax.ts'
import { charsetHint, utf8Text } from './body-checks.ts'
import { isControlUrl } from '../policy/control-access.ts'
import { API_JSON_LIMITS, CONTROL_JSON_LIMITS, jsonBeyondLimits, type JsonLimits } from './json-limits.ts'
import { parseArraysInSlices, runAtOnce, runInSlices, slicing, yieldTurn } from './json-slices.ts'

/**
 * The body parsed whole, or the BAD_JSON problem that says where it stops being JSON, in the
 * project's words on every Node line (src/wire/json-syntax.ts), with a hint when the request named
 * a charset other than UTF-8 (a UTF-16 body reads as text with NUL characters).
 */
function parseWhole(text: string, contentType: string | undefined): { value: unknown } | { problem: ProblemError } {
  const parsed = parseJsonText(text)
  if ('value' in parsed) return parsed
  const { error } = parsed
  return {
    problem: new ProblemError('BAD_JSON', `The body is not valid JSON: ${describeJsonSyntaxError(error)}.`, {
      position: error.position,
      ...charsetHint(contentType),
    }),
  }
}

/**
 * JSON bodies, parsed as Fastify's own parser does (the text whole, then `JSON.parse`; members
 * named `__proto__` stay own members), but a body that is not JSON is refused saying where it
 * stops being JSON: the position, line and column Fastify's parser drops. The bytes are read as
 * UTF-8, whatever a `charset` parameter says (RFC 8259, section 11); bytes that are not UTF-8 are
 * refused saying where (body-checks.ts), not read as U+FFFD. A large body (`slicing.bodyChars`
 * bytes or more) is decoded as its chunks arrive (readBody) and, when it has big arrays or big
 * texts, parsed a slice at a time, so the mock keeps answering beside it (json-slices.ts); the
 * value and every refusal are the same. Before it is parsed, a body is held to the nesting and
 * members limits (json-limits.ts: the API's own for its operations, looser ones for the control
 * plane), scanned in slices when large.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', (request, payload, done) => {
    readBody(request, payload, (error, body) => {
      if (error !== null) return done(error, undefined)
      const limits = isControlUrl(request.url) ? CONTROL_JSON_LIMITS : API_JSON_LIMITS
      const finish = (parsed: { value: unknown } | { problem: ProblemError }) =>
        'problem' in parsed ? done(parsed.problem, undefined) : done(null, parsed.value)
      const contentType = request.headers['content-type']
      if ('pieces' in body) {
        parseInSlices(body.pieces, contentType, limits).then(finish, (failure: unknown) => done(failure as Error, undefined))
        return
      }
      if (body.bytes.length === 0) {
        done(new ProblemError('BAD_JSON', 'The body is empty, but Content-Type says application/json: send a JSON body, or no Content-Type.'), undefined)
        return
      }
      const decoded = utf8Text(body.bytes, contentType)
      if ('problem' in decoded) return finish(decoded)
      // A small body: scanned at once (at most `slicing.bodyChars` characters, well under a millisecond).
      const beyond = runAtOnce(jsonBeyondLimits(decoded.text, limits))
      finish(beyond === undefined ? parseWhole(decoded.text, contentType) : { problem: beyond })
    })
  })
}

/**
 * A body as `readBody` hands it on: its bytes (a small body, or one that is not UTF-8, for the
 * check that says where), or a large body's text in the pieces it was decoded in.
 */
type Body = { bytes: Buffer } | { pieces: string[] }

/** What `readBody` hands on with an error: nothing to read. */
const NO_BODY: Body = { bytes: Buffer.alloc(0) }

/**
 * Reads a JSON body with Fastify's own rules (its `parseAs: 'buffer'` reading, content-type-parser.js:
 * the route's body limit by Content-Length before reading and by the bytes received, a body shorter
 * or longer than its Content-Length refused, a broken stream a 400), but without joining a large
 * body's chunks: from `slicing.bodyChars` bytes on, each chunk is checked as UTF-8 and decoded as
 * it arrives (cut before a character's first byte, the rest carried to the next chunk), so that
 * no step copies the whole body twice in one turn (a 59 MB copy alone holds the loop 30 to 50 ms
 * on two cores). The chunks are kept until the end only to say where a body stops being UTF-8.
 */
export function readBody(request: FastifyRequest, payload: Readable, done: (error: Error | null, body: Body) => void): void {
  const limit = request.routeOptions.bodyLimit
  const declared = Number(request.headers['content-length'])
  if (declared > limit) return void done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), NO_BODY)
  const chunks: Buffer[] = []
  let received = 0
  // A large body's text so far, its bytes not decoded yet (whole chunks, and the bytes of a character
  // cut at the last piece's end), and whether all was UTF-8.
  let pieces: string[] | undefined
  let pending: Buffer[] = []
  let pendingBytes = 0
  let utf8 = true
  // Decoded a slice of bytes at a time, not a chunk at a time: a piece of 64 KB would be copied by
  // every scavenge of the young generation while the body arrives, one of a slice goes to V8's
  // large-object space at once.
  const decode = (last: boolean) => {
    const bytes = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending, pendingBytes)
    let end = bytes.length
    // Back to a byte that starts a character: a character has at most 3 bytes after its first.
    for (let back = 0; !last && end > 0 && back < 3 && ((bytes[end - 1] as number) & 0xc0) === 0x80; back++) end--
    if (!last && end > 0 && (bytes[end - 1] as number) >= 0xc0) end--
    pending = end < bytes.length ? [bytes.subarray(end)] : []
    pendingBytes = bytes.length - end
    if (!isUtf8(bytes.subarray(0, end))) utf8 = false
    else (pieces as string[]).push(bytes.toString('utf8', 0, end))
  }
  const take = (chunk: Buffer) => {
    pending.push(chunk)
    pendingBytes += chunk.length
    if (pendingBytes >= slicing.sliceChars) decode(false)
  }
  const stop = () => {
    payload.removeListener('data', onData)
    payload.removeListener('end', onEnd)
    payload.removeListener('error', onEnd)
  }
  const onData = (data: Buffer | string) => {
    // A preParsing stream may hand on strings.
    const chunk = typeof data === 'string' ? Buffer.from(data) : data
    received += chunk.length
    const { receivedEncodedLength = 0 } = payload as Readable & { receivedEncodedLength?: number }
    if (received > limit || receivedEncodedLength > limit) {
      stop()
      return void done(new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE(), NO_BODY)
    }
    chunks.push(chunk)
    if (pieces !== undefined) {
      if (utf8) take(chunk)
    } else if (received >= slicing.bodyChars) {
      pieces = []
      for (const earlier of chunks) if (utf8) take(earlier)
    }
  }
  const onEnd = (error?: Error & { statusCode?: number }) => {
    stop()
    if (error !== undefined && error !== null) {
      if (!(typeof error.statusCode === 'number' && error.statusCode >= 400)) error.statusCode = 400
      return void done(error, NO_BODY)
    }
    const { receivedEncodedLength } = payload as Readable & { receivedEncodedLength?: number }
    if (!Number.isNaN(declared) && (receivedEncodedLength || received) !== declared)
      return void done(new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH(), NO_BODY)
    if (pieces !== undefined && utf8 && pendingBytes > 0) decode(true)
    // Always a copy: the parser never keeps a view over the socket's read buffer.
    if (pieces === undefined || !utf8) return void done(null, { bytes: Buffer.concat(chunks, received) })
    done(null, { pieces })
  }
  payload.on('data', onData)
  payload.on('end', onEnd)
  payload.on('error', onEnd)
  payload.resume()
}

/**
 * A large body's text, read as `parseWhole` reads it, with turns of the event loop between its
 * steps: joined into one text (the one copy of the whole body), held to the nesting and members
 * limits (scanned in slices), then parsed a slice at a time where
 * it has big arrays or big texts (json-slices.ts), and handed on after one more turn, so the request
 * check and the handler that follow do not add to the parse's last slice. What cannot be sliced is
 * not: any other JSON text is parsed whole (`JSON.parse`, one call for a 60 MB text).
 */
async function parseInSlices(pieces: string[], contentType: string | undefined, limits: JsonLimits): Promise<{ value: unknown } | { problem: ProblemError }> {
  await yieldTurn()
  const text = pieces.join('')
  pieces.length = 0
  await yieldTurn()
  const beyond = await runInSlices(jsonBeyondLimits(text, limits))
  if (beyond !== undefined) return { problem: beyond }
  let parsed: { value: unknown } | { problem: ProblemError }
  try {
    const value = await parseArraysInSlices(text)
    // Not a body with big parts the slices understand (or not JSON at all): parsed whole, as any other.
    parsed = value === undefined ? parseWhole(text, contentType) : { value }
  } catch {
    parsed = parseWhole(text, contentType)
  }
  await yieldTurn()
  return parsed
}
