import type { FastifyRequest } from 'fastify'
import type { DeleteCommand } from '../store/model/types.ts'
import type { ApiBody, OperationHandler } from '../wire/operations.ts'
import { warnOrRefuse } from '../http/warn.ts'
import { applicationOf, epochOf, requireWriter } from '../http/context.ts'
import { runAtOnce, runInSlices, slicing, yieldTurn } from '../http/json-slices.ts'
import { resultObject, sendResultInSlices } from './results.ts'

type Group = ApiBody<'deleteItems'>[number]

/** Rows looked at, or read into the store's command, between two chances for a slice to end. */
const READ_PER_PAUSE = 1024

/**
 * Delete, all or nothing. Both bodies the description shows are accepted on every release: the
 * current one names the relation key of each group (null for masters), the older one has master
 * rows only. The description calls the second the older variant without saying a release dropped
 * it, so the mock takes each on the other releases too, with a warning. A big delete (as many rows
 * as a big save has masters, `slicing.checkRows`) is read, planned, applied and answered in slices,
 * with turns for other clients between them; it is seen whole or not at all.
 */
export const deleteItems: OperationHandler<'deleteItems'> = async (request, reply) => {
  const application = applicationOf(request)
  requireWriter(request)
  const groups: Group[] = request.body
  let rows = 0
  for (const group of groups) rows += group.Rows.length
  const big = rows >= slicing.checkRows
  const reading = commandOf(request, application.id)
  const command = big ? await runInSlices(reading) : runAtOnce(reading)
  const store = request.server.store
  const outcome = big ? await store.deleteInSlices(command, yieldTurn, slicing.planMs) : store.delete(command)
  const profile = request.server.profile
  const answer = {
    ok: outcome.ok,
    returnStates: outcome.ok ? [] : outcome.returnStates,
    counters: { created: 0, updated: 0, deleted: outcome.ok ? outcome.result.deleted : (outcome.written?.deleted ?? 0) },
    masterRowLink: null,
  }
  return big ? sendResultInSlices(reply, profile, application, answer, null) : reply.send(resultObject(profile, application, answer))
}

/** The store's command for the request's body, after the warnings it calls for; work that may pause. */
function* commandOf(request: FastifyRequest, applicationId: string): Generator<void, DeleteCommand, void> {
  const groups = request.body as Group[]
  // The older body's rows carry `Details`: in a body of the current one, every row is looked at.
  let legacyBody = false
  let looked = 0
  for (const group of groups) {
    for (const row of group.Rows) {
      if ('Details' in row) {
        legacyBody = true
        break
      }
      if (++looked % READ_PER_PAUSE === 0) yield
    }
    if (legacyBody) break
  }
  const profile = request.server.profile
  if (legacyBody && !profile.legacyDeleteBody) {
    warnOrRefuse(request, 'LEGACY_DELETE_BODY', `Release ${profile.version} was sent the older delete body.`)
  }
  if (!legacyBody && profile.legacyDeleteBody) {
    warnOrRefuse(request, 'CURRENT_DELETE_BODY', `Release ${profile.version} was sent the current delete body.`)
  }
  const keyOf = (group: Group): string | null | undefined => ('RelationKey' in group ? group.RelationKey : undefined)
  const withoutKey = legacyBody ? 0 : groups.filter((group) => keyOf(group) === undefined).length
  if (withoutKey > 0) {
    warnOrRefuse(request, 'DELETE_GROUP_WITHOUT_RELATION_KEY', `${withoutKey} group${withoutKey > 1 ? 's' : ''} without RelationKey deleted master rows.`)
  }
  if (groups.some((group) => keyOf(group)?.trim() === ''))
    warnOrRefuse(request, 'EMPTY_RELATION_KEY', 'A group sent RelationKey empty; it deleted master rows.')
  const empty = groups.filter((group) => group.Rows.length === 0).length
  if (empty > 0) warnOrRefuse(request, 'EMPTY_DELETE_GROUP', `${empty} group${empty > 1 ? 's' : ''} had no rows.`)
  const commandGroups: DeleteCommand['groups'] = []
  for (const group of groups) {
    const rows: DeleteCommand['groups'][number]['rows'] = []
    commandGroups.push({ relationKey: keyOf(group)?.trim() || null, rows })
    for (const { Row } of group.Rows) {
      rows.push({ Id: Row.Id, TIMESTAMP: Row.TIMESTAMP })
      if (rows.length % READ_PER_PAUSE === 0) yield
    }
  }
  // Received before a reset or fixture load, it writes nothing after it (503 DATA_REPLACED).
  return { epoch: epochOf(request), applicationId, groups: commandGroups }
}
