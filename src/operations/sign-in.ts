import type { FastifyReply, FastifyRequest } from 'fastify'
import { ProblemError } from '../errors.ts'
import { checkCredentials } from '../auth/credentials.ts'

interface SignInForm {
  client_id: string
  username: string
  password: string
  grant_type: string
  scope: string
}

const KNOWN_SCOPES = new Set(['openid', 'apiv1', 'nosession'])

/**
 * Current sign-in (password grant). From 3.0.19 the path names the organization; the
 * 3.0.0–3.0.18 form has none and signs in to the installation's only organization.
 */
export async function signIn(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const store = request.server.store
  const organization = store.organization()
  const named = (request.params as { organizationphysicalname?: string }).organizationphysicalname
  if (named !== undefined && named.toLowerCase() !== organization.physicalName.toLowerCase()) {
    throw new ProblemError('UNKNOWN_ORGANIZATION', `No organization has the physical name "${named}".`)
  }
  const form = request.body as SignInForm
  if (form.client_id !== organization.clientId) {
    throw new ProblemError('INVALID_CLIENT', `client_id "${form.client_id}" is not a client of this installation.`, { error: 'invalid_client' })
  }
  if (form.grant_type !== 'password') {
    throw new ProblemError('UNSUPPORTED_GRANT_TYPE', `grant_type must be "password", got "${form.grant_type}".`, { error: 'unsupported_grant_type' })
  }
  const unknown = form.scope.split(/\s+/).filter((scope) => scope !== '' && !KNOWN_SCOPES.has(scope))
  if (unknown.length > 0) {
    throw new ProblemError('INVALID_SCOPE', `Scope ${unknown.join(', ')} is not granted; ask for "openid apiv1 nosession".`, { error: 'invalid_scope' })
  }
  const user = checkCredentials(organization, form.username, form.password)
  const session = request.server.tokens.issue(user)
  // Shaped as the seed's sample: `token-type` and `scope` are empty strings there.
  return reply.send({ access_token: session.token, expires_in: request.server.tokens.ttlSeconds, 'token-type': '', scope: '' })
}

/** The 3.0.0–3.0.18 path has no organization segment; the behaviour is the same. */
export const signInWithoutOrganization = signIn
