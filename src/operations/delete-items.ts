import type { FastifyReply, FastifyRequest } from 'fastify'
import type { DeleteCommand } from '../store/types.ts'
import { warn } from '../plugins/warnings.ts'
import { applicationOf, requireWriter } from './context.ts'
import { resultObject } from './results.ts'

type RowRef = { Row: { Id: number; TIMESTAMP: number | null } }
type CurrentGroup = { RelationKey?: string | null; Rows: RowRef[] }
type LegacyGroup = { Rows: Array<RowRef & { Details: unknown[] }> }

/**
 * Delete, all or nothing. Both bodies the description shows are accepted on every release: the
 * current one names the relation key of each group (null for masters), the older one has master
 * rows only. The description calls the second the older variant without saying a release dropped
 * it, so the mock takes each on the other releases too, with a warning.
 */
export async function deleteItems(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const application = applicationOf(request)
  requireWriter(request)
  const groups = request.body as Array<CurrentGroup | LegacyGroup>
  const legacyBody = groups.some((group) => group.Rows.some((row) => 'Details' in row))
  const profile = request.server.profile
  if (legacyBody && !profile.legacyDeleteBody) {
    warn(request, 'LEGACY_DELETE_BODY', `Release ${profile.version} was sent the older delete body.`)
  }
  if (!legacyBody && profile.legacyDeleteBody) {
    warn(request, 'CURRENT_DELETE_BODY', `Release ${profile.version} was sent the current delete body.`)
  }
  const withoutKey = legacyBody ? 0 : groups.filter((group) => !('RelationKey' in group)).length
  if (withoutKey > 0) {
    warn(request, 'DELETE_GROUP_WITHOUT_RELATION_KEY', `${withoutKey} group${withoutKey > 1 ? 's' : ''} without RelationKey deleted master rows.`)
  }
  const command: DeleteCommand = {
    applicationId: application.id,
    groups: groups.map((group) => ({
      relationKey: 'RelationKey' in group ? (group.RelationKey ?? null) : null,
      rows: group.Rows.map(({ Row }) => ({ Id: Row.Id, TIMESTAMP: Row.TIMESTAMP })),
    })),
  }
  const outcome = request.server.store.delete(command)
  return reply.send(
    resultObject(profile, application, {
      ok: outcome.ok,
      returnStates: outcome.ok ? [] : outcome.returnStates,
      counters: { created: 0, updated: 0, deleted: outcome.ok ? outcome.result.deleted : 0 },
      masterRowLink: null,
    }),
  )
}
