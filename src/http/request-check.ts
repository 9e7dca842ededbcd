import type { FastifyRequest } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { ProblemError, type Violation } from '../errors.ts'
import { requestBodyOf, type OperationEntry } from '../document/reader.ts'
import { validatorsFor } from '../document/validators.ts'
import { describeViolations } from '../document/violations.ts'
import type { RouteStep } from './steps.ts'
import { bodyAlternatives, closestAlternative, validationHint } from './hints.ts'

/** Body members the document does not name (pointers) and query parameters the operation does not declare. */
export interface UnknownInput {
  members: string[]
  parameters: string[]
}

export interface RequestCheckOptions {
  /** The handler checks the body itself (a multipart upload, a fixture whose refusals name paths in it). */
  skipBody?: boolean
  /** Adapts an unvalidated request before it is checked (forms standards allow but the document does not show). */
  prepare?: (request: FastifyRequest) => void
  /**
   * Called with body members the document does not name, when they are all that is wrong with the
   * body, and with undeclared query parameters; without it, unknown members are refused.
   */
  unknownInput?: (request: FastifyRequest, found: UnknownInput) => void
}

/** `/a/{b}/c` as Fastify writes it: `/a/:b/c`. */
export function fastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1')
}

/** An operation's method as Fastify's route takes it. */
export function routeMethod(entry: OperationEntry): Uppercase<OperationEntry['method']> {
  return entry.method.toUpperCase() as Uppercase<OperationEntry['method']>
}

/** An unknown member as the violation a strict schema reports. */
function unknownMember(pointer: string): Violation {
  return { pointer, keyword: 'additionalProperties', message: 'must NOT have additional properties' }
}

/**
 * The step that checks a request against its operation in the document: headers, query, path and
 * body, every violation in one 400 `VALIDATION` problem. The validators are compiled here, when the
 * route is added, so a schema Ajv cannot compile stops start-up naming the operation, instead of
 * failing its first request.
 */
export function requestCheck(document: OpenAPIObject, entry: OperationEntry, options: RequestCheckOptions = {}): RouteStep {
  let validate: ReturnType<ReturnType<typeof validatorsFor>['requestValidator']>
  try {
    validate = validatorsFor(document).requestValidator(entry, { skipBody: options.skipBody === true })
  } catch (error) {
    throw new Error(`operation ${entry.operationId} (${routeMethod(entry)} ${entry.path}): its request schema does not compile: ${(error as Error).message}`, { cause: error })
  }
  const { prepare, unknownInput } = options
  const body = options.skipBody === true ? undefined : requestBodyOf(document, entry)
  const alternatives = body === undefined ? [] : bodyAlternatives(document, body.schemaPointer)
  return (request) => {
    prepare?.(request)
    const found = validate(request)
    const all = unknownInput === undefined ? [...found.violations, ...found.unknownMembers.map(unknownMember)] : found.violations
    if (all.length > 0) {
      const violations = closestAlternative(document, alternatives, request.body, all)
      const hint = validationHint(request, entry, violations)
      throw new ProblemError('VALIDATION', describeViolations(violations), hint === undefined ? { violations } : { violations, hint })
    }
    if (found.unknownMembers.length + found.unknownParameters.length > 0) {
      unknownInput?.(request, { members: found.unknownMembers, parameters: found.unknownParameters })
    }
  }
}
