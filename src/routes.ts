import type { FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { ProblemError } from './errors.ts'
import { listOperations, type OperationEntry } from './profile.ts'
import { authenticate, authorize, type SecurityScheme } from './plugins/auth.ts'
import { compileRequestValidator } from './validation/requests.ts'
import { createDocumentAjv } from './validation/ajv.ts'
import { describeViolations } from './validation/violations.ts'
import { HANDLERS, PREPARERS } from './operations/index.ts'

function securityOf(entry: OperationEntry, document: OpenAPIObject): SecurityScheme | undefined {
  const requirements = (entry.operation.security ?? document.security ?? []) as Array<Record<string, unknown>>
  for (const requirement of requirements) {
    for (const name of Object.keys(requirement)) {
      if (name === 'SessionToken' || name === 'BearerAuth') return name
    }
  }
  return undefined
}

/** `/a/{b}/c` as Fastify writes it: `/a/:b/c`. */
function fastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1')
}

/**
 * Registers one route per operation of the release's document, each with its validators compiled
 * now and its handler found by operationId. An operation without a handler stops start-up, so
 * document and mock cannot drift apart unnoticed.
 */
export function registerOperations(app: FastifyInstance, document: OpenAPIObject): void {
  const ajv = { coercing: createDocumentAjv(document, { coerce: true }), strict: createDocumentAjv(document, { coerce: false }) }
  for (const entry of listOperations(document)) {
    const handler = HANDLERS[entry.operationId]
    if (handler === undefined) throw new Error(`operation ${entry.operationId} (${entry.method.toUpperCase()} ${entry.path}) has no handler in src/operations`)
    const validate = compileRequestValidator(document, entry, ajv)
    const scheme = securityOf(entry, document)
    const prepare = PREPARERS[entry.operationId]
    const checkRequest = async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
      prepare?.(request)
      const violations = validate(request)
      if (violations.length > 0) throw new ProblemError('VALIDATION', describeViolations(violations), { violations })
    }
    const preHandler = scheme === undefined ? [checkRequest] : [authenticate(scheme), checkRequest, authorize]
    app.route({
      method: entry.method.toUpperCase() as 'GET',
      url: fastifyPath(entry.path),
      config: { operationId: entry.operationId },
      preHandler,
      handler: handler as RouteHandlerMethod,
    })
  }
}
