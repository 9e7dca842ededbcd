import type { FastifyInstance } from 'fastify'
import { ProblemError } from '../errors.ts'
import { describeJsonSyntaxError, parseJsonText } from '../wire/json-syntax.ts'
import { charsetHint, utf8Text } from './body-checks.ts'
import { isUtf8 } from 'node:buffer'
import { parseArraysInSlices, slicing, yieldTurn } from './json-slices.ts'

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
 * bytes or more) is decoded a slice at a time and, when it is a body of rows, parsed a slice of rows
 * at a time, so the mock keeps answering beside it (json-slices.ts); the value and every refusal are
 * the same.
 */
export function registerJsonBody(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json')
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const contentType = request.headers['content-type']
    const bytes = body as Buffer
    if (bytes.length === 0) {
      done(new ProblemError('BAD_JSON', 'The body is empty, but Content-Type says application/json: send a JSON body, or no Content-Type.'), undefined)
      return
    }
    const finish = (parsed: { value: unknown } | { problem: ProblemError }) =>
      'problem' in parsed ? done(parsed.problem, undefined) : done(null, parsed.value)
    if (bytes.length < slicing.bodyChars) {
      const decoded = utf8Text(bytes, contentType)
      finish('problem' in decoded ? decoded : parseWhole(decoded.text, contentType))
      return
    }
    parseInSlices(bytes, contentType).then(finish, (error: unknown) => done(error as Error, undefined))
  })
}

/**
 * A large body read as `utf8Text` and `parseWhole` read it, with turns of the event loop between its
 * steps: decoded a slice of bytes at a time, then parsed a slice of elements at a time where it has big
 * arrays (json-slices.ts), and handed on after one more turn, so the request check and the handler
 * that follow do not add to the parse's last slice. What cannot be sliced is not: a body that is not
 * UTF-8 is decoded whole again to say where, and any other JSON text is parsed whole (`JSON.parse`,
 * one call for a 60 MB string).
 */
async function parseInSlices(bytes: Buffer, contentType: string | undefined): Promise<{ value: unknown } | { problem: ProblemError }> {
  const text = await utf8InSlices(bytes)
  if (text === undefined) {
    const decoded = utf8Text(bytes, contentType)
    if ('problem' in decoded) return decoded
    return parseWhole(decoded.text, contentType)
  }
  let parsed: { value: unknown } | { problem: ProblemError }
  try {
    const value = await parseArraysInSlices(text)
    // Not a body with big arrays the slices understand (or not JSON at all): parsed whole, as any other.
    parsed = value === undefined ? parseWhole(text, contentType) : { value }
  } catch {
    parsed = parseWhole(text, contentType)
  }
  await yieldTurn()
  return parsed
}

/**
 * The bytes as text, decoded a slice at a time (each cut before a byte that starts a character, so
 * no character is cut in two and each slice is UTF-8 exactly when its part of the body is), with a
 * turn of the event loop between slices; undefined when a slice is not UTF-8.
 */
async function utf8InSlices(bytes: Buffer): Promise<string | undefined> {
  const pieces: string[] = []
  for (let at = 0; at < bytes.length; ) {
    let end = Math.min(bytes.length, at + slicing.sliceChars)
    // Back to a byte that starts a character: a character has at most 3 bytes after its first.
    for (let back = 0; end < bytes.length && back < 3 && ((bytes[end] as number) & 0xc0) === 0x80; back++) end--
    const slice = bytes.subarray(at, end)
    if (!isUtf8(slice)) return undefined
    pieces.push(slice.toString('utf8'))
    at = end
    await yieldTurn()
  }
  return pieces.join('')
}
