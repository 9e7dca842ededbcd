import type { FastifyInstance } from 'fastify'
import { nonUtf8FormProblem, utf8Text, wrongTypeProblem } from '../../http/body-checks.ts'

const FORM = 'application/x-www-form-urlencoded'

/**
 * Sign-in posts `application/x-www-form-urlencoded`. URLSearchParams parses it (the platform's
 * own parser); a repeated field keeps its last value, as most OAuth servers do. The form is read
 * as UTF-8, whatever a `charset` parameter says (the URL standard's form encoding, and OAuth 2.0's,
 * RFC 6749 appendix B): bytes or percent-escapes that are not UTF-8 are refused naming the field,
 * not read as U+FFFD (src/http/body-checks.ts).
 *
 * Every other operation with a body takes JSON (the description: "`Content-Type` is
 * `application/json` unless stated"), and its document lists JSON only, so a form sent there is
 * refused as any other unreadable type is, rather than read field by field into a body the
 * document never promised to accept.
 *
 * Fastify also reads `text/plain` bodies as a string by default; no operation takes text, so that
 * parser goes: a text body is a type not read here, told the type to send, like any other (it was
 * handed to the schema as a string and refused as "/body must be object").
 */
export function registerFormBody(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain')
  app.addContentTypeParser(FORM, { parseAs: 'buffer' }, (request, body, done) => {
    const wanted = request.routeOptions.config?.mediaType
    if (wanted !== undefined && wanted !== FORM) return done(wrongTypeProblem(request))
    const contentType = request.headers['content-type']
    const decoded = utf8Text(body as Buffer, contentType)
    if ('problem' in decoded) return done(decoded.problem)
    const problem = nonUtf8FormProblem(decoded.text, contentType)
    if (problem !== undefined) return done(problem)
    done(null, Object.fromEntries(new URLSearchParams(decoded.text)))
  })
}
