import type { DeleteCommand } from '../store/types.ts'
import type { ApiBody, OperationHandler } from '../wire/operations.ts'
import { warnOrRefuse } from '../http/warn.ts'
import { applicationOf, epochOf, requireWriter } from '../http/context.ts'
import { resultObject } from './results.ts'

type Group = ApiBody<'deleteItems'>[number]

/** A group of the older body: its rows carry `Details`. */
function isLegacyGroup(group: Group): group is Extract<Group, { Rows: Array<{ Details: unknown }> }> {
  return group.Rows.some((row) => 'Details' in row)
}

/**
 * Delete, all or nothing. Both bodies the description shows are accepted on every release: the
 * current one names the relation key of each group (null for masters), the older one has master
 * rows only. The description calls the second the older variant without saying a release dropped
 * it, so the mock takes each on the other releases too, with a warning.
 */
export const deleteItems: OperationHandler<'deleteItems'> = async (request, reply) => {
  const application = applicationOf(request)
  requireWriter(request)
  const groups: Group[] = request.body
  const legacyBody = groups.some(isLegacyGroup)
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
  if (groups.some((group) => keyOf(group)?.trim() === '')) warnOrRefuse(request, 'EMPTY_RELATION_KEY', 'A group sent RelationKey empty; it deleted master rows.')
  const empty = groups.filter((group) => group.Rows.length === 0).length
  if (empty > 0) warnOrRefuse(request, 'EMPTY_DELETE_GROUP', `${empty} group${empty > 1 ? 's' : ''} had no rows.`)
  const command: DeleteCommand = {
    epoch: epochOf(request),
    applicationId: application.id,
    groups: groups.map((group) => ({
      relationKey: keyOf(group)?.trim() || null,
      rows: group.Rows.map(({ Row }) => ({ Id: Row.Id, TIMESTAMP: Row.TIMESTAMP })),
    })),
  }
  const outcome = request.server.store.delete(command)
  return reply.send(
    resultObject(profile, application, {
      ok: outcome.ok,
      returnStates: outcome.ok ? [] : outcome.returnStates,
      counters: { created: 0, updated: 0, deleted: outcome.ok ? outcome.result.deleted : (outcome.written?.deleted ?? 0) },
      masterRowLink: null,
    }),
  )
}
