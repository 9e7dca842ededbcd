import type { OperationHandler } from '../wire/operations.ts'
import { ProblemError } from '../errors.ts'
import { warnOrRefuse } from '../http/warn.ts'
import { applicationOf } from '../http/context.ts'
import { rowLinkUrl } from './row-link-url.ts'

/** A URL that opens master rows; here it opens them on the mock itself (see open-row-link.ts). */
export const generateRowLink: OperationHandler<'generateRowLink'> = async (request, reply) => {
  const application = applicationOf(request)
  const body = request.body
  if (!('relationKey' in body)) warnOrRefuse(request, 'ROW_LINK_WITHOUT_RELATION_KEY', 'relationKey was left out; it was read as null.')
  const ids = Array.isArray(body.values) ? body.values : [body.values]
  const missing = ids.filter((id) => request.server.store.getRow(application.id, null, id) === null)
  if (missing.length > 0) throw new ProblemError('UNKNOWN_ROW', `No master row ${missing.join(', ')} in application ${application.id}.`)
  return reply.type('application/json; charset=utf-8').send(JSON.stringify(rowLinkUrl(request, application.id, ids)))
}
