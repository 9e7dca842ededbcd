import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ProblemError, type ProblemCode } from '../errors.ts'
import { SequenceExhausted } from '../store/sequence.ts'
import { DataReplaced } from '../store/epoch.ts'
import { wrongTypeProblem } from './body-checks.ts'

/** Fastify's own errors that a client can cause, as catalog codes. */
const FASTIFY_CODES: Record<string, ProblemCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_JSON_BODY: 'BAD_JSON',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'BAD_JSON',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'BAD_BODY',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'BAD_BODY',
  FST_ERR_CTP_INVALID_TYPE: 'BAD_BODY',
}

/** Any thrown value as the one error type the mock replies with. */
export function toProblem(error: unknown, bodyLimit: number): ProblemError {
  if (error instanceof ProblemError) return error
  // The store cannot name a problem (it knows no HTTP); a sequence at its end is this one.
  if (error instanceof SequenceExhausted) return new ProblemError('SEQUENCE_EXHAUSTED', error.message)
  if (error instanceof DataReplaced) return new ProblemError('DATA_REPLACED', error.message)
  const fastifyError = error as Partial<FastifyError>
  const code = fastifyError.code === undefined ? undefined : FASTIFY_CODES[fastifyError.code]
  if (code === 'PAYLOAD_TOO_LARGE') {
    return new ProblemError(code, `The request body is larger than the limit of ${bodyLimit} bytes (60 MB by default).`, { limit: bodyLimit })
  }
  if (code !== undefined) return new ProblemError(code, fastifyError.message ?? 'The request body could not be read.')
  // A client that sends something Fastify cannot parse gets a 4xx with Fastify's own words.
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return new ProblemError('BAD_BODY', fastifyError.message ?? 'The request could not be read.')
  }
  return new ProblemError('INTERNAL', 'The mock failed unexpectedly; see its log.')
}

/**
 * The longest path a problem's `instance` holds: the default URL limit, so every URL the mock
 * accepts is named in full. A longer one (a 414, or a mock started with a larger limit) is left
 * out, so an answer never grows with the URL a client sent.
 */
const INSTANCE_LIMIT = 2048

/** The most characters of a path a problem's `detail` quotes. */
const QUOTE_LIMIT = 200

/**
 * The request path as a problem's `instance`: a URI reference, so characters clients send
 * unencoded (`[`, `|`, `^`, spaces, non-ASCII) and a `%` that starts no escape are encoded.
 * Undefined for a path too long to repeat.
 */
export function problemInstance(url: string): string | undefined {
  const path = url.split('?')[0] ?? ''
  if (path.length > INSTANCE_LIMIT) return undefined
  const instance = path.replace(/%(?![0-9A-Fa-f]{2})|[^A-Za-z0-9\-._~!$&'()*+,;=:@/%]/gu, (c) => encodeURIComponent(c))
  return instance.length > INSTANCE_LIMIT ? undefined : instance
}

/** A path as a problem's `detail` quotes it: its start and its length when it is long. */
export function quotedPath(path: string): string {
  return path.length <= QUOTE_LIMIT ? path : `${path.slice(0, QUOTE_LIMIT)}… (${path.length} characters)`
}

/** Writes a problem as `application/problem+json`. */
export function sendProblem(reply: FastifyReply, problem: ProblemError, request: FastifyRequest): FastifyReply {
  if (problem.code === 'METHOD_NOT_ALLOWED' && typeof problem.extra.allow === 'string') reply.header('allow', problem.extra.allow)
  reply.problemCode = problem.code
  return reply
    .code(problem.status)
    .type('application/problem+json; charset=utf-8')
    .send(JSON.stringify(problem.toBody(problemInstance(request.url))))
}

/**
 * Fastify's router refuses some URLs before any hook runs (a malformed percent-escape, a path
 * segment longer than the router allows); they get problems like every other refusal.
 */
export function frameworkProblem(error: FastifyError, url: string, maxUrlLength: number): ProblemError {
  if (url.length > maxUrlLength) {
    return new ProblemError('URI_TOO_LONG', `The URL has ${url.length} characters; the limit is ${maxUrlLength}.`, { limit: maxUrlLength })
  }
  if (error.code === 'FST_ERR_BAD_URL') return new ProblemError('BAD_URL', 'The URL path has a malformed percent-escape.')
  return new ProblemError('BAD_URL', error.message)
}

/** The one place where errors become replies: ProblemError, Fastify's own errors, anything else as 500. */
export function registerErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((error, request, reply) => {
    // A method the path lacks is a 404 even when its body does not parse: Fastify parses
    // the body before the not-found handler would run. A refusal of the mock's own onRequest
    // hooks (the URL limit, the Host check) stands whatever the path: it is decided before the
    // route matters, so a 3,000-character unknown path gets the 414, not a 404.
    const problem =
      request.is404 && !decidedBeforeRoute(error)
        ? notFound(app, request)
        : (error as Partial<FastifyError>).code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE'
          ? wrongTypeProblem(request)
          : toProblem(error, bodyLimit)
    if (problem.code === 'INTERNAL') request.log.error({ err: error }, 'unexpected error')
    return sendProblem(reply, problem, request)
  })
  app.setNotFoundHandler((request, reply) => sendProblem(reply, notFound(app, request), request))
}

/** Refusals of the onRequest hooks, which hold on any path (a body that does not parse does not: an unknown path stays a 404). */
function decidedBeforeRoute(error: unknown): boolean {
  return error instanceof ProblemError && (error.code === 'URI_TOO_LONG' || error.code === 'FOREIGN_HOST')
}

/**
 * No route for this method and path: 405 with the methods the path has in `Allow` when some
 * route serves the path (RFC 9110, section 15.5.6), else 404.
 */
function notFound(app: FastifyInstance, request: FastifyRequest): ProblemError {
  const path = request.url.split('?')[0] ?? ''
  const allowed = app.allowedMethods(path)
  if (allowed.length > 0) {
    const allow = allowed.sort().join(', ')
    return new ProblemError('METHOD_NOT_ALLOWED', `${request.method} is not served on ${quotedPath(path)}; it takes ${allow}.`, { allow })
  }
  return new ProblemError('NOT_FOUND', `${request.method} ${quotedPath(path)} is not an endpoint of this release (${app.profile.version}).`)
}
