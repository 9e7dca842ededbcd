import { createHash } from 'node:crypto'
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import type { Violation } from '../errors.ts'
import { summarizeViolations, toViolations } from './violations.ts'
import { gatherErrorsInPlace } from './ajv-code.ts'
import { quickAcceptAt } from './quick-accept.ts'
import { isObject } from './json.ts'
import { escapePointer, operationParameters, requestBodyOf, responseOf, walk, type OperationEntry } from './reader.ts'
import { PRECOMPILED } from './request-validators.generated.ts'

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

/**
 * The one owner of Ajv in the project. Compiling is the slow part of Ajv, so every schema is
 * compiled once per process and per document, when first asked for, and the validators are
 * shared by every mock, client and contract run that reads the same document object. The request
 * validators of the documents the mock serves are compiled ahead of time (Ajv standalone code,
 * request-validators.generated.ts, written by `npm run spec`): the mock asks for all of them at
 * start, where compiling them made a start 15-20% slower (docs/request-path.md, Start-up).
 */

/** Base URI under which a document is registered, so `#/components/...` references resolve. */
const DOCUMENT_ID = 'urn:appdata-kit:openapi'

/** OpenAPI keywords that may sit inside schemas and are annotations only. */
const ANNOTATIONS = ['example', 'discriminator', 'xml', 'externalDocs']

/**
 * An Ajv holding the document, coercing (headers, query and path arrive as text) or not. `source`
 * keeps the generated code, for standalone modules; the validation code is the same either way.
 */
export function documentAjv(document: OpenAPIObject, coerce: boolean, options: { source?: boolean } = {}): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictRequired: false,
    coerceTypes: coerce ? 'array' : false,
    validateSchema: false,
    // Errors gathered in place, not copied once per element (ajv-code.ts): linear in the errors.
    code: { process: gatherErrorsInPlace, ...(options.source === true ? { source: true } : {}) },
  })
  addFormats(ajv)
  // The document's own members and extensions are keywords to Ajv when a reference makes it
  // compile the root; declared here so strict mode stays on for the real schemas.
  const keywords = new Set([...ANNOTATIONS, ...Object.keys(document).filter((key) => !key.startsWith('x-'))])
  walk(document, '', (node) =>
    Object.keys(node)
      .filter((key) => key.startsWith('x-'))
      .forEach((key) => keywords.add(key)),
  )
  for (const keyword of keywords) ajv.addKeyword(keyword)
  ajv.addSchema(document as object, DOCUMENT_ID)
  return ajv
}

/**
 * What tells a document view from any other, for finding its precompiled validators: a digest of
 * its JSON. Any change to the view (the document, the modes, the release pruning) changes it, so
 * stale code is never used. About a millisecond at start for the largest view.
 */
export function documentDigest(document: OpenAPIObject): string {
  return createHash('sha256').update(JSON.stringify(document)).digest('base64url')
}

/** A precompiled validator as standalone code makes it: the same function and `errors` as a compiled one. */
type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null }

/** One document's precompiled request validators, as request-validators.generated.ts holds them. */
export interface PrecompiledRequests {
  /** Per operation pointer, the coercing validators of its header, query and path parameters. */
  parts: Record<string, Partial<Record<Part, Validate>>>
  /** Per schema pointer, the strict validator of a request body (what `schemaAt(pointer)` compiles). */
  bodies: Record<string, Validate>
}

/** `$ref` text pointing at a JSON pointer inside the registered document. */
function documentRef(pointer: string): string {
  return `${DOCUMENT_ID}#${pointer
    .split('/')
    .map((segment) => encodeURIComponent(segment))
    .join('/')}`
}

/** What a request offers for validation (Fastify's request fits). */
export interface RequestParts {
  headers: Record<string, unknown>
  query: unknown
  params: unknown
  body: unknown
}

/**
 * What a request check found: every violation of the document, members the body has that its
 * schema does not name (when that is all that is wrong with the body), and query parameters the
 * operation does not declare.
 */
export interface RequestCheck {
  violations: Violation[]
  /** Pointers of body members the schema does not know (`/body/extra`), found only when the body is otherwise valid. */
  unknownMembers: string[]
  unknownParameters: string[]
}

/** Checks one request against its operation. */
export type RequestValidator = (request: RequestParts) => RequestCheck

/** Checks a request body: its violations, or, when members the schema does not name are its only fault, their pointers. */
export type BodyCheck = (body: unknown) => Pick<RequestCheck, 'violations' | 'unknownMembers'>

