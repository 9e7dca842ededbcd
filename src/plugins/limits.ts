import type { FastifyInstance } from 'fastify'
import { ProblemError } from '../errors.ts'

/**
 * The environment's URL limit (the description, Limits: 2048 characters). Counted on the request target
 * (path and query as sent), before anything else runs, so an over-long URL costs nothing.
 * The 60 MB body limit is Fastify's `bodyLimit`, which refuses by Content-Length before reading.
 */
export function registerLimits(app: FastifyInstance, maxUrlLength: number): void {
  app.addHook('onRequest', async (request) => {
    if (request.url.length > maxUrlLength) {
      throw new ProblemError('URI_TOO_LONG', `The URL has ${request.url.length} characters; the limit is ${maxUrlLength}.`, { limit: maxUrlLength })
    }
  })
}
