import type { FastifyReply, FastifyRequest } from 'fastify'
import type { SaveCommand } from '../store/model/types.ts'
import type { OperationHandler } from '../wire/operations.ts'
import { applicationOf, epochOf, requireWriter } from '../http/context.ts'
import { warnOrRefuse } from '../http/warn.ts'
import { runAtOnce, runInSlices, slicing, yieldTurn } from '../http/json-slices.ts'
import { resultObject, sendResultInSlices } from './results.ts'
import { rowLinkUrl } from './row-link-url.ts'
import { convertingSaveValues } from './value-forms.ts'

/** Masters read into the store's command between two chances for a slice to end. */
const READ_PER_PAUSE = 1024

/**
 * Save (create or update) masters with their details, all or nothing. The store checks the
 * whole request before it changes anything; a business failure answers 200 with the flag false.
 * A big save (as many masters as the request check slices) is read, planned, written and answered
 * in slices, with turns for other clients between them; it is seen whole or not at all.
 */
export const saveItems: OperationHandler<'saveItems'> = async (request, reply) => {
  const application = applicationOf(request)
  const { user } = requireWriter(request)
  const body = request.body
  const big = body.Rows.length >= slicing.checkRows
  const reading = commandOf(request, application.id, user.id)
  const command = big ? await runInSlices(reading) : runAtOnce(reading)
  const store = request.server.store
  const outcome = big ? await store.saveInSlices(command, yieldTurn, slicing.planMs) : store.save(command)
  const profile = request.server.profile
  if (!outcome.ok) {
    // Per-row save mode: the rows without problems were written; the counters and keys say which.
    const written = outcome.written
    const counters = { created: written?.created ?? 0, updated: written?.updated ?? 0, deleted: 0 }
    const link = written?.firstMasterId == null ? null : rowLinkUrl(request, application.id, [written.firstMasterId])
    const refused = { ok: false, returnStates: outcome.returnStates, counters, masterRowLink: link }
    if (big) return sendResultInSlices(reply, profile, application, refused, written?.primaryKeys.pieces() ?? ['{}'])
    return sendWithKeys(reply, resultObject(profile, application, refused), written?.primaryKeys.text() ?? '{}')
  }
  const { result } = outcome
  const link = result.firstMasterId === null ? null : rowLinkUrl(request, application.id, [result.firstMasterId])
  const saved = { ok: true, returnStates: [], counters: { created: result.created, updated: result.updated, deleted: 0 }, masterRowLink: link }
  if (big) return sendResultInSlices(reply, profile, application, saved, result.primaryKeys.pieces())
  return sendWithKeys(reply, resultObject(profile, application, saved), result.primaryKeys.text())
}

/** The store's command for the request's body, its values in their types' forms (value-forms.ts); work that may pause. */
function* commandOf(request: FastifyRequest, applicationId: string, userId: number): Generator<void, SaveCommand, void> {
  const body = request.body as Parameters<typeof saveItems>[0]['body']
  const empty: string[] = []
  const masters: SaveCommand['masters'] = []
  for (const master of body.Rows) {
    for (const group of master.Details) if (group.Rows.length === 0) empty.push(group.RelationKey)
    masters.push({ row: master.Row, details: master.Details.map((group) => ({ relationKey: group.RelationKey, rows: group.Rows })) })
    if (masters.length % READ_PER_PAUSE === 0) yield
  }
  if (empty.length > 0) warnOrRefuse(request, 'EMPTY_DETAIL_GROUP', `Detail group${empty.length > 1 ? 's' : ''} ${empty.join(', ')} had no rows.`)
  // Received before a reset or fixture load, it writes nothing after it (503 DATA_REPLACED).
  const sent: SaveCommand = { epoch: epochOf(request), applicationId, userId, masters }
  return yield* convertingSaveValues(request, applicationOf(request), sent)
}

/**
 * The result object with `ReturnData.PrimaryKeyData` as its last member, written as the text the
 * store kept (src/store/model/primary-keys.ts): the same bytes `JSON.stringify` writes for the object,
 * without building an object per master and serializing it again. onSend hooks see the text, as
 * they see every serialized answer.
 */
function sendWithKeys(reply: FastifyReply, answer: Record<string, unknown>, primaryKeyData: string): FastifyReply {
  const members = JSON.stringify(answer)
  return reply.type('application/json; charset=utf-8').send(`${members.slice(0, -1)},"ReturnData":{"PrimaryKeyData":${primaryKeyData}}}`)
}
