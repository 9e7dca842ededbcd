import Fastify, { LogController, type FastifyInstance } from 'fastify'
import cors from '@fastify/cors'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import type { MockConfig } from './config.ts'
import type { MockClock } from '../deps.ts'
import { resolveProfile } from '../../spec/profiles.ts'
import { controlPlaneDocument, releaseDocument, servedDocument } from '../document/reader.ts'
import { modeOf } from '../document/modes.ts'
import { frameworkProblem, registerErrorHandling, sendProblem } from '../http/problems.ts'
import { registerLimits } from './plugins/limits.ts'
import { registerFormBody } from './plugins/form-body.ts'
import { registerDocs } from './plugins/docs.ts'
import { markInFlight, registerJournal } from './plugins/journal.ts'
import { answerRuleStep, registerRules } from './plugins/rules.ts'
import { registerHolds } from './plugins/holds.ts'
import { registerWarnings } from '../http/warn.ts'
import { registerReadyAnswers } from '../http/ready-answer.ts'
import { registerRequestContext } from '../http/context.ts'
import { registerJsonBody } from '../http/json-body.ts'
import { registerAllowedMethods } from './plugins/allowed-methods.ts'
import { registerHostCheck } from './plugins/host-check.ts'
import { registerUsage } from './plugins/usage-recorder.ts'
import { MOCK_HEADER } from '../wire/mock-header.ts'
import { lazyRequestLogger, logSetup, registerRequestLog } from './logging.ts'
import type { ServerTls } from './tls.ts'
import { WARNINGS_HEADER, STRICT_HEADER } from '../policy/warnings.ts'
import { registerControlPlane } from './control/index.ts'
import { controlPlaneAccess, isControlUrl } from '../policy/control-access.ts'
import { registerOperations } from '../operations/index.ts'
import { registerRowLinks } from '../operations/open-row-link.ts'
import { createOutbox } from '../store/outbox.ts'
import { createTokenStore } from '../http/auth/tokens.ts'
import { createStore } from '../store/store.ts'
import { rowGenerator } from '../fixtures/generate.ts'
import type { Deps, Fixture } from '../store/model/types.ts'
import type { LogStream } from './running-mock.ts'

declare module 'fastify' {
  interface FastifyInstance {
    mockConfig: MockConfig
  }
}

/** What `buildApp` needs besides the configuration. */
export interface AppDeps extends Deps {
  clock: MockClock
  /** Where log lines go; standard output when absent. */
  logStream?: LogStream
  /** Serve HTTPS with this certificate and key (see `serverTls`); plain HTTP when absent. */
  tls?: ServerTls
}

/**
 * How long a close lets requests in flight finish before it closes their connections with no
 * answer: one a rule holds (a fault's latency, a rule's delay: plugins/holds.ts, its timer cleared),
 * a big save being planned, a client still sending its body or one that gave up without closing its
 * connection. So `close()` resolves within about this long whatever the clients do.
 */
export const CLOSE_GRACE_MS = 1000

/** Fastify's schema compilers for the mock: a route that declares a schema fails to register, saying why. */
function noRouteSchemas(): never {
  throw new Error('a route of the mock declares a Fastify schema: requests are checked against the API document (src/document/validators.ts), not by Fastify')
}

/**
 * Builds the mock for one release and one fixture: routes and validators from the document,
 * the store, tokens, limits and the documentation page. Never listens; `server.ts` and
 * `startMock()` do.
 */
