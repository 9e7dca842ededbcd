import type { FastifyReply, FastifyRequest } from 'fastify'
import { ProblemError } from '../errors.ts'
import { checkCredentials } from '../http/auth/credentials.ts'
import { warnOrRefuse } from '../http/warn.ts'
import type { ApiBody, ApiResult, OperationHandler } from '../wire/operations.ts'

const KNOWN_SCOPES = new Set(['openid', 'apiv1', 'nosession'])
const FORM_FIELDS = new Set(['client_id', 'username', 'password', 'grant_type', 'scope'])

/**
 * Before validation: a form without `client_id` takes it from HTTP Basic client authentication
 * (RFC 6749, section 2.3.1: `Authorization: Basic base64(client_id:client_secret)`, each part
 * form-encoded), which OAuth 2.0 servers accept; the secret is not checked. With a warning,
 * since the description shows `client_id` in the form.
 */
export function clientIdFromBasicAuth(request: FastifyRequest): void {
  const form: unknown = request.body
  if (!isForm(form) || form.client_id !== undefined) return
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.authorization ?? '')
  if (match === null) return
  const credentials = Buffer.from(match[1] as string, 'base64').toString('utf8')
  const colon = credentials.indexOf(':')
  const encoded = colon < 0 ? credentials : credentials.slice(0, colon)
  let clientId: string
  try {
    clientId = decodeURIComponent(encoded.replaceAll('+', ' '))
  } catch {
    clientId = encoded
  }
  if (clientId === '') return
  warnOrRefuse(request, 'CLIENT_ID_BY_BASIC_AUTH', 'client_id was taken from the Authorization: Basic header.')
  // The journal shows the form as sent; the handler reads it with the client id filled in.
  request.sentBody = form
  request.body = { ...form, client_id: clientId }
}

/** Scopes of a `scope` text the mock does not grant. */
function unknownScopes(scope: string): string[] {
  return scope.split(/\s+/).filter((word) => word !== '' && !KNOWN_SCOPES.has(word))
}

function invalidScope(unknown: string[]): ProblemError {
  return new ProblemError('INVALID_SCOPE', `Scope ${unknown.join(', ')} is not granted; ask for "openid apiv1 nosession".`, { error: 'invalid_scope' })
}

/**
 * The description sends sign-in as `application/x-www-form-urlencoded`, as OAuth 2.0's token endpoint
 * takes it (RFC 6749, section 4.3.2). A body that came as JSON holds the same fields, so the lenient
 * mock reads it with a warning; strict mode refuses it, as an installation's token endpoint may.
 */
function checkFormMediaType(request: FastifyRequest): void {
  if (request.body === undefined || request.body === null) return
  const mediaType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase()
  if (mediaType === 'application/x-www-form-urlencoded') return
  warnOrRefuse(request, 'SIGN_IN_JSON_BODY', `The sign-in came as ${mediaType === '' ? 'a body without Content-Type' : mediaType}, not as a form.`)
}

/**
 * Before validation: the sign-in form as the mock reads it. The document's `scope` pattern says
 * which scopes the mock grants; a scope outside it is refused as OAuth 2.0 refuses it
 * (`invalid_scope`, RFC 6749 section 5.2) rather than as a schema violation.
 */
export function prepareSignIn(request: FastifyRequest): void {
  checkFormMediaType(request)
  clientIdFromBasicAuth(request)
  const form: unknown = request.body
  if (!isForm(form) || typeof form.scope !== 'string') return
  const unknown = unknownScopes(form.scope)
  if (unknown.length > 0) throw invalidScope(unknown)
}

type SignInRequest = FastifyRequest<{ Body: ApiBody<'signIn'> }>

/**
 * Current sign-in (password grant). From 3.0.19 the path names the organization; the
 * 3.0.0–3.0.18 form has none and signs in to the installation's only organization.
 */
async function answerSignIn(request: SignInRequest, reply: FastifyReply, named: string | undefined): Promise<unknown> {
  const organization = request.server.store.organization()
  if (named !== undefined && named.toLowerCase() !== organization.physicalName.toLowerCase()) {
    throw new ProblemError('UNKNOWN_ORGANIZATION', `No organization has the physical name "${named}".`)
  }
  const form = request.body
  const extra = Object.keys(form).filter((name) => !FORM_FIELDS.has(name))
  if (extra.length > 0)
    warnOrRefuse(
      request,
      'SIGN_IN_EXTRA_PARAMETER',
      `The form field${extra.length > 1 ? 's' : ''} ${extra.join(', ')} ${extra.length > 1 ? 'were' : 'was'} ignored.`,
    )
  if (form.client_id !== organization.clientId) {
    throw new ProblemError('INVALID_CLIENT', `client_id "${form.client_id}" is not a client of this installation.`, { error: 'invalid_client' })
  }
  if (form.grant_type !== 'password') {
    throw new ProblemError('UNSUPPORTED_GRANT_TYPE', `grant_type must be "password", got "${form.grant_type}".`, { error: 'unsupported_grant_type' })
  }
  const unknown = unknownScopes(form.scope)
  if (unknown.length > 0) throw invalidScope(unknown)
  const user = checkCredentials(organization, form.username, form.password)
  const session = request.server.tokens.issue(user)
  // Shaped as the description's sample: `token-type` and `scope` are empty strings there.
  const result: ApiResult<'signIn'> = { access_token: session.token, expires_in: request.server.tokens.ttlSeconds, 'token-type': '', scope: '' }
  return reply.send(result)
}

export const signIn: OperationHandler<'signIn'> = (request, reply) => answerSignIn(request, reply, request.params.organizationphysicalname)

/** The 3.0.0–3.0.18 path has no organization segment; the behaviour is the same. */
export const signInWithoutOrganization: OperationHandler<'signInWithoutOrganization'> = (request, reply) => answerSignIn(request, reply, undefined)

/** A parsed form (the form parser gives a plain object of texts). */
function isForm(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