/** A copy of a document whose schemas accept members they do not name (`additionalProperties: false` dropped). */
function openMembers(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(openMembers)
  if (node === null || typeof node !== 'object') return node
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => !(key === 'additionalProperties' && value === false))
      .map(([key, value]) => [key, openMembers(value)]),
  )
}

export type Part = 'headers' | 'query' | 'params'
const PART_OF: Record<string, Part> = { header: 'headers', query: 'query', path: 'params' }
export const PARTS: readonly Part[] = ['headers', 'query', 'params']

/**
 * The schemas of one operation's request: an object schema per request part that has parameters
 * (header names in lower case, as Node gives them) and the pointer of its body's schema. The
 * runtime compiler and the ahead-of-time generator (spec/request-validators.ts) both start here,
 * so they compile the same schemas.
 */
export function requestSchemas(
  document: OpenAPIObject,
  entry: OperationEntry,
): { parts: Partial<Record<Part, object>>; declaredQuery: string[]; bodyPointer: string | undefined; headerNames: Map<string, string> } {
  const found: Record<Part, { properties: Record<string, unknown>; required: string[] }> = {
    headers: { properties: {}, required: [] },
    query: { properties: {}, required: [] },
    params: { properties: {}, required: [] },
  }
  const headerNames = new Map<string, string>()
  for (const parameter of operationParameters(document, entry)) {
    const part = PART_OF[parameter.in]
    if (part === undefined) continue
    // Node gives header names in lower case; HTTP header names are case-insensitive anyway.
    const name = part === 'headers' ? parameter.name.toLowerCase() : parameter.name
    if (part === 'headers') headerNames.set(name, parameter.name)
    found[part].properties[name] = { $ref: documentRef(`${parameter.pointer}/schema`) }
    if (parameter.required || part === 'params') found[part].required.push(name)
  }
  const parts: Partial<Record<Part, object>> = {}
  for (const part of PARTS) {
    const { properties, required } = found[part]
    if (Object.keys(properties).length > 0) parts[part] = { type: 'object', properties, required }
  }
  return { parts, declaredQuery: Object.keys(found.query.properties), bodyPointer: requestBodyOf(document, entry)?.schemaPointer, headerNames }
}

/** The schema `schemaAt(pointer)` compiles: a reference into the registered document. */
export function schemaAtPointer(pointer: string): object {
  return { $ref: documentRef(pointer) }
}

/** The validators of one document: a coercing Ajv for headers, query and path, a strict one for bodies and answers. */
export class DocumentValidators {
  readonly document: OpenAPIObject
  // Made at the first compile: a mock whose request validators are all precompiled makes none.
  #coercingAjv: Ajv2020 | undefined
  #strictAjv: Ajv2020 | undefined
  readonly #schemas = new Map<string, ValidateFunction>()
  readonly #requests = new Map<string, RequestValidator>()
  readonly #bodies = new Map<string, BodyCheck>()
  #open: DocumentValidators | undefined
  #precompiled: PrecompiledRequests | null | undefined
  readonly #usePrecompiled: boolean

  /** `precompiled: false` compiles everything here (the tests compare both kinds). */
  constructor(document: OpenAPIObject, options: { precompiled?: boolean } = {}) {
    this.document = document
    this.#usePrecompiled = options.precompiled !== false
  }

