import type { FastifyReply } from 'fastify'
import type { SaveCommand } from '../store/types.ts'
import type { OperationHandler } from '../wire/operations.ts'
import { applicationOf, epochOf, requireWriter } from '../http/context.ts'
import { warnOrRefuse } from '../http/warn.ts'
import { slicing, yieldTurn } from '../http/json-slices.ts'
import { resultObject } from './results.ts'
import { rowLinkUrl } from './row-link-url.ts'
import { convertSaveValues } from './value-forms.ts'

/**
 * Save (create or update) masters with their details, all or nothing. The store checks the
 * whole request before it changes anything; a business failure answers 200 with the flag false.
 */
export const saveItems: OperationHandler<'saveItems'> = async (request, reply) => {
  const application = applicationOf(request)
  const { user } = requireWriter(request)
  const body = request.body
  const empty: string[] = []
  for (const master of body.Rows) for (const group of master.Details) if (group.Rows.length === 0) empty.push(group.RelationKey)
  if (empty.length > 0) warnOrRefuse(request, 'EMPTY_DETAIL_GROUP', `Detail group${empty.length > 1 ? 's' : ''} ${empty.join(', ')} had no rows.`)
  const sent: SaveCommand = {
    // Received before a reset or fixture load, it writes nothing after it (503 DATA_REPLACED).
    epoch: epochOf(request),
    applicationId: application.id,
    userId: user.id,
    masters: body.Rows.map((master) => ({
      row: master.Row,
      details: master.Details.map((group) => ({ relationKey: group.RelationKey, rows: group.Rows })),
    })),
  }
  const command = convertSaveValues(request, application, sent)
  // A big save (as many masters as the request check slices) is planned in slices too, yielding between them.
  const store = request.server.store
  const outcome = command.masters.length >= slicing.checkRows ? await store.saveInSlices(command, yieldTurn, slicing.planMs) : store.save(command)
  const profile = request.server.profile
  if (!outcome.ok) {
    // Per-row save mode: the rows without problems were written; the counters and keys say which.
    const written = outcome.written
    const counters = { created: written?.created ?? 0, updated: written?.updated ?? 0, deleted: 0 }
    const link = written?.firstMasterId == null ? null : rowLinkUrl(request, application.id, [written.firstMasterId])
    const answer = resultObject(profile, application, { ok: false, returnStates: outcome.returnStates, counters, masterRowLink: link })
    return sendWithKeys(reply, answer, written?.primaryKeys.text() ?? '{}')
  }
  const { result } = outcome
  const link = result.firstMasterId === null ? null : rowLinkUrl(request, application.id, [result.firstMasterId])
  const answer = resultObject(profile, application, { ok: true, returnStates: [], counters: { created: result.created, updated: result.updated, deleted: 0 }, masterRowLink: link })
  return sendWithKeys(reply, answer, result.primaryKeys.text())
}

/**
 * The result object with `ReturnData.PrimaryKeyData` as its last member, written as the text the
 * store kept (src/store/primary-keys.ts): the same bytes `JSON.stringify` writes for the object,
 * without building an object per master and serializing it again. onSend hooks see the text, as
 * they see every serialized answer.
 */
function sendWithKeys(reply: FastifyReply, answer: Record<string, unknown>, primaryKeyData: string): FastifyReply {
  const members = JSON.stringify(answer)
  return reply.type('application/json; charset=utf-8').send(`${members.slice(0, -1)},"ReturnData":{"PrimaryKeyData":${primaryKeyData}}}`)
}
