import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { listOperations, requestBodyOf, type OperationEntry } from '../document/reader.ts'
import type { ApiOperations, Handler, Handlers, RouteOf } from '../wire/operations.ts'
import { requestCheck, fastifyPath, routeMethod, type UnknownInput } from './request-check.ts'
import { authenticate, authorize, inTurn, type RouteStep, type SecurityScheme } from './steps.ts'
import { warnOrRefuse } from './warn.ts'
import { refuseEncodedBody } from './body-checks.ts'

/** Steps that adapt a request before it is checked, by operation (forms standards allow but the document does not show). */
export type Preparations = Partial<Record<keyof ApiOperations, (request: FastifyRequest) => void>>

/** What the operations and the mock add to each route's steps. */
export interface RouteParts {
  /** Adapt a request before it is checked, by operation. */
  preparations?: Preparations
  /**
   * The operation's own part of authorization, after the workspace's: the application it names,
   * and for a write a user who may write. The operation's handler knows what it needs.
   */
  authorizations?: Partial<Record<keyof ApiOperations, RouteStep>>
  /**
   * The mock's answer rules, the last step before the handler, once the request is authorized (the
   * request path may not import the mock, so the mock hands it in).
   */
  answerRules?: RouteStep
}

/** The security scheme an operation declares, if any. */
function securityOf(entry: OperationEntry, document: OpenAPIObject): SecurityScheme | undefined {
  const requirements = (entry.operation.security ?? document.security ?? []) as Array<Record<string, unknown>>
  for (const requirement of requirements) {
    for (const name of Object.keys(requirement)) if (name === 'SessionToken' || name === 'BearerAuth') return name
  }
  return undefined
}

const plural = (names: string[], one: string, many: string): string => (names.length > 1 ? many : one)

/**
 * Members and parameters the document does not name are ignored with a warning (refused in strict
 * mode). The older Get Items takes its query options as URL parameters; its handler reports the ones it does not know.
 */
function warnUnknownInput(entry: OperationEntry) {
  return (request: FastifyRequest, found: UnknownInput): void => {
    const { members, parameters } = found
    if (members.length > 0) {
      warnOrRefuse(request, 'UNKNOWN_MEMBER', `The body member${plural(members, '', 's')} ${members.join(', ')} ${plural(members, 'was', 'were')} ignored.`)
    }
    if (parameters.length > 0 && entry.operationId !== 'queryItemsLegacy') {
      warnOrRefuse(
        request,
        'UNKNOWN_PARAMETER',
        `The URL parameter${plural(parameters, '', 's')} ${parameters.join(', ')} ${plural(parameters, 'was', 'were')} ignored.`,
      )
    }
  }
}

function hasHandler(handlers: Handlers<ApiOperations>, id: string): id is keyof ApiOperations {
  return Object.hasOwn(handlers, id)
}

/**
 * One route for an operation: authentication first (a caller without a token learns that before
 * anything about its request), then the request check against the document, then authorization
 * (the workspace must be the user's, then the operation's own: its application, a user who may
 * write), then the mock's answer rules (a rule may answer here, or change the answer to come, but
 * never for a request the mock refuses anyway), then the handler.
 */
function registerOne<K extends keyof ApiOperations>(
  app: FastifyInstance,
  document: OpenAPIObject,
  entry: OperationEntry,
  id: K,
  handlers: Handlers<ApiOperations>,
  parts: RouteParts,
): void {
  const handler: Handler<ApiOperations, K> = handlers[id]
  const scheme = securityOf(entry, document)
  const own = parts.authorizations?.[id]
  const steps: RouteStep[] = [
    ...(scheme === undefined ? [] : [authenticate(scheme)]),
    requestCheck(document, entry, { prepare: parts.preparations?.[id], unknownInput: warnUnknownInput(entry) }),
    ...(scheme === undefined ? [] : [authorize]),
    ...(scheme === undefined || own === undefined ? [] : [own]),
    ...(parts.answerRules === undefined ? [] : [parts.answerRules]),
  ]
  app.route<RouteOf<ApiOperations, K>>({
    method: routeMethod(entry),
    url: fastifyPath(entry.path),
    config: { operationId: entry.operationId, mediaType: requestBodyOf(document, entry)?.mediaType },
    // Before a byte of the body is read: a compressed body is refused saying so.
    preParsing: refuseEncodedBody,
    preHandler: inTurn(steps),
    handler,
  })
}

/**
 * Registers one route per operation of the API's document (the emulated release's view), each with
 * its steps and its handler found by operationId. Validators are compiled here, at start; an
 * operation without a handler, or whose schema does not compile, stops start-up naming it, so
 * document and mock cannot drift apart unnoticed.
 */
export function registerOperationRoutes(app: FastifyInstance, document: OpenAPIObject, handlers: Handlers<ApiOperations>, parts: RouteParts = {}): void {
  for (const entry of listOperations(document)) {
    const id = entry.operationId
    if (!hasHandler(handlers, id)) throw new Error(`operation ${id} (${entry.method.toUpperCase()} ${entry.path}) has no handler`)
    registerOne(app, document, entry, id, handlers, parts)
  }
}
