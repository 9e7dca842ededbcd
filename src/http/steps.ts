import type { FastifyReply, FastifyRequest } from 'fastify'
import { ProblemError } from '../errors.ts'
import type { Principal } from './auth/principal.ts'
import { guidKey } from '../store/guid.ts'

/**
 * A step of a route before its handler (authentication, the request check, authorization, the
 * mock's answer rules); it throws a ProblemError (or rejects with one) to refuse. A step with
 * nothing to wait for returns nothing. A step that has sent the answer itself resolves to
 * `'answered'`: no later step and no handler runs then.
 */
export type RouteStep = (request: FastifyRequest, reply: FastifyReply) => void | Promise<void | 'answered'>

export type SecurityScheme = 'SessionToken' | 'BearerAuth'

function tokenOf(request: FastifyRequest, scheme: SecurityScheme): string | undefined {
  if (scheme === 'SessionToken') {
    const value = request.headers.sessiontoken
    return typeof value === 'string' && value !== '' ? value : undefined
  }
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')
  return match?.[1]
}

/**
 * Authentication of a data operation: the `SessionToken` header (or `Authorization: Bearer` for
 * e-mail) must name a live session; 401 otherwise. Runs before validation, so a caller without a
 * token learns that first.
 */
export function authenticate(scheme: SecurityScheme) {
  return function authenticateRequest(request: FastifyRequest, _reply: FastifyReply): void {
    const token = tokenOf(request, scheme)
    const where = scheme === 'SessionToken' ? 'the SessionToken header' : 'an Authorization: Bearer header'
    if (token === undefined) throw new ProblemError('MISSING_TOKEN', `Sign in and send the access_token in ${where}.`)
    const check = request.server.tokens.check(token)
    if (!check.ok) {
      throw new ProblemError(
        check.reason,
        check.reason === 'TOKEN_EXPIRED' ? 'The session token has expired; sign in again.' : 'The session token is not one this installation issued.',
        scheme === 'SessionToken' && /^Bearer\s/i.test(token)
          ? { hint: 'Send the access_token alone in the SessionToken header, without "Bearer " (Authorization: Bearer is for the e-mail operation only).' }
          : {},
      )
    }
    const user = request.server.store.organization().users.find((u) => u.id === check.session.userId)
    if (user === undefined) throw new ProblemError('UNKNOWN_TOKEN', 'The user of this session no longer exists.')
    const principal: Principal = { user, session: check.session }
    request.principal = principal
  }
}

/**
 * Authorization after validation: the workspace must be the user's (403). The application, when
 * the operation takes one, must exist in that workspace (404).
 */
export function authorize(request: FastifyRequest): void {
  const principal = request.principal
  if (principal === null) return
  const workspaceId = request.headers.workspaceid
  if (typeof workspaceId === 'string' && !principal.user.workspaceIds.includes(guidKey(workspaceId))) {
    throw new ProblemError('FOREIGN_WORKSPACE', `Workspace ${workspaceId} is not available to ${principal.user.email}.`)
  }
}

/**
 * The steps as one preHandler hook, called in turn: a step that has nothing to wait for costs its
 * call, not a promise, a microtask turn and a pass of Fastify's hook runner. The first step that
 * throws or rejects refuses the request, as a hook of its own would.
 */
export function inTurn(steps: readonly RouteStep[]) {
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    let i = 0
    const next = (): void => {
      try {
        while (i < steps.length) {
          const waiting = (steps[i++] as RouteStep)(request, reply)
          if (waiting !== undefined) {
            // A step that answered ends the request here: Fastify must not run the handler too.
            waiting.then((outcome) => (outcome === 'answered' ? undefined : next()), done)
            return
          }
        }
      } catch (error) {
        done(error as Error)
        return
      }
      done()
    }
    next()
  }
}
