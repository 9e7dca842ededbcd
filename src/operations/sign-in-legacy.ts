import type { OperationHandler } from '../wire/operations.ts'
import { ProblemError } from '../errors.ts'
import { checkCredentials } from '../http/auth/credentials.ts'

/** Legacy sign-in (below 3.0): JSON body, answers with the user's Domain (today's Workspace). */
export const signInLegacy: OperationHandler<'signInLegacy'> = async (request, reply) => {
  const organization = request.server.store.organization()
  const body = request.body
  if (body.clientId !== organization.legacyClientId) {
    throw new ProblemError('INVALID_CLIENT', `clientId "${body.clientId}" is not a client of this installation.`, { error: 'invalid_client' })
  }
  const user = checkCredentials(organization, body.userName, body.password)
  const workspace = organization.workspaces.find((w) => user.workspaceIds.includes(w.id))
  const session = request.server.tokens.issue(user)
  return reply.send({
    Domain: {
      Id: workspace?.id ?? user.workspaceIds[0] ?? '',
      Name: workspace?.name ?? '',
      CreationDate: `/Date(${Date.parse(workspace?.createdAt ?? '1970-01-01T00:00:00Z')})/`,
      IsActive: true,
      IsAdmin: user.canWrite,
      IsBusinessDomain: true,
    },
    EncryptedCredentials: null,
    RedirectPage: 0,
    SessionToken: session.token,
  })
}
