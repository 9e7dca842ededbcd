import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ProblemError } from '../errors.ts'
import { addPayloadTap } from './ready-answer.ts'
import {
  STRICT_HEADER,
  strictFromHeader,
  WARNINGS,
  WARNINGS_HEADER,
  type InformationalWarning,
  type MockWarning,
  type RefusableWarning,
  type WarningCode,
} from '../policy/warnings.ts'

declare module 'fastify' {
  interface FastifyRequest {
    /** Warnings this request raised so far; null until the first (decorated null, set by `warnOrRefuse`). */
    mockWarnings: MockWarning[] | null
  }
}

/** Whether this request is handled strictly: the mock's setting, unless the request's header says otherwise. */
export function isStrict(request: FastifyRequest): boolean {
  return strictFromHeader(request.headers[STRICT_HEADER], request.server.requestPath.strict)
}

/**
 * The request relies on something the API's description does not promise: in the default
 * (lenient) mode the warning is recorded and the request goes on; in strict mode it is refused
 * (throws the 400 `STRICT_MODE` problem). The name says both, so a handler that calls it reads as
 * what it is: a point where the request may end. Call it before anything is written.
 */
export function warnOrRefuse(request: FastifyRequest, code: RefusableWarning, message: string): void {
  if (isStrict(request)) {
    throw new ProblemError(
      'STRICT_MODE',
      `${message} ${WARNINGS[code]} The API's description does not promise this, so strict mode refuses it (warning ${code}).`,
      {
        warning: code,
      },
    )
  }
  record(request, code, message)
}

/**
 * Records an informational warning, in strict mode too: the request goes on whatever the mode
 * (a 503 a fault rule injects is what the test asked for, not a promise the client relies on).
 * Its own function, typed for those codes alone, so no refusable warning can slip past strict mode.
 */
export function noteWarning(request: FastifyRequest, code: InformationalWarning, message: string): void {
  record(request, code, message)
}

function record(request: FastifyRequest, code: WarningCode, message: string): void {
  request.mockWarnings ??= []
  request.mockWarnings.push({ code, message })
}

/**
 * Reports the warnings of each request in the `X-Mock-Warnings` response header (the codes, in
 * order, each once), for answers sent through Fastify and answers written as ready bytes alike;
 * the request's log line names them at warn level; the journal records them with the exchange.
 */
export function registerWarnings(app: FastifyInstance): void {
  app.decorateRequest('mockWarnings', null)
  addPayloadTap(app, setWarningsHeader)
}

/** The request's warnings in `X-Mock-Warnings`, when it raised any. */
function setWarningsHeader(request: FastifyRequest, reply: FastifyReply): void {
  const warnings = request.mockWarnings
  if (warnings !== null) reply.header(WARNINGS_HEADER, [...new Set(warnings.map((w) => w.code))].join(', '))
}
