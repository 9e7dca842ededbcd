import type { FastifyRequest } from 'fastify'
import { relationKeyOf } from '../store/guid.ts'
import type { OperationHandler } from '../wire/operations.ts'
import { ProblemError } from '../errors.ts'
import { warnOrRefuse } from '../http/warn.ts'
import { applicationOf, storeProblem } from '../http/context.ts'
import { toAttachmentRecord } from './attachment-record.ts'
import { parseAttachmentFilter } from './attachment-filter.ts'
import { ATTACHMENT_FILTER_PATTERN } from '../../spec/patterns.ts'

const FILTER_FORM = new RegExp(ATTACHMENT_FILTER_PATTERN, 'u')

/**
 * Before validation: a `$filter` the document's pattern does not allow is refused with the reason
 * the filter reader gives (BAD_FILTER), or, for a filter it could read, because the description
 * shows only `ParentId eq <row Id>` optionally followed by ` and FolderId eq <folder Id>`.
 */
export function prepareListAttachments(request: FastifyRequest): void {
  const filter = (request.query as Record<string, unknown> | null)?.$filter
  if (typeof filter !== 'string' || FILTER_FORM.test(filter)) return
  const scope = parseAttachmentFilter(filter)
  throw new ProblemError(
    'BAD_FILTER',
    typeof scope === 'string'
      ? scope
      : '$filter: the attachments list takes "ParentId eq <row Id>", optionally followed by " and FolderId eq <folder Id>" (conditions in that order, each and the whole in at most one pair of parentheses)',
  )
}

/** Files and folders of one row, at its top level or inside one folder. */
export const listAttachments: OperationHandler<'listAttachments'> = async (request, reply) => {
  const application = applicationOf(request)
  const query = request.query
  const scope = parseAttachmentFilter(query.$filter)
  if (typeof scope === 'string') throw new ProblemError('BAD_FILTER', scope)
  if (query.relationKey !== undefined && query.relationKey.trim() === '') {
    warnOrRefuse(request, 'EMPTY_RELATION_KEY', "relationKey was sent empty; the master row's attachments were listed.")
  }
  const relationKey = query.relationKey === undefined || query.relationKey.trim() === '' ? null : relationKeyOf(query.relationKey.trim())
  const listed = request.server.store.listAttachments(application.id, relationKey, scope.parentId, scope.folderId)
  if (!Array.isArray(listed)) throw storeProblem(listed)
  const { timeZone } = request.server.store.organization()
  return reply.send(listed.map((attachment) => toAttachmentRecord(attachment, timeZone)))
}
