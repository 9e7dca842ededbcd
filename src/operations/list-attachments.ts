import type { FastifyReply, FastifyRequest } from 'fastify'
import { ProblemError } from '../errors.ts'
import { applicationOf, storeProblem } from './context.ts'
import { toAttachmentRecord } from './attachment-record.ts'

// The seed's only form: `ParentId eq <row id>`, optionally `and FolderId eq <folder id>`.
const FILTER = /^\s*ParentId\s+eq\s+'?(\d+)'?\s*(?:\s+and\s+FolderId\s+eq\s+(?:'?(\d+)'?|null)\s*)?$/i

/** Files and folders of one row, at its top level or inside one folder. */
export async function listAttachments(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const application = applicationOf(request)
  const query = request.query as { $filter: string; relationKey?: string }
  const match = FILTER.exec(query.$filter)
  if (match === null) {
    throw new ProblemError('BAD_FILTER', `$filter must be "ParentId eq <row id>" optionally followed by "and FolderId eq <folder id>", got "${query.$filter}".`)
  }
  const relationKey = query.relationKey === undefined || query.relationKey === '' ? null : query.relationKey
  const folderId = match[2] === undefined ? null : Number(match[2])
  const listed = request.server.store.listAttachments(application.id, relationKey, Number(match[1]), folderId)
  if (!Array.isArray(listed)) throw storeProblem(listed)
  return reply.send(listed.map(toAttachmentRecord))
}
