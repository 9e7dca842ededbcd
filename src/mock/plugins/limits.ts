import type { FastifyInstance } from 'fastify'
import { ProblemError } from '../../errors.ts'

/**
 * The environment's URL limit (the description, Limits: 2048 characters). Counted on the request target
 * (path and query as sent), before anything else runs, so an over-long URL costs nothing.
 * The 60 MB body limit is Fastify's `bodyLimit`, which refuses by Content-Length before reading.
 */
export function registerLimits(app: FastifyInstance, maxUrlLength: number): void {
  // Callback style, not async: an async hook costs every request a promise and a microtask turn.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.url.length <= maxUrlLength) return done()
    done(new ProblemError('URI_TOO_LONG', `The URL has ${request.url.length} characters; the limit is ${maxUrlLength}.`, { limit: maxUrlLength }))
  })
}