export async function buildApp(config: MockConfig, fixture: Fixture, deps: AppDeps): Promise<FastifyInstance> {
  const log = await logSetup(config, deps.logStream)
  const app = Fastify({
    logger: log.logger,
    // One line per request, written by registerRequestLog with the operation and the problem code.
    logController: new LogController({ disableRequestLogging: true }),
    // No pino child per request unless something logs through `request.log` (see lazyRequestLogger).
    childLoggerFactory: lazyRequestLogger,
    ...(deps.tls === undefined ? {} : { https: { cert: deps.tls.cert, key: deps.tls.key } }),
    bodyLimit: config.bodyLimit,
    // Members named `__proto__` or `constructor` are valid JSON: they stay own members (JSON.parse
    // never sets a prototype) and meet the same checks as any other unknown member, not a 400 BAD_JSON.
    onProtoPoisoning: 'ignore',
    onConstructorPoisoning: 'ignore',
    // Node's default header limit (16 KB) would answer 431 for long URLs before the 414 that explains.
    http: { maxHeaderSize: 1024 * 1024 },
    // A path parameter may be as long as the URL may be; longer URLs get the 414 that explains.
    // Paths match in any case, as the product's routing does (`/ExplorerApi/api/Items/save` too);
    // path parameters keep the case they were sent in.
    routerOptions: { maxParamLength: config.maxUrlLength, ignoreTrailingSlash: true, caseSensitive: false },
    frameworkErrors: (error, request, reply) => sendProblem(reply, frameworkProblem(error, request.url, config.maxUrlLength), request),
    // Requests are checked against the API document by the mock's own validators and answers are
    // written by its operations: no route gives Fastify a schema. Fastify would otherwise load its
    // own compilers (Ajv with JTD, fast-json-stringify) for every instance, a third of a first start.
    schemaController: { compilersFactory: { buildValidator: noRouteSchemas, buildSerializer: noRouteSchemas } },
  })
  const document = releaseDocument(config.productVersion)
  // What the mock's clients read: the document of its own mode and release, which says exactly what it accepts (built at the first read).
  const served = (): OpenAPIObject => servedDocument(config.productVersion, modeOf(config.strict))

  app.decorate('store', createStore(fixture, deps, rowGenerator))
  // An older fixture still loads; say once, at start, what it should change (type names, value forms).
  for (const notice of fixture.notices ?? []) app.log.warn(notice)
  app.decorate('tokens', createTokenStore(deps, config.tokenTtl, config.maxSessions))
  app.decorate('profile', resolveProfile(config.productVersion))
  app.decorate('mockConfig', config)
  app.decorate('clock', deps.clock)
  app.decorate('outbox', createOutbox())
  registerRequestContext(app, { strict: config.strict, publicUrl: config.publicUrl })
  // Hooks that change payloads (usage recording, deviations) need every page whole: no ready writes then.
  registerReadyAnswers(app, config.deviate.length === 0 && config.recordUsage === undefined)

  // On arrival, one hook for three jobs (each hook is a pass of Fastify's runner for every request):
  // every answer names the mock and the release it emulates, so `verify` knows it also may check
  // the mock's own choices; the request is stamped with the data's epoch, so none of its writes
  // lands in data a later reset or fixture load put in place; and an API exchange is marked in
  // flight for the journal. Both before any fault rule can delay the request.
  const store = app.store
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(MOCK_HEADER, config.productVersion)
    request.dataEpoch = store.epoch()
    markInFlight(request, reply)
    done()
  })
  // At close, idle connections are closed at once (Fastify) and busy ones after the grace: a client
  // that keeps a request open (it gave up without closing its connection) cannot hold the close.
  app.addHook('preClose', (done) => {
    const cut = setTimeout(() => {
      app.holds.cutAll()
      app.server.closeAllConnections()
    }, CLOSE_GRACE_MS)
    cut.unref()
    app.server.once('close', () => clearTimeout(cut))
    done()
  })
  registerRequestLog(app, config.logLevel, log.json)
  // Before anything else answers: a page that rebound its name to this machine gets nothing but the 403.
  registerHostCheck(app, config)
  registerAllowedMethods(app)
  if (config.cors !== undefined) await registerCors(app, config.cors)
  registerErrorHandling(app, config.bodyLimit)
  registerLimits(app, config.maxUrlLength)
  registerFormBody(app)
  registerJsonBody(app)
  registerWarnings(app)
  // The journal and the rules (fault and answer rules) hook every API route, so they come before
  // the routes; the control plane needs both. The journal keeps an answer as a rule patched it
  // (payload changes run before the taps that read answers, http/ready-answer.ts), and its
  // in-flight mark is the arrival hook's, above every fault.
  registerJournal(app, { capacity: config.journalLimit, bodyLimit: config.journalBodyLimit })
  registerHolds(app)
  registerRules(app, { randomSeed: () => Buffer.from(deps.randomBytes(4)).readUInt32BE(0), document, strict: config.strict })
  // Before the routes, so their hooks wrap the normal handlers. Loaded only when asked for: a mock
  // without --deviate has neither the module nor any of its hooks.
  if (config.deviate.length > 0) (await import('../deviate/deviations.ts')).installDeviations(app, config.deviate)
  // After the deviations, so that what is recorded is what the client received; only when asked for.
  app.decorate('usage', config.recordUsage === undefined ? null : registerUsage(app, config.recordUsage))
  await registerControlPlane(app, fixture)
  await registerDocs(app, served, controlPlaneAccess(config).enabled ? controlPlaneDocument() : undefined)
  registerOperations(app, document, answerRuleStep(app.rules))
  registerRowLinks(app)
  return app
}

/**
 * Browser calls from the given origins (`*` for any), preflights included, for every API route
 * (@fastify/cors answers OPTIONS itself), never for the control plane. The request headers are
 * those the API and the mock take; the exposed ones let a page read the mock's warnings and a
 * download's file name.
 */
async function registerCors(app: FastifyInstance, origins: string[]): Promise<void> {
  const allowed = origins.includes('*') ? '*' : origins
  const options = {
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'],
    allowedHeaders: ['SessionToken', 'WorkspaceId', 'ApplicationId', 'Authorization', 'Content-Type', 'Accept', STRICT_HEADER],
    exposedHeaders: [WARNINGS_HEADER, 'Content-Disposition', MOCK_HEADER, 'Allow', 'Retry-After'],
    maxAge: 600,
  }
  await app.register(cors, {
    hook: 'onRequest',
    // The control plane can read every fixture's passwords and replace the data: no browser page may call it.
    delegator: (request, callback) => callback(null, { ...options, origin: isControlUrl(request.url) ? false : allowed }),
  })
}
