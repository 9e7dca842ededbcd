import type { FastifyReply, FastifyRequest } from 'fastify'
import { applicationOf, storeProblem } from './context.ts'
import { guidKey } from '../store/guid.ts'

/** Reserves `count` consecutive values of a storage's Identity field; later saves never hand them out. */
export async function getIdentities(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const application = applicationOf(request)
  const params = request.params as { storage_id: string; field_name: string; count: number }
  const reserved = request.server.store.reserveIdentities(application.id, guidKey(params.storage_id), params.field_name, Number(params.count))
  if (!Array.isArray(reserved)) throw storeProblem(reserved)
  return reply.send(reserved)
}
