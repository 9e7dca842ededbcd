import type { FastifyContextConfig, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { ProblemError, type Violation } from '../errors.ts'
import { listOperations, type OperationEntry } from '../document/reader.ts'
import { validatorsFor } from '../document/validators.ts'
import { describeViolations } from '../document/violations.ts'
import type { Handler, Handlers, RouteOf } from '../wire/operations.ts'

/**
 * A step of a route before its handler (authentication, checks); it throws a ProblemError (or
 * rejects with one) to refuse. A step with nothing to wait for returns nothing.
 */
export type RouteStep = (request: FastifyRequest, reply: FastifyReply) => void | Promise<void>

/** How the routes of one document are made. */
export interface DocumentRoutes<Ops> {
  document: OpenAPIObject
  /** One handler per operation of the document, typed for it. */
  handlers: Handlers<Ops>
  /** The route's config: which key carries the operation's id (API and control plane differ). */
  config(entry: OperationEntry): FastifyContextConfig
  /** Steps before the request is validated (authentication), and after it (authorization). */
  before?(entry: OperationEntry): RouteStep[]
  after?(entry: OperationEntry): RouteStep[]
  /** Adapts an unvalidated request before it is checked (forms standards allow but the document does not show). */
  prepare?: Partial<Record<keyof Ops, (request: FastifyRequest) => void>>
  /** Operations whose body the handler checks itself (multipart uploads, fixtures with their own paths). */
  ownBodyCheck?: ReadonlySet<string>
  /**
   * Called with body members the document does not name, when they are all that is wrong with the
   * body, and with undeclared query parameters; without it, unknown members are refused.
   */
  unknownInput?(request: FastifyRequest, found: { members: string[]; parameters: string[] }, entry: OperationEntry): void
}

type DocumentValidatorsOf = ReturnType<typeof validatorsFor>

/** `/a/{b}/c` as Fastify writes it: `/a/:b/c`. */
function fastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1')
}

/** An unknown member as the violation a strict schema reports. */
function unknownMember(pointer: string): Violation {
  return { pointer, keyword: 'additionalProperties', message: 'must NOT have additional properties' }
}

function hasHandler<Ops>(handlers: Handlers<Ops>, id: string): id is Extract<keyof Ops, string> {
  return Object.hasOwn(handlers as object, id)
}

function registerOne<Ops, K extends keyof Ops>(scope: FastifyInstance, routes: DocumentRoutes<Ops>, entry: OperationEntry, id: K): void {
  const handler: Handler<Ops, K> = routes.handlers[id]
  // Compiled at the operation's first request: a mock serves its first answer sooner, and most
  // test runs use a handful of the operations.
  let validate: ReturnType<DocumentValidatorsOf['requestValidator']> | undefined
  const prepare = routes.prepare?.[id]
  const check: RouteStep = (request) => {
    prepare?.(request)
    validate ??= validatorsFor(routes.document).requestValidator(entry, { skipBody: routes.ownBodyCheck?.has(entry.operationId) === true })
    const found = validate(request)
    const violations = routes.unknownInput === undefined ? [...found.violations, ...found.unknownMembers.map(unknownMember)] : found.violations
    if (violations.length > 0) throw new ProblemError('VALIDATION', describeViolations(violations), { violations })
    if (found.unknownMembers.length + found.unknownParameters.length > 0) {
      routes.unknownInput?.(request, { members: found.unknownMembers, parameters: found.unknownParameters }, entry)
    }
  }
  scope.route<RouteOf<Ops, K>>({
    method: entry.method.toUpperCase() as Uppercase<OperationEntry['method']>,
    url: fastifyPath(entry.path),
    config: routes.config(entry),
    preHandler: inTurn([...(routes.before?.(entry) ?? []), check, ...(routes.after?.(entry) ?? [])]),
    handler,
  })
}

/**
 * The steps as one preHandler hook, called in turn: a step that has nothing to wait for costs its
 * call, not a promise, a microtask turn and a pass of Fastify's hook runner. The first step that
 * throws or rejects refuses the request, as a hook of its own would.
 */
function inTurn(steps: readonly RouteStep[]) {
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    let i = 0
    const next = (): void => {
      try {
        while (i < steps.length) {
          const waiting = (steps[i++] as RouteStep)(request, reply)
          if (waiting !== undefined) {
            waiting.then(next, done)
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

/**
 * Registers one route per operation of a document, the API's (for the emulated release) or the
 * control plane's, each with its validators (compiled once, at first use) and its handler found by operationId.
 * An operation without a handler stops start-up, so document and mock cannot drift apart unnoticed.
 */
export function registerDocumentRoutes<Ops>(scope: FastifyInstance, routes: DocumentRoutes<Ops>): void {
  for (const entry of listOperations(routes.document)) {
    const id = entry.operationId
    if (!hasHandler(routes.handlers, id)) throw new Error(`operation ${id} (${entry.method.toUpperCase()} ${entry.path}) has no handler`)
    registerOne(scope, routes, entry, id)
  }
}
