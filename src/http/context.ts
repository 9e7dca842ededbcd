import type { FastifyInstance, FastifyRequest } from 'fastify'
import { ProblemError, type ProblemCode } from '../errors.ts'
import type { Profile } from '../../spec/profiles.ts'
import type { MockClock } from '../deps.ts'
import type { Principal } from './auth/principal.ts'
import type { TokenStore } from './auth/tokens.ts'
import type { Store } from '../store/store.ts'
import type { Outbox } from '../store/outbox.ts'
import type { ApplicationDef, StoreError, StoreErrorCode } from '../store/model/types.ts'
import { guidKey } from '../store/guid.ts'
import { requireEpoch } from '../store/epoch.ts'

/** What the request path reads of the mock's settings (the mock decorates it from its configuration). */
export interface RequestPathSettings {
  /** Strict mode: refuse what the lenient mode accepts with a warning (a request's `X-Mock-Strict` header overrides it). */
  strict: boolean
  /** Base URL of the links the mock hands out (row links); the request's own origin when absent. */
  publicUrl: string | undefined
}

declare module 'fastify' {
  interface FastifyInstance {
    store: Store
    tokens: TokenStore
    profile: Profile
    clock: MockClock
    outbox: Outbox
    requestPath: RequestPathSettings
  }
  interface FastifyRequest {
    /** The caller; set by the authentication step of a route that needs a token (decorated null). */
    principal: Principal | null
    /** The body as the client sent it, when a step before validation adapted it (null otherwise). */
    sentBody: unknown
    /** The application the request names, once authorization found it (decorated null). */
    application: ApplicationDef | null
    /**
     * The store's data epoch when the request arrived (`Store.epoch()`, set by the mock's arrival
     * hook; decorated null): the stamp of every write it makes, so a write received before a reset
     * or fixture load is refused after it (503 DATA_REPLACED) instead of landing in the new data.
     */
    dataEpoch: number | null
  }
  interface FastifyContextConfig {
    /** The API operation a route serves (the document's operationId). */
    operationId?: string
    /** The media type of the operation's request body, when it takes one (named when a body comes with another). */
    mediaType?: string | undefined
  }
}

/** Decorates what every request of the request path carries; the mock calls it once, before any route. */
export function registerRequestContext(app: FastifyInstance, settings: RequestPathSettings): void {
  app.decorate('requestPath', settings)
  app.decorateRequest('principal', null)
  app.decorateRequest('sentBody', null)
  app.decorateRequest('application', null)
  app.decorateRequest('dataEpoch', null)
}

/** The epoch a write of this request is stamped with (undefined when the request was never stamped: no check). */
export function epochOf(request: FastifyRequest): number | undefined {
  return request.dataEpoch ?? undefined
}

/**
 * For a write outside the store (an e-mail queued): refuses it, as the store refuses its own
 * (DataReplaced, answered 503 DATA_REPLACED), when the data was replaced since the request arrived.
 */
export function requireCurrentData(request: FastifyRequest): void {
  requireEpoch(epochOf(request), request.server.store.epoch())
}

/** The caller; routes with a security scheme set it before the handler runs. */
export function principalOf(request: FastifyRequest): Principal {
  if (request.principal === null) throw new ProblemError('MISSING_TOKEN', 'This operation needs a session token.')
  return request.principal
}

/**
 * The application named by the `ApplicationId` header, which must be one of the workspace's
 * (the `WorkspaceId` header, or the user's first workspace when a legacy call sends none); 404
 * otherwise. Found once per request, by the authorization step of the operations that name one.
 */
export function applicationOf(request: FastifyRequest): ApplicationDef {
  if (request.application !== null) return request.application
  const { user } = principalOf(request)
  const id = guidKey(String(request.headers.applicationid ?? ''))
  const organization = request.server.store.organization()
  const workspaceId = typeof request.headers.workspaceid === 'string' ? guidKey(request.headers.workspaceid) : user.workspaceIds[0]
  const workspace = organization.workspaces.find((w) => w.id === workspaceId)
  const application = request.server.store.application(id)
  if (application === undefined || workspace === undefined || !workspace.applicationIds.includes(application.id)) {
    throw new ProblemError('UNKNOWN_APPLICATION', `No application ${id} in workspace ${workspaceId ?? '(none)'}.`)
  }
  request.application = application
  return application
}

/** Saves, deletes and actions need a user who may write (403 for the read-only user). */
export function requireWriter(request: FastifyRequest): Principal {
  const principal = principalOf(request)
  if (!principal.user.canWrite) throw new ProblemError('READ_ONLY_USER', `${principal.user.email} may read but not change data.`)
  return principal
}

/**
 * The problem each error value of the store answers with. A `Record` over the store's codes, so a
 * code added to the store does not compile until it has a problem (test/http/store-errors.test.ts
 * sends each one over HTTP).
 */
export const STORE_PROBLEMS: Record<StoreErrorCode, ProblemCode> = {
  BAD_QUERY: 'BAD_QUERY',
  BAD_FILTER: 'BAD_FILTER',
  UNKNOWN_FIELD: 'UNKNOWN_FIELD',
  UNKNOWN_RELATION_KEY: 'UNKNOWN_RELATION_KEY',
  UNKNOWN_APPLICATION: 'UNKNOWN_APPLICATION',
  UNKNOWN_STORAGE: 'UNKNOWN_STORAGE',
  UNKNOWN_ACTION: 'UNKNOWN_ACTION',
  UNKNOWN_ROW: 'UNKNOWN_ROW',
  // The count is a path parameter the document bounds: a count outside it is a request that does not match the document.
  INVALID_COUNT: 'VALIDATION',
}

/** An error value of the store as the reply's problem. */
export function storeProblem(failure: StoreError): ProblemError {
  return new ProblemError(STORE_PROBLEMS[failure.error], failure.message)
}

/** Base URL that links handed out by the mock point to. */
export function publicBase(request: FastifyRequest): string {
  return request.server.requestPath.publicUrl ?? `${request.protocol}://${request.host}`
}
