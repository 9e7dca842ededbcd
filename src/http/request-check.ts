import type { FastifyRequest } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { requestBodyOf, type OperationEntry } from '../document/reader.ts'
import { validatorsFor, type BodyCheck } from '../document/validators.ts'
import { dropEchoes, ViolationTally, violationsProblem } from '../document/violations.ts'
import { bigArrays, checkInSlices, unknownMember, type Alternative } from './check-in-slices.ts'
import type { RouteStep } from './steps.ts'
import { bodyAlternatives, closestAlternative, validationHint } from '../document/hints.ts'

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

/**
 * The step that checks a request against its operation in the document: headers, query, path and
 * body, every violation in one 400 `VALIDATION` problem. The validators are compiled here, when the
 * route is added, so a schema Ajv cannot compile stops start-up naming the operation, instead of
 * failing its first request. A body with big arrays (`slicing.checkRows` elements or more: a save's
 * or a delete's rows) is checked a slice at a time (check-in-slices.ts), whether it passes or not,
 * when its schema judges those arrays an element at a time. The violations go through the one
 * pipeline (src/document/violations.ts: echoes dropped, merged, ranked, capped), so a body of
 * any size within the limits gets a short 400 in time linear in its size.
 */
export function requestCheck(document: OpenAPIObject, entry: OperationEntry, options: RequestCheckOptions = {}): RouteStep {
  let validate: ReturnType<ReturnType<typeof validatorsFor>['requestValidator']>
  let withoutBody: typeof validate | undefined
  let alternatives: Alternative[] = []
  const body = options.skipBody === true ? undefined : requestBodyOf(document, entry)
  const shapes = body === undefined ? [] : bodyAlternatives(document, body.schemaPointer)
  try {
    const validators = validatorsFor(document)
    validate = validators.requestValidator(entry, { skipBody: options.skipBody === true })
    if (body !== undefined) {
      withoutBody = validators.requestValidator(entry, { skipBody: true })
      // The alternatives' checks are compiled at the first big body that needs them (a save has none: its own is precompiled).
      const pointers = shapes.length > 0 ? shapes : [body.schemaPointer]
      alternatives = pointers.map((pointer) => {
        let check: BodyCheck | undefined
        return { pointer, check: (value: unknown) => (check ??= validators.bodyCheck(pointer))(value) }
      })
      if (shapes.length === 0) validators.bodyCheck(body.schemaPointer)
    }
  } catch (error) {
    throw new Error(`operation ${entry.operationId} (${routeMethod(entry)} ${entry.path}): its request schema does not compile: ${(error as Error).message}`, {
      cause: error,
    })
  }
  const { prepare, unknownInput } = options
  /** Refuses with every violation gathered (merged, ranked, capped), or hands on the unknown input the lenient mock accepts. */
  const judge = (request: FastifyRequest, violations: ViolationTally, members: ViolationTally, unknownParameters: string[]): void => {
    // Strict mode (no unknownInput) refuses unknown members.
    if (unknownInput === undefined) violations.add(members.summary(Infinity).violations)
    if (violations.size > 0) {
      const summary = violations.summary()
      const hint = validationHint(request, entry, summary.violations)
      throw violationsProblem(summary, 'VALIDATION', hint === undefined ? {} : { hint })
    }
    const unknownMembers = members.summary().violations.map((v) => v.pointer)
    if (unknownMembers.length + unknownParameters.length > 0) unknownInput?.(request, { members: unknownMembers, parameters: unknownParameters })
  }
  /** The whole request at once: what every request but a big body gets. */
  const whole = (request: FastifyRequest): void => {
    const found = validate(request)
    const violations = new ViolationTally()
    const members = new ViolationTally()
    members.add(found.unknownMembers.map(unknownMember))
    if (found.violations.length > 0)
      violations.add(dropEchoes(closestAlternative(document, shapes, request.body, found.violations), { value: request.body, prefix: '/body' }))
    judge(request, violations, members, found.unknownParameters)
  }
  return (request) => {
    prepare?.(request)
    const arrays = withoutBody === undefined ? [] : bigArrays(request.body)
    if (arrays.length === 0 || withoutBody === undefined) return whole(request)
    const rest = withoutBody(request)
    return checkInSlices(document, request.body, arrays, alternatives).then((sliced) => {
      // Arrays no alternative judges an element at a time: checked whole, as any other body.
      if (sliced === undefined) return whole(request)
      sliced.violations.add(rest.violations)
      judge(request, sliced.violations, sliced.members, rest.unknownParameters)
    })
  }
}
