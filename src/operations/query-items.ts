import type { FastifyReply, FastifyRequest } from 'fastify'
import type { OperationHandler } from '../wire/operations.ts'
import { ProblemError } from '../errors.ts'
import { hiddenFieldsFor } from '../http/auth/principal.ts'
import { parseQueryString, parseQueryStringInSlices, queryReading } from '../wire/query-string.ts'
import { slicing, yieldTurn } from '../http/json-slices.ts'
import { applicationOf, principalOf, storeProblem } from '../http/context.ts'
import { warnOrRefuse } from '../http/warn.ts'
import { queryWarnings } from '../policy/query-warnings.ts'
import { sendReady } from '../http/ready-answer.ts'

/**
 * Get Items and Get Items Count share one path: the `query` text decides. The page is sent as
 * the JSON text the store keeps ready, so rows that did not change are not serialized again.
 */
export const queryItems: OperationHandler<'queryItems'> = async (request, reply) => {
  const text = request.body.query
  if (text.length <= queryReading.pieceChars) return answerQuery(request, reply, parseQueryString(text))
  // A long text (the body may be 60 MB of it) is read in slices, with a turn for other clients between them,
  // and so is a long $filter in it, compiled for the table it reads before the query runs.
  const parsed = await parseQueryStringInSlices(text, yieldTurn, slicing.planMs)
  if (!('error' in parsed) && parsed.filter !== null && parsed.filter.length > queryReading.pieceChars) {
    await request.server.store.prepareFilter(applicationOf(request).id, parsed.relationKey, parsed.filter, yieldTurn, slicing.planMs)
  }
  return answerQuery(request, reply, parsed)
}

/** Shared by the POST form and the older GET form. */
export function answerQuery(request: FastifyRequest, reply: FastifyReply, parsed: ReturnType<typeof parseQueryString>): FastifyReply {
  if ('error' in parsed) throw storeProblem(parsed)
  for (const warning of queryWarnings(parsed)) warnOrRefuse(request, warning.code, warning.message)
  const application = applicationOf(request)
  const hidden = hiddenFieldsFor(principalOf(request).user, application.id)
  const query = parsed
  const relationKey = query.relationKey
  if (relationKey !== null && !request.server.profile.detailsInQueries) {
    throw new ProblemError('BAD_QUERY', `Release ${request.server.profile.version} has no detail rows in queries; remove relationKey.`)
  }
  const store = request.server.store
  if (query.inlineCount) {
    const counted = store.countRows(application.id, relationKey, query, hidden)
    if ('error' in counted) throw storeProblem(counted)
    return reply.send({ Timestamp: store.currentRowVersion(), Items: [{ _FieldCount_: counted.count }] })
  }
  const page = store.queryRows(application.id, relationKey, query, hidden)
  if ('error' in page) throw storeProblem(page)
  return sendReady(request, reply, page)
}
