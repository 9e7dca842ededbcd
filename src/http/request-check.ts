import type { FastifyRequest } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import type { Violation } from '../errors.ts'
import { atPointer, requestBodyOf, resolveRef, type OperationEntry } from '../document/reader.ts'
import { isObject } from '../document/json.ts'
import { requestSchemas, validatorsFor, type BodyCheck } from '../document/validators.ts'
import { slicing, yieldTurn } from './json-slices.ts'
import { dropEchoes, ViolationTally, violationsProblem } from '../document/violations.ts'
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

/** `/body/Rows/<k>...` of a slice starting at row `from`, as a pointer into the whole body. */
function shiftRow(pointer: string, from: number): string {
  if (from === 0 || !pointer.startsWith(ROWS_POINTER)) return pointer
  const end = pointer.indexOf('/', ROWS_POINTER.length)
  const index = Number(pointer.slice(ROWS_POINTER.length, end === -1 ? undefined : end))
  return `${ROWS_POINTER}${index + from}${end === -1 ? '' : pointer.slice(end)}`
}

const ROWS_POINTER = '/body/Rows/'

/**
 * Checks a body with many rows against the body schema a slice of rows at a time (each slice with
 * the body's other members), with a turn of the event loop whenever a slice ran past SLICE_MS, so
 * neither a big valid save nor a big invalid one stops the mock. Each slice's violations are told
 * as of the whole body (row indexes shifted) and gathered in `violations`, merged as they come;
 * what is said of the body's other members is taken from the first slice alone (every slice
 * repeats it). Unknown members are gathered apart (`members`) while they are the body's only
 * fault; once anything else in it is wrong they are violations too, as checking the body whole
 * says them.
 */
async function checkRowsInSlices(body: { Rows: unknown[] }, checkBody: BodyCheck, violations: ViolationTally, members: ViolationTally): Promise<void> {
  const rows = body.Rows
  const size = slicing.sliceRows
  const wrong = new ViolationTally()
  let begun = performance.now()
  for (let from = 0; from < rows.length; from += size) {
    const slice = { ...body, Rows: rows.slice(from, from + size) }
    const found = checkBody(slice)
    const own = (pointer: string): boolean => from === 0 || pointer.startsWith(ROWS_POINTER)
    wrong.add(dropEchoes(found.violations, { value: slice, prefix: '/body' }).filter((v) => own(v.pointer)).map((v) => ({ ...v, pointer: shiftRow(v.pointer, from) })))
    members.add(found.unknownMembers.filter(own).map((pointer) => unknownMember(shiftRow(pointer, from))))
    if (performance.now() - begun >= SLICE_MS) {
      await yieldTurn()
      begun = performance.now()
    }
  }
  if (wrong.size === 0) return
  violations.add(wrong.summary(Infinity).violations)
  violations.add(members.summary(Infinity).violations)
  members.clear()
}

/**
 * The step that checks a request against its operation in the document: headers, query, path and
 * body, every violation in one 400 `VALIDATION` problem. The validators are compiled here, when the
 * route is added, so a schema Ajv cannot compile stops start-up naming the operation, instead of
 * failing its first request. A body of `slicing.checkRows` rows or more is checked a slice at a
 * time (`checkRowsInSlices`), whether it passes or not. The violations go through the one
 * pipeline (src/document/violations.ts: echoes dropped, merged, ranked, capped), so a body of
 * any size within the limits gets a short 400 in time linear in its size.
 */
export function requestCheck(document: OpenAPIObject, entry: OperationEntry, options: RequestCheckOptions = {}): RouteStep {
  let validate: ReturnType<ReturnType<typeof validatorsFor>['requestValidator']>
  let withoutBody: typeof validate | undefined
  let checkBody: BodyCheck | undefined
  try {
    const validators = validatorsFor(document)
    validate = validators.requestValidator(entry, { skipBody: options.skipBody === true })
    const bodyPointer = options.skipBody === true ? undefined : requestSchemas(document, entry).bodyPointer
    if (bodyPointer !== undefined && rowsSliceable(document, bodyPointer)) {
      withoutBody = validators.requestValidator(entry, { skipBody: true })
      checkBody = validators.bodyCheck(bodyPointer)
    }
  } catch (error) {
    throw new Error(`operation ${entry.operationId} (${routeMethod(entry)} ${entry.path}): its request schema does not compile: ${(error as Error).message}`, { cause: error })
  }
  const { prepare, unknownInput } = options
  const body = options.skipBody === true ? undefined : requestBodyOf(document, entry)
  const alternatives = body === undefined ? [] : bodyAlternatives(document, body.schemaPointer)
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
  return (request) => {
    prepare?.(request)
    const sent = request.body as { Rows?: unknown } | null | undefined
    const violations = new ViolationTally()
    if (checkBody !== undefined && withoutBody !== undefined && isObject(sent) && Array.isArray(sent.Rows) && sent.Rows.length >= slicing.checkRows) {
      const rest = withoutBody(request)
      violations.add(rest.violations)
      const members = new ViolationTally()
      return checkRowsInSlices(sent as { Rows: unknown[] }, checkBody, violations, members).then(() => judge(request, violations, members, rest.unknownParameters))
    }
    const found = validate(request)
    const members = new ViolationTally()
    members.add(found.unknownMembers.map(unknownMember))
    if (found.violations.length > 0) violations.add(dropEchoes(closestAlternative(document, alternatives, request.body, found.violations), { value: request.body, prefix: '/body' }))
    judge(request, violations, members, found.unknownParameters)
  }
}
