import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ProblemError } from '../errors.ts'
import { authenticate } from '../http/steps.ts'
import { hiddenFieldsFor } from '../http/auth/principal.ts'
import { guidKey } from '../store/guid.ts'
import { principalOf } from '../http/context.ts'

const bySessionToken = authenticate('SessionToken')
const byBearer = authenticate('BearerAuth')

/** A session from the `SessionToken` header, or else from `Authorization: Bearer`. */
async function signedIn(request: FastifyRequest): Promise<void> {
  if (request.headers.sessiontoken === undefined && /^Bearer\s/i.test(request.headers.authorization ?? '')) return byBearer(request, undefined as never)
  return bySessionToken(request, undefined as never)
}

/**
 * The page a generated row link opens: GET answers with the linked master rows as JSON. It is
 * the mock's stand-in for the product's row view, outside the API document (mock-defined). As
 * the description says of all data, what it shows depends on the session: the caller signs in
 * (token in `SessionToken`, or `Authorization: Bearer`), sees only applications of its
 * workspaces, and never a field hidden from it.
 */
export function registerRowLinks(app: FastifyInstance): void {
  app.get<{ Params: { applicationId: string; ids: string } }>('/rowlink/:applicationId/:ids', { preHandler: signedIn }, async (request, reply) => {
    const { user } = principalOf(request)
    const applicationId = guidKey(request.params.applicationId)
    const { ids } = request.params
    const organization = app.store.organization()
    const visible = organization.workspaces.some((w) => user.workspaceIds.includes(w.id) && w.applicationIds.includes(applicationId))
    if (!visible || app.store.application(applicationId) === undefined) {
      throw new ProblemError('UNKNOWN_APPLICATION', `No application ${request.params.applicationId} in the workspaces of ${user.email}.`)
    }
    if (!/^\d+(,\d+)*$/.test(ids)) throw new ProblemError('UNKNOWN_ROW', `"${ids}" is not a list of row Ids.`)
    const hidden = hiddenFieldsFor(user, applicationId)
    const rows = ids.split(',').map((id) => app.store.getRow(applicationId, null, Number(id), hidden))
    if (rows.some((row) => row === null)) throw new ProblemError('UNKNOWN_ROW', `No master row ${ids} in application ${applicationId}.`)
    return reply.type('application/json; charset=utf-8').send(`[${rows.map((row) => row?.json).join(',')}]`)
  })
}
