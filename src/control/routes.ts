import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ProblemError } from '../errors.ts'
import { FixtureError } from '../fixtures/load.ts'
import { listOperations } from '../profile.ts'
import { compileRequestValidator } from '../validation/requests.ts'
import { controlSchemas, validationProblem } from './document.ts'
import type { MockControls } from './controls.ts'
import type { FaultRuleInput } from './faults.ts'
import type { JournalFilter } from './journal.ts'
import { readUpload } from './multipart.ts'

type ControlHandler = (request: FastifyRequest, reply: FastifyReply, controls: MockControls) => Promise<unknown> | unknown

/** A refused fixture as a 400 problem whose `violations` point into the fixture. */
function fixtureProblem(error: FixtureError): ProblemError {
  const violations = error.problems.map((p) => ({ pointer: p.path, keyword: 'fixture', message: p.message }))
  // The root's pointer is the empty text; people read it better as "/".
  const shown = error.problems.slice(0, 3).map((p) => `${p.path === '' ? '/' : p.path} ${p.message}`)
  const more = error.problems.length > 3 ? ` (and ${error.problems.length - 3} more)` : ''
  return new ProblemError('BAD_FIXTURE', `The fixture is refused: ${shown.join('; ')}${more}.`, { violations })
}

/** Handlers by the control document's operationIds; every operation there must have one (checked at boot). */
const HANDLERS: Record<string, ControlHandler> = {
  resetMock: (_request, _reply, controls) => controls.reset(),
  loadFixture: (request, _reply, controls) => {
    const query = request.query as { rows?: number; seed?: number }
    try {
      return controls.loadFixture(request.body, { ...query, source: 'POST /__mock/fixture', confineFiles: true })
    } catch (error) {
      throw error instanceof FixtureError ? fixtureProblem(error) : error
    }
  },
  uploadAttachments: async (request, reply, controls) => {
    const input = await readUpload(request, request.server.mockConfig.uploadLimit)
    return reply.code(201).send(controls.addAttachment(input))
  },
  listEmails: (_request, _reply, controls) => {
    const emails = controls.emails()
    return { count: emails.length, emails }
  },
  clearEmails: (_request, _reply, controls) => ({ cleared: controls.clearEmails() }),
  listRequests: (request) => request.server.journal.read(request.query as JournalFilter),
  clearRequests: (_request, _reply, controls) => ({ cleared: controls.clearRequests() }),
  listFaults: (_request, _reply, controls) => controls.faults(),
  setFaults: (request, _reply, controls) => {
    const body = request.body as { rules: FaultRuleInput[]; seed?: number }
    return controls.setFaults(body.rules, body.seed === undefined ? {} : { seed: body.seed })
  },
  clearFaults: (_request, _reply, controls) => ({ cleared: controls.clearFaults() }),
  readClock: (_request, _reply, controls) => controls.clock(),
  advanceClock: (request, _reply, controls) => {
    const body = request.body as { advanceMs?: number; advanceSeconds?: number }
    return controls.advanceClock(body.advanceMs ?? (body.advanceSeconds ?? 0) * 1000)
  },
}

/** `/a/{b}` as Fastify writes it. */
function fastifyPath(path: string): string {
  return path.replace(/\{([^}]+)\}/g, ':$1')
}

/**
 * Registers one route per operation of the control-plane document, with its query and JSON body
 * checked against the document before the handler runs (400 naming each field). The upload's
 * multipart body and the fixture body are checked by their handlers.
 */
export function registerControlRoutes(scope: FastifyInstance, controls: MockControls): void {
  const { document, ajv } = controlSchemas()
  const documentJson = JSON.stringify(document)
  for (const entry of listOperations(document)) {
    const { operationId } = entry
    const isDocument = operationId === 'getControlPlaneDocument'
    const handler = isDocument ? undefined : HANDLERS[operationId]
    if (!isDocument && handler === undefined) throw new Error(`control operation ${operationId} has no handler in src/control/routes.ts`)
    // The upload's parts are checked once read; a fixture by the fixture loader, whose refusals name paths in the fixture.
    const ownBodyCheck = operationId === 'uploadAttachments' || operationId === 'loadFixture'
    const { requestBody: _body, ...withoutBody } = entry.operation
    const validate = compileRequestValidator(document, ownBodyCheck ? { ...entry, operation: withoutBody } : entry, ajv)
    scope.route({
      method: entry.method.toUpperCase() as 'GET',
      url: fastifyPath(entry.path),
      config: { controlOperationId: operationId },
      preHandler: async (request) => {
        const violations = validate(request)
        if (violations.length > 0) throw validationProblem(violations)
      },
      handler: async (request, reply) => {
        if (isDocument) return reply.type('application/json; charset=utf-8').send(documentJson)
        return (handler as ControlHandler)(request, reply, controls)
      },
    })
  }
}
