import type { OperationHandler } from '../wire/operations.ts'
import { applicationOf, epochOf, storeProblem } from '../http/context.ts'
import { guidKey } from '../store/guid.ts'

/** Reserves `count` consecutive values of a storage's Identity field; later saves never hand them out. */
export const getIdentities: OperationHandler<'getIdentities'> = async (request, reply) => {
  const application = applicationOf(request)
  const params = request.params
  const reserved = request.server.store.reserveIdentities(application.id, guidKey(params.storage_id), params.field_name, params.count, epochOf(request))
  if (!Array.isArray(reserved)) throw storeProblem(reserved)
  return reply.send(reserved)
}