  get #coercing(): Ajv2020 {
    this.#coercingAjv ??= documentAjv(this.document, true)
    return this.#coercingAjv
  }

  get #strict(): Ajv2020 {
    this.#strictAjv ??= documentAjv(this.document, false)
    return this.#strictAjv
  }

  /**
   * The request validators generated ahead of time for exactly this document, or null. Looked up
   * at the first request validator asked for, not before: the digest costs a little, and only the
   * mock's routes want these.
   */
  get precompiled(): PrecompiledRequests | null {
    if (this.#precompiled === undefined) {
      this.#precompiled = this.#usePrecompiled ? (PRECOMPILED[documentDigest(this.document)]?.() ?? null) : null
      for (const [pointer, validate] of Object.entries(this.#precompiled?.bodies ?? {})) {
        if (!this.#schemas.has(`s${pointer}`)) this.#schemas.set(`s${pointer}`, validate as ValidateFunction)
      }
    }
    return this.#precompiled
  }

  /** The validator of the schema at `pointer` in the document, compiled on first use (or precompiled). */
  schemaAt(pointer: string, options: { coerce?: boolean } = {}): ValidateFunction {
    const key = `${options.coerce === true ? 'c' : 's'}${pointer}`
    let validate = this.#schemas.get(key)
    if (validate === undefined) {
      validate = (options.coerce === true ? this.#coercing : this.#strict).compile(schemaAtPointer(pointer))
      this.#schemas.set(key, validate)
    }
    return validate
  }

  /** The same document with members no schema names accepted: tells a body whose only fault is extra members. */
  get #openMembers(): DocumentValidators {
    this.#open ??= new DocumentValidators(openMembers(this.document) as OpenAPIObject)
    return this.#open
  }

  /** Violations of the schema at `pointer` by a value, under the pointer prefix `part` (`/body`, ...). */
  violationsAt(pointer: string, value: unknown, part = 'body', options: { coerce?: boolean } = {}): Violation[] {
    const validate = this.schemaAt(pointer, options)
    return validate(value) ? [] : toViolations(part, validate.errors)
  }

  /**
   * The validator of one operation's request: header, query and path parameters (coercing, since
   * they arrive as text) and the JSON or form body of its media type (not coercing), unless
   * `skipBody` (a body the handler checks itself).
   */
  requestValidator(entry: OperationEntry, options: { skipBody?: boolean } = {}): RequestValidator {
    const key = `${entry.pointer} ${options.skipBody === true}`
    let validator = this.#requests.get(key)
    if (validator === undefined) {
      validator = this.#compileRequest(entry, options.skipBody === true)
      this.#requests.set(key, validator)
    }
    return validator
  }

  #compileRequest(entry: OperationEntry, skipBody: boolean): RequestValidator {
    const schemas = requestSchemas(this.document, entry)
    // Precompiled for this very document (its digest matched), else compiled now: a document
    // nobody generated code for (changed, or broken) is still checked, and still fails here.
    const ready = this.precompiled?.parts[entry.pointer]
    const checks: Array<{ part: Part; validate: Validate }> = []
    for (const part of PARTS) {
      const schema = schemas.parts[part]
      if (schema !== undefined) checks.push({ part, validate: ready?.[part] ?? this.#coercing.compile(schema) })
    }
    const declaredQuery = new Set(schemas.declaredQuery)
    const checkBody = skipBody || schemas.bodyPointer === undefined ? undefined : this.bodyCheck(schemas.bodyPointer)
    // A header's violation points at the header as the document spells it (`/headers/ApplicationId`), not as Node gives it,
    // and its message names it so (`must have required property 'ApplicationId'`).
    const spelt = (violation: Violation): Violation => {
      const at = violation.pointer.indexOf('/', '/headers/'.length)
      const name = violation.pointer.slice('/headers/'.length, at === -1 ? undefined : at)
      const declared = schemas.headerNames.get(name)
      if (declared === undefined || declared === name) return violation
      return {
        ...violation,
        pointer: `/headers/${declared}${at === -1 ? '' : violation.pointer.slice(at)}`,
        message: violation.message.replaceAll(`'${name}'`, `'${declared}'`),
      }
    }
    return (request) => {
      const violations: Violation[] = []
      for (const { part, validate } of checks) {
        // One at a time: a spread of an unbounded list into push() overflows the stack.
        if (!validate(request[part] ?? {}))
          for (const violation of toViolations(part, validate.errors)) violations.push(part === 'headers' ? spelt(violation) : violation)
      }
      let unknownMembers: string[] = []
      if (checkBody !== undefined) {
        const body = checkBody(request.body)
        for (const violation of body.violations) violations.push(violation)
        unknownMembers = body.unknownMembers
      }
      const query = request.query !== null && typeof request.query === 'object' ? Object.keys(request.query) : []
      return { violations, unknownMembers, unknownParameters: query.filter((name) => !declaredQuery.has(name)) }
    }
  }

  /**
   * The check of a request body against the schema at `bodyPointer` (not coercing): its
   * violations, or, when its only fault is members the schema does not name, those members'
   * pointers. Pointers start with `/body`. A body that surely conforms skips Ajv (quick-accept.ts).
   */
  bodyCheck(bodyPointer: string): BodyCheck {
    let check = this.#bodies.get(bodyPointer)
    if (check === undefined) {
      check = this.#compileBody(bodyPointer)
      this.#bodies.set(bodyPointer, check)
    }
    return check
  }

  #compileBody(bodyPointer: string): BodyCheck {
    const validateBody = this.schemaAt(bodyPointer)
    const quick = quickAcceptAt(this.document, bodyPointer)
    return (body) => {
      if (quick?.(body) === true || validateBody(body)) return { violations: [], unknownMembers: [] }
      const found = toViolations('body', validateBody.errors)
      // Valid once unnamed members are allowed: the body's only fault is members it may carry anyway.
      // Ajv reports every error (allErrors), so the errors alone settle it when they are all of one
      // kind: none about members (opening changes nothing), or only those. Only a mix, where an
      // alternative may have failed for a member alone, needs the document with members opened,
      // whose compile (at its first use) is the slow part.
      const members = found.reduce((n, v) => n + (v.keyword === 'additionalProperties' ? 1 : 0), 0)
      if (members === found.length || (members > 0 && this.#openMembers.schemaAt(bodyPointer)(body))) {
        return { violations: [], unknownMembers: [...new Set(found.filter((v) => v.keyword === 'additionalProperties').map((v) => v.pointer))] }
      }
      return { violations: found, unknownMembers: [] }
    }
  }

  /**
   * Checks an answer against the operation's documented responses: the status is documented, the
   * media type is one of its content types, and a JSON body matches its schema. Returns what is
   * wrong (nothing when the answer conforms), each with the schema path that failed.
   */
  responseProblems(entry: OperationEntry, answer: { status: number; contentType: string; body: unknown }): string[] {
    const found = responseOf(this.document, entry, answer.status)
    if (found === undefined) return [`${entry.operationId}: status ${answer.status} is not documented`]
    const content = found.response.content
    if (content === undefined || content === null) {
      return answer.body === '' || answer.body === undefined ? [] : [`${entry.operationId} ${answer.status}: documented without a body, got one`]
    }
    const mediaType = answer.contentType.split(';')[0]?.trim().toLowerCase() ?? ''
    const media = content as Record<string, unknown>
    if (!(mediaType in media)) {
      if ('application/octet-stream' in media) return []
      // Any label: a body read as JSON is still held to the schema, when there is one.
      const parsed = answer.body !== null && typeof answer.body === 'object' && !Buffer.isBuffer(answer.body)
      if ('*/*' in media)
        return parsed && isObject(media['*/*']) && media['*/*'].schema !== undefined
          ? this.#bodyProblems(entry, answer, `${found.pointer}/content/${escapePointer('*/*')}`)
          : []
      return [`${entry.operationId} ${answer.status}: media type ${mediaType || '(none)'} is not documented (${Object.keys(media).join(', ')})`]
    }
    if (!mediaType.endsWith('json')) return []
    return this.#bodyProblems(entry, answer, `${found.pointer}/content/${escapePointer(mediaType)}`)
  }

  /**
   * What is wrong with an answer's body, through the one violation pipeline (echoes dropped, the
   * same fault in many rows once with a count, ranked, capped), so a page of any size that fits no
   * schema costs its size and gives a short list. Each line keeps the schema path that failed.
   */
  #bodyProblems(entry: OperationEntry, answer: { status: number; body: unknown }, mediaPointer: string): string[] {
    const validate = this.schemaAt(`${mediaPointer}/schema`)
    if (validate(answer.body)) return []
    const errors = validate.errors ?? []
    const found = toViolations('body', errors)
    // The schema path of each violation, by its pointer and keyword: toViolations keeps Ajv's order, one per pointer and message.
    const schemaPaths = new Map<string, string>()
    for (const error of errors) {
      const member =
        error.keyword === 'required' ? error.params.missingProperty : error.keyword === 'additionalProperties' ? error.params.additionalProperty : undefined
      const key = `/body${error.instancePath}${member === undefined ? '' : `/${String(member)}`} ${error.keyword}`
      if (!schemaPaths.has(key)) schemaPaths.set(key, error.schemaPath)
    }
    const { violations, unlisted } = summarizeViolations(found, undefined, { value: answer.body, prefix: '/body' })
    const label = `${entry.operationId} ${answer.status}`
    const lines = violations.map((violation) => {
      const exact = violation.first ?? violation.pointer
      const schemaPath = schemaPaths.get(`${exact} ${violation.keyword}`) ?? ''
      return `${label}: ${bodyPointer(violation.pointer)} ${violation.message}${violation.count === undefined ? '' : ` (${violation.count} times, first at ${bodyPointer(exact)})`} (schema ${schemaPath})`
    })
    if (unlisted > 0) lines.push(`${label}: and ${unlisted} more violations`)
    return lines
  }
}

/** A `/body/...` pointer as a pointer into the body (`/` for the body itself). */
function bodyPointer(pointer: string): string {
  return pointer.slice('/body'.length) || '/'
}

const byDocument = new WeakMap<OpenAPIObject, DocumentValidators>()

/** The validators of a document object, made on first use and kept as long as the document lives. */
export function validatorsFor(document: OpenAPIObject): DocumentValidators {
  let validators = byDocument.get(document)
  if (validators === undefined) {
    validators = new DocumentValidators(document)
    byDocument.set(document, validators)
  }
  return validators
}

export type { ErrorObject, ValidateFunction }
