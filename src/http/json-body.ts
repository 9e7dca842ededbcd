import type { FastifyInstance } from 'fastify'
import { ProblemError } from '../errors.ts'
import { describeJsonSyntaxError, parseJsonText } from '../wire/json-syntax.ts'
import { charsetHint, utf8Text } from './body-checks.ts'
import { parseRowsInSlices, slicing } from './json-slices.ts'

/**
 * The body parsed whole, or the BAD_JSON problem that says where it stops being JSON, in the
 * project's words on every Node line (src/wire/json-syntax.ts), with a hint when the request named
 * a charset other than UTF-8 (a UTF-16 body reads as text with NUL characters).
 */
function parseWhole(text: string, contentType: string | undefined): { value: unknown } | { problem: ProblemError } {
  const parsed = parseJsonText(text)
  if ('value' in parsed) return parsed
  const { error } = parsed
  return { problem: new ProblemError('BAD_JSON', `The body is not valid JSON: ${describeJsonSyntaxError(error)}.`, { position: error.position, ...charsetHint(contentType) }) }
}

/**
 * JSON bodies, parsed as Fastify's own parser does (the text whole, then `JSON.parse`; members
 * named `__proto__` stay own members), but a body that is not JSON is refused saying where it
 * stops being JSON: the position, line and column Fastify's parser drops. The bytes are read as
 * UTF-8, whatever a `charset` parameter says (RFC 8259, section 11); bytes that are not UTF-8 are
 * refused saying where (body-checks.ts), not read as U+FFFD. A large body of rows
 * (`slicing.bodyChars` or more) is parsed a slice of rows at a time, so the mock keeps answering
 * beside it (json-slices.ts); the value and every refusal are the same.
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
    const decoded = utf8Text(bytes, contentType)
    if ('problem' in decoded) {
      done(decoded.problem, undefined)
      return
    }
    const { text } = decoded
    const finish = (parsed: { value: unknown } | { problem: ProblemError }) => ('problem' in parsed ? done(parsed.problem, undefined) : done(null, parsed.value))
    if (text.length < slicing.bodyChars) {
      finish(parseWhole(text, contentType))
      return
    }
    // Not a body of rows the slices understand (or not JSON at all): parsed whole, as any other.
    parseRowsInSlices(text).then(
      (value) => finish(value === undefined ? parseWhole(text, contentType) : { value }),
      () => finish(parseWhole(text, contentType)),
    )
  })
}
