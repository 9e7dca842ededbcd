import type { FastifyRequest } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { ProblemError, type Violation } from '../errors.ts'
import { atPointer, requestBodyOf, resolveRef, type OperationEntry } from '../document/reader.ts'
import { isObject } from '../document/json.ts'
import { requestSchemas, validatorsFor } from '../document/validators.ts'
import { slicing, yieldTurn } from './json-slices.ts'
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

/** Checking goes on past a slice of rows (`slicing.sliceRows`) until this long (ms) has passed, then yields a turn of the event loop. */
const SLICE_MS = 8

/** Schema keywords that say nothing about how many rows, or which together, a body may hold. */
const PLAIN_OBJECT_KEYWORDS = new Set(['type', 'title', 'description', 'required', 'properties', 'additionalProperties', 'example', 'examples'])
const PLAIN_ROWS_KEYWORDS = new Set(['type', 'title', 'description', 'items', 'minItems', 'example', 'examples'])

/**
 * Whether a body schema can be checked a slice of `Rows` at a time: an object whose `Rows` is an
 * array of items checked each on its own (at most `minItems: 1`: every slice has a row). Then the
 * body is valid exactly when each slice, with the body's other members, is.
 */
export function rowsSliceable(document: OpenAPIObject, pointer: string): boolean {
  const { node: schema } = resolveRef(document, atPointer(document, pointer))
  if (!isObject(schema) || schema.type !== 'object' || !Object.keys(schema).every((key) => PLAIN_OBJECT_KEYWORDS.has(key))) return false
  if (!isObject(schema.properties) || schema.properties.Rows === undefined) return false
  const { node: rows } = resolveRef(document, schema.properties.Rows)
  if (!isObject(rows) || rows.type !== 'array' || !Object.keys(rows).every((key) => PLAIN_ROWS_KEYWORDS.has(key))) return false
  return rows.minItems === undefined || (typeof rows.minItems === 'number' && rows.minItems <= 1)
}

/**
 * Whether a body with many rows passes the body schema, checked a slice of rows at a time (each
 * slice with the body's other members) with a turn of the event loop between slices, so a big
 * save does not stop the mock. False as soon as a slice does not pass: the caller then checks the
 * whole request as always, so every refusal (its violations, pointers and hint) stays the same.
 */
async function bodyPassesInSlices(body: { Rows: unknown[] }, passes: (body: unknown) => boolean): Promise<boolean> {
  const rows = body.Rows
  const size = slicing.sliceRows
  let begun = performance.now()
  for (let from = 0; from < rows.length; from += size) {
    if (!passes({ ...body, Rows: rows.slice(from, from + size) })) return false
    if (performance.now() - begun >= SLICE_MS) {
      await yieldTurn()
      begun = performance.now()
    }
  }
  return true
}

/**
 * The step that checks a request against its operation in the document: headers, query, path and
 * body, every violation in one 400 `VALIDATION` problem. The validators are compiled here, when the
 * route is added, so a schema Ajv cannot compile stops start-up naming the operation, instead of
 * failing its first request. A body of `slicing.checkRows` rows or more is checked a slice at a
 * time (`bodyPassesInSlices`); one that does not pass is checked whole, as any other.
 */
export function requestCheck(document: OpenAPIObject, entry: OperationEntry, options: RequestCheckOptions = {}): RouteStep {
  let validate: ReturnType<ReturnType<typeof validatorsFor>['requestValidator']>
  let withoutBody: typeof validate | undefined
  let bodyPasses: ((body: unknown) => boolean) | undefined
  try {
    const validators = validatorsFor(document)
    validate = validators.requestValidator(entry, { skipBody: options.skipBody === true })
    const bodyPointer = options.skipBody === true ? undefined : requestSchemas(document, entry).bodyPointer
    if (bodyPointer !== undefined && rowsSliceable(document, bodyPointer)) {
      withoutBody = validators.requestValidator(entry, { skipBody: true })
      bodyPasses = validators.schemaAt(bodyPointer)
    }
  } catch (error) {
    throw new Error(`operation ${entry.operationId} (${routeMethod(entry)} ${entry.path}): its request schema does not compile: ${(error as Error).message}`, { cause: error })
  }
  const { prepare, unknownInput } = options
  const body = options.skipBody === true ? undefined : requestBodyOf(document, entry)
  const alternatives = body === undefined ? [] : bodyAlternatives(document, body.schemaPointer)
  const judge = (request: FastifyRequest, found: ReturnType<typeof validate>): void => {
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
  return (request) => {
    prepare?.(request)
    const sent = request.body as { Rows?: unknown } | null | undefined
    if (bodyPasses !== undefined && withoutBody !== undefined && isObject(sent) && Array.isArray(sent.Rows) && sent.Rows.length >= slicing.checkRows) {
      const rest = withoutBody
      const passes = bodyPasses
      return bodyPassesInSlices(sent as { Rows: unknown[] }, passes).then((ok) => judge(request, ok ? rest(request) : validate(request)))
    }
    judge(request, validate(request))
  }
}
