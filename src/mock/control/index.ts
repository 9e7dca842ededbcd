import type { FastifyInstance } from 'fastify'
import multipart from '@fastify/multipart'
import { CONTROL_PREFIX } from '../../../spec/control-plane/constants.ts'
import { ProblemError } from '../../errors.ts'
import type { Fixture } from '../../store/model/types.ts'
import { controlPlaneAccess, controlRequestRefusal, controlTokenMatches, presentedControlToken } from '../../policy/control-access.ts'
import { createControls, createSlicedControls, type MockControls, type SlicedControls, type StartData } from '../service/controls.ts'
import { runInSlices, yieldTurn } from '../../http/json-slices.ts'
import { health, registerControlRoutes } from './routes.ts'
import { CONSOLE_OPERATION, registerConsole } from './console.ts'
import { CONTROL_JSON_LIMITS, jsonBeyondLimits } from '../../http/json-limits.ts'

/** Control operations served without the control token. */
const OPEN_OPERATIONS = new Set(['getControlPlaneDocument', 'getHealth', CONSOLE_OPERATION])

export type { MockControls } from '../service/controls.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The control plane's methods; present even with `--no-control-plane`, which only closes the HTTP side. */
    controls: MockControls
    /** The reset and fixture load as the HTTP routes run them, in slices. */
    slicedControls: SlicedControls
    /** What a reset returns to (set once more at start when the state file's data was written anew). */
    startData: StartData
  }
  interface FastifyContextConfig {
    /** Set on control-plane routes instead of `operationId`, so fault rules and the journal leave them alone. */
    controlOperationId?: string
  }
}

/**
 * The control plane: decorates `app.controls` (always: in-process use needs no HTTP) and, when
 * `controlPlaneAccess` allows it, registers `/__mock/...` in its own encapsulated scope, so
 * multipart parsing and the control-token check touch no API route. When it is off, every
 * `/__mock/` path answers 404 saying why. Call after the store, outbox, journal, faults and clock
 * are decorated; `startFixture` is what a reset returns to.
 */
export async function registerControlPlane(app: FastifyInstance, startFixture: Fixture): Promise<void> {
  const start: StartData = { fixture: startFixture }
  app.decorate('startData', start)
  const controls = createControls(app, start)
  app.decorate('controls', controls)
  app.decorate('slicedControls', createSlicedControls(app, start, yieldTurn))
  const access = controlPlaneAccess(app.mockConfig)
  if (!access.enabled) {
    if (app.mockConfig.controlPlane) app.log.warn(`control plane off: ${access.reason}`)
    const off = async (): Promise<never> => {
      throw new ProblemError('NOT_FOUND', `The control plane is off: ${access.reason}.`)
    }
    // Scripts wait for the mock on its health, whether the control plane is on or not.
    app.get(`${CONTROL_PREFIX}/health`, { config: { controlOperationId: 'getHealth' } }, health)
    app.all(CONTROL_PREFIX, off)
    app.all(`${CONTROL_PREFIX}/*`, off)
    return
  }
  await app.register(async (scope) => {
    // First of the scope's hooks: no page of another site reaches a handler, and no body but JSON (or an upload's) is read.
    const publicOrigin = app.mockConfig.publicUrl === undefined ? undefined : new URL(app.mockConfig.publicUrl).origin
    scope.addHook('onRequest', (request, _reply, done) => done(controlRequestRefusal(request, publicOrigin)))
    scope.removeContentTypeParser(['application/x-www-form-urlencoded', 'text/plain'])
    await scope.register(multipart, { throwFileSizeLimit: true, limits: { fileSize: app.mockConfig.uploadLimit } })
    // Scripts often send `Content-Type: application/json` with no body to reset or clear; that is no error here.
    scope.removeContentTypeParser('application/json')
    // Held first to the control plane's nesting and members limits, scanned in slices (src/http/json-limits.ts): this
    // parser hands the whole text to JSON.parse, which spent 10 s on 40 MB of `[` in the API's parser.
    scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
      const text = body as string
      if (text.trim() === '') return done(null, undefined)
      runInSlices(jsonBeyondLimits(text, CONTROL_JSON_LIMITS)).then((beyond) => {
        if (beyond !== undefined) return done(beyond)
        try {
          done(null, JSON.parse(text))
        } catch (error) {
          done(new ProblemError('BAD_JSON', `The body is not JSON: ${(error as Error).message}`))
        }
      }, done)
    })
    const token = access.token
    if (token !== undefined) {
      scope.addHook('onRequest', async (request) => {
        // The document, the health and the console's files hold nothing secret; the docs page, the console and waiting scripts fetch them without credentials.
        if (OPEN_OPERATIONS.has(request.routeOptions.config?.controlOperationId ?? '')) return
        if (!controlTokenMatches(presentedControlToken(request.headers), token)) {
          throw new ProblemError('CONTROL_TOKEN', 'Send the control token (--control-token) in Authorization: Bearer <token> or X-Mock-Control-Token.')
        }
      })
    }
    registerControlRoutes(scope)
    registerConsole(scope)
  })
}
