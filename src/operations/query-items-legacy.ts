import type { FastifyReply, FastifyRequest } from 'fastify'
import { parseQueryString } from '../store/query-string.ts'
import { answerQuery } from './query-items.ts'

/**
 * The older Get Items (below 3.0): GET without a body, the query options as URL parameters.
 * They are rejoined into the query text so both forms share one parser and one set of errors.
 */
export async function queryItemsLegacy(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const params = request.query as Record<string, string | number>
  const text = Object.entries(params)
    .map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`)
    .join('&')
  return answerQuery(request, reply, parseQueryString(text))
}
