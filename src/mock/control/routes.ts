import type { FastifyInstance } from 'fastify'
import { OWN_BODY_CHECK } from '../../../spec/control-plane/constants.ts'
import type { ProblemError } from '../../errors.ts'
import { ViolationTally, violationsProblem } from '../../document/violations.ts'
import { FixtureError } from '../../fixtures/load.ts'
import { controlPlaneDocument, listOperations } from '../../document/reader.ts'
import { fastifyPath, requestCheck, routeMethod } from '../../http/request-check.ts'
import { inTurn } from '../../http/steps.ts'
import type { ControlOperations, Handler, Handlers, RouteOf } from '../../wire/operations.ts'
import { readUpload } from './multipart.ts'
import { PACKAGE_VERSION } from '../../package-root.ts'
import { parseMatchParameter } from '../../journal/match.ts'
import { isStrict } from '../../http/warn.ts'

/**
 * A refused fixture as a 400 problem whose `violations` point into the fixture: merged, ranked and
 * capped as every list of violations is (src/document/violations.ts), so a fixture of a million bad
 * rows gets a short answer; `detail` counts them all. Each problem is a finding of its own (no
 * echoes to drop: two rules a value breaks are two problems).
 */
function fixtureProblem(error: FixtureError): ProblemError {
  const tally = new ViolationTally()
  // The root's pointer is the empty text; people read it better as "/" (violationText).
  tally.add(error.problems.map((p) => ({ pointer: p.path, keyword: 'fixture', message: p.message })))
  const summary = tally.summary()
  return violationsProblem(summary, 'BAD_FIXTURE', {}, (text) => `The fixture is refused: ${text}.`)
}

/** `GET /__mock/health`: up, with the versions; served whether the control plane is on or off. */
export const health: Handlers<ControlOperations>['getHealth'] = (request) => ({
  status: 'ok' as const,
  version: PACKAGE_VERSION,
  productVersion: request.server.mockConfig.productVersion,
})

/** Handlers by the control document's operationIds, each typed for its operation. */
const HANDLERS: Handlers<ControlOperations> = {
  getHealth: health,
  getControlPlaneDocument: (_request, reply) => reply.type('application/json; charset=utf-8').send(JSON.stringify(controlPlaneDocument())),
  // Both build (and write) the new data in slices: the clients beside them are answered meanwhile.
  resetMock: (request) => request.server.slicedControls.reset({ sessions: request.query.sessions === true }),
  loadFixture: async (request) => {
    try {
      return await request.server.slicedControls.loadFixture(request.body, {
        ...request.query,
        source: 'POST /__mock/fixture',
        confineFiles: true,
        strict: isStrict(request),
      })
    } catch (error) {
      throw error instanceof FixtureError ? fixtureProblem(error) : error
    }
  },
  exportState: (request) => request.server.controls.state(),
  uploadAttachments: async (request, reply) => {
    const input = await readUpload(request, request.server.mockConfig.uploadLimit)
    return reply.code(201).send(request.server.controls.addAttachment(input))
  },
  listEmails: (request) => {
    const emails = request.server.controls.emails()
    return { count: emails.length, emails }
  },
  clearEmails: (request) => ({ cleared: request.server.controls.clearEmails() }),
  listRequests: (request) => {
    const { match, ...filter } = request.query
    const parsed = parseMatchParameter(match)
    return request.server.journal.readSliced(parsed === undefined ? filter : { ...filter, match: parsed }, '/query/match')
  },
  listNearMisses: async (request) => {
    const { operationId, match, limit } = request.query
    const found = await request.server.journal.search({ operationId, match: parseMatchParameter(match) }, { nearMisses: limit ?? 3, at: '/query/match' })
    return { matched: found.matches.length, total: found.total, nearMisses: found.nearMisses }
  },
  clearRequests: (request) => ({ cleared: request.server.controls.clearRequests() }),
  readUsage: (request) => request.server.controls.usage(),
  listFaults: (request) => request.server.controls.faults(),
  setFaults: (request) => {
    const { rules, seed } = request.body
    return request.server.controls.setFaults(rules, seed === undefined ? {} : { seed })
  },
  clearFaults: (request) => ({ cleared: request.server.controls.clearFaults() }),
  // The list's text is written in slices (a table may hold 16 MB of rules); the same JSON `controls.stubs()` gives.
  listStubs: async (request, reply) => reply.type('application/json; charset=utf-8').send(await request.server.rules.answers.listText()),
  // Compiled in slices (a pattern of a thousand expressions took most of a second); the same checks as `controls.stub()`.
  addStub: async (request, reply) => reply.code(201).send(await request.server.rules.answers.addSliced(request.body)),
  removeStub: (request) => request.server.controls.removeStub(request.params.id),
  clearStubs: (request) => ({ cleared: request.server.controls.clearStubs() }),
  listLocks: (request) => request.server.controls.locks(),
  lockRows: (request) => request.server.controls.lock(request.body),
  unlockRows: (request) => request.server.controls.unlock(request.body),
  readClock: (request) => request.server.controls.clock(),
  advanceClock: (request) => {
    const body = request.body
    return request.server.controls.advanceClock(body.advanceMs ?? (body.advanceSeconds ?? 0) * 1000)
  },
}

function hasHandler(id: string): id is keyof ControlOperations {
  return Object.hasOwn(HANDLERS, id)
}

/**
 * Registers one plain route per operation of the control-plane document, its query and JSON body
 * checked against the document before the handler runs (400 naming each field; members the
 * document does not name are refused). Validators are compiled here, at start.
 */
export function registerControlRoutes(scope: FastifyInstance): void {
  const document = controlPlaneDocument()
  for (const entry of listOperations(document)) {
    const id = entry.operationId
    if (!hasHandler(id)) throw new Error(`control operation ${id} (${entry.method.toUpperCase()} ${entry.path}) has no handler`)
    const handler = HANDLERS[id] as Handler<ControlOperations, typeof id>
    scope.route<RouteOf<ControlOperations, typeof id>>({
      method: routeMethod(entry),
      url: fastifyPath(entry.path),
      config: { controlOperationId: id },
      preHandler: inTurn([requestCheck(document, entry, { skipBody: OWN_BODY_CHECK.has(id) })]),
      handler,
    })
  }
}
