import type { FastifyInstance } from 'fastify'

/**
 * Sign-in posts `application/x-www-form-urlencoded`. URLSearchParams parses it (the platform's
 * own parser); a repeated field keeps its last value, as most OAuth servers do.
 */
export function registerFormBody(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)))
  })
}
