import type { FastifyRequest } from 'fastify'
import { ProblemError, type ProblemCode } from '../errors.ts'
import type { Principal } from '../mock/auth/principal.ts'
import type { ApplicationDef } from '../store/types.ts'
import { guidKey } from '../store/guid.ts'

/** The caller; routes with a security scheme set it before the handler runs. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) throw new ProblemError('MISSING_TOKEN', 'This operation needs a session token.')
  return request.principal
}

/**
 * The application named by the `ApplicationId` header, which must be one of the workspace's
 * (the `WorkspaceId` header, or the user's first workspace when a legacy call sends none).
 */
export function applicationOf(request: FastifyRequest): ApplicationDef {
  const { user } = principalOf(request)
  const id = guidKey(String(request.headers.applicationid ?? ''))
  const organization = request.server.store.organization()
  const workspaceId = typeof request.headers.workspaceid === 'string' ? guidKey(request.headers.workspaceid) : user.workspaceIds[0]
  const workspace = organization.workspaces.find((w) => w.id === workspaceId)
  const application = request.server.store.application(id)
  if (application === undefined || workspace === undefined || !workspace.applicationIds.includes(application.id)) {
    throw new ProblemError('UNKNOWN_APPLICATION', `No application ${id} in workspace ${workspaceId ?? '(none)'}.`)
  }
  return application
}

/** Saves, deletes and actions need a user who may write (403 for the read-only user). */
export function requireWriter(request: FastifyRequest): Principal {
  const principal = principalOf(request)
  if (!principal.user.canWrite) throw new ProblemError('READ_ONLY_USER', `${principal.user.email} may read but not change data.`)
  return principal
}

/** An error value of the store (`{ error, message }`) as the reply's problem. */
export function storeProblem(failure: { error: string; message: string }): ProblemError {
  const known: Record<string, ProblemCode> = {
    BAD_QUERY: 'BAD_QUERY',
    BAD_FILTER: 'BAD_FILTER',
    UNKNOWN_FIELD: 'UNKNOWN_FIELD',
    UNKNOWN_RELATION_KEY: 'UNKNOWN_RELATION_KEY',
    UNKNOWN_STORAGE: 'UNKNOWN_STORAGE',
    NOT_FOUND: 'UNKNOWN_STORAGE',
    INVALID_COUNT: 'VALIDATION',
  }
  return new ProblemError(known[failure.error] ?? 'BAD_QUERY', failure.message)
}

/** Base URL that links handed out by the mock point to. */
export function publicBase(request: FastifyRequest): string {
  return request.server.mockConfig.publicUrl ?? `${request.protocol}://${request.host}`
}
