import type { FastifyInstance } from 'fastify'
import { ProblemError } from '../../errors.ts'

const FORM = 'application/x-www-form-urlencoded'

/**
 * Sign-in posts `application/x-www-form-urlencoded`. URLSearchParams parses it (the platform's
 * own parser); a repeated field keeps its last value, as most OAuth servers do.
 *
 * Every other operation with a body takes JSON (the description: "`Content-Type` is
 * `application/json` unless stated"), and its document lists JSON only, so a form sent there is
 * refused as any other unreadable type is, rather than read field by field into a body the
 * document never promised to accept.
 */
export function registerFormBody(app: FastifyInstance): void {
  app.addContentTypeParser(FORM, { parseAs: 'string' }, (request, body, done) => {
    const wanted = request.routeOptions.config?.mediaType
    if (wanted !== undefined && wanted !== FORM) {
      return done(new ProblemError('BAD_BODY', `A body of type ${JSON.stringify(FORM)} is not read here.`, { hint: `Send the body with Content-Type: ${wanted}.` }))
    }
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })
}
