import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ProblemError, type ProblemCode } from '../errors.ts'

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

/** Writes a problem as `application/problem+json`. */
export function sendProblem(reply: FastifyReply, problem: ProblemError, request: FastifyRequest): FastifyReply {
  return reply
    .code(problem.status)
    .type('application/problem+json; charset=utf-8')
    .send(JSON.stringify(problem.toBody(request.url.split('?')[0])))
}

/** The one place where errors become replies: ProblemError, Fastify's own errors, anything else as 500. */
export function registerErrorHandling(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((error, request, reply) => {
    const problem = toProblem(error, bodyLimit)
    if (problem.code === 'INTERNAL') request.log.error({ err: error }, 'unexpected error')
    return sendProblem(reply, problem, request)
  })
  app.setNotFoundHandler((request, reply) =>
    sendProblem(reply, new ProblemError('NOT_FOUND', `${request.method} ${request.url.split('?')[0]} is not an endpoint of this release (${app.profile.version}).`), request),
  )
}
