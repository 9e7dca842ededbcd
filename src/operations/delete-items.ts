import type { FastifyReply, FastifyRequest } from 'fastify'
import type { DeleteCommand } from '../store/types.ts'
import { applicationOf, requireWriter } from './context.ts'
import { resultObject } from './results.ts'

type RowRef = { Row: { Id: number; TIMESTAMP: number | null } }
type CurrentGroup = { RelationKey: string | null; Rows: RowRef[] }
type LegacyGroup = { Rows: Array<RowRef & { Details?: unknown[] }> }

/**
 * Delete, all or nothing. The current body names the relation key of each group (null for
 * masters); the older body has master rows only. The validator has already let through only
 * the shape of the emulated release.
 */
export async function deleteItems(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const application = applicationOf(request)
  requireWriter(request)
  const groups = request.body as Array<CurrentGroup | LegacyGroup>
  const command: DeleteCommand = {
    applicationId: application.id,
    groups: groups.map((group) => ({
      relationKey: 'RelationKey' in group ? group.RelationKey : null,
      rows: group.Rows.map(({ Row }) => ({ Id: Row.Id, TIMESTAMP: Row.TIMESTAMP })),
    })),
  }
  const outcome = request.server.store.delete(command)
  return reply.send(
    resultObject(request.server.profile, application, {
      ok: outcome.ok,
      returnStates: outcome.ok ? [] : outcome.returnStates,
      counters: { created: 0, updated: 0, deleted: outcome.ok ? outcome.result.deleted : 0 },
      masterRowLink: null,
    }),
  )
}
