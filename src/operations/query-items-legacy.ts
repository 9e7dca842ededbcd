import type { OperationHandler } from '../wire/operations.ts'
import { parseQueryString } from '../store/query-string.ts'
import { answerQuery } from './query-items.ts'

/**
 * The older Get Items (below 3.0): GET without a body, the query options as URL parameters.
 * They are rejoined into the query text so both forms share one parser and one set of errors.
 */
export const queryItemsLegacy: OperationHandler<'queryItemsLegacy'> = async (request, reply) => {
  // Every parameter sent, the ones the document lists and any other (reported as a warning).
  const text = Object.entries(request.query)
    .map(([key, value]) => `${key}=${encodeURIComponent(String(value))}`)
    .join('&')
  return answerQuery(request, reply, parseQueryString(text))
}
