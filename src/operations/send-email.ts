import type { OperationHandler } from '../wire/operations.ts'
import { ProblemError } from '../errors.ts'
import { principalOf, requireCurrentData } from '../http/context.ts'
import { warnOrRefuse } from '../http/warn.ts'
import { guidKey } from '../store/guid.ts'

/** Queues an e-mail into the mock's outbox (nothing is sent); 200 with an empty body, as the description shows. */
export const sendEmail: OperationHandler<'sendEmail'> = async (request, reply) => {
  const { user } = principalOf(request)
  const body = request.body
  if (body.providerId === null) warnOrRefuse(request, 'NULL_OPTIONAL_MEMBER', 'providerId was null; the default provider was used.')
  const providerId = body.providerId === undefined || body.providerId === null ? null : guidKey(body.providerId)
  const providers = request.server.store.fixture.emailProviders
  const provider = providerId === null ? (providers.find((p) => p.isDefault) ?? providers[0]) : providers.find((p) => p.id === providerId)
  if (provider === undefined) {
    throw new ProblemError(
      'UNKNOWN_PROVIDER',
      providerId === null ? 'No e-mail provider is configured.' : `No e-mail provider ${body.providerId} is configured.`,
    )
  }
  // The outbox is what a reset empties: an e-mail received before it is not queued after it.
  requireCurrentData(request)
  request.server.outbox.add({
    queuedAt: new Date(request.server.clock.now()).toISOString(),
    workspaceId: String(request.headers.workspaceid),
    providerId: provider.id,
    from: user.email,
    to: body.to,
    subject: body.subject,
    body: body.body,
  })
  return reply.code(200).send()
}
