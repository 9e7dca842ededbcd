import type { FastifyInstance } from 'fastify'
import { DEFAULTS, emulatedRelease, type MockConfig } from './config.ts'
import { ConfigError } from '../cli-base/exit.ts'
import { buildApp } from './app.ts'
import { createClock, systemDeps } from '../deps.ts'
import { dirname } from 'node:path'
import { loadFixture, parseFixture } from '../fixtures/load.ts'
import { withGeneratedRows } from '../fixtures/generate.ts'
import type { Fixture } from '../store/model/types.ts'
import type { RunningMock, StartOptions } from './running-mock.ts'
import { createClient } from '../client/client.ts'
import { httpTransport } from '../wire/transport.ts'
import { serverTls } from './tls.ts'
import { readState } from '../state/restore.ts'
import { keepState } from '../state/keeper.ts'
import { yieldTurn } from '../http/json-slices.ts'

export type { StartOptions }

/** A RunningMock as the package's own code and tests see it: the Fastify app with its decorations typed. */
export interface LaunchedMock extends RunningMock {
  app: FastifyInstance
}

/**
 * Loads the fixture named by the configuration (or given as an object) and adds the generated
 * rows it asks for.
 */
export function prepareFixture(config: MockConfig, given?: unknown): Fixture {
  // --strict refuses a fixture whose rows break their fields' rules; otherwise they load, with a warning each.
  const options = { ...(config.timeZone === undefined ? {} : { timeZone: config.timeZone }), strict: config.strict }
  const fixture = given === undefined ? loadFixture(config.fixture, options) : parseFixture(given, 'fixtureData', dirname(DEFAULTS.fixture), options)
  return config.rows > 0 ? withGeneratedRows(fixture, { rows: config.rows, seed: config.seed }) : fixture
}

/**
 * Starts the mock and resolves when it listens. `port: 0` picks a free port; the URL tells which.
 * @example
 * const mock = await startMock({ port: 0 })
 * await fetch(`${mock.url}/identityprovider/acme/connect/token`, { method: 'POST', body: form })
 * await mock.close()
 */
export async function startMock(options: StartOptions = {}): Promise<LaunchedMock> {
  const { fixtureData, deps, logStream, ...overrides } = options
  const productVersion = emulatedRelease(overrides.productVersion ?? DEFAULTS.productVersion)
  const config: MockConfig = { ...DEFAULTS, ...overrides, productVersion, port: overrides.port ?? 0 }
  const clock = createClock(deps?.now)
  const base = deps ?? systemDeps(clock)
  const tls = await serverTls(config)
  // With a state file that exists, its data instead (its change log is replayed once the store is built).
  const restored = config.stateFile === undefined ? undefined : readState(config.stateFile, config.timeZone)
  const app = await buildApp(config, restored?.fixture ?? prepareFixture(config, fixtureData), {
    ...base,
    now: clock.now,
    clock,
    ...(logStream === undefined ? {} : { logStream }),
    ...(tls === undefined ? {} : { tls }),
  })
  let state
  try {
    // Before listening: a state file that cannot be written stops the start.
    state =
      config.stateFile === undefined
        ? undefined
        : keepState(app.store, config.stateFile, {
            intervalSeconds: config.stateInterval,
            sync: config.stateSync,
            restored,
            ...(config.timeZone === undefined ? {} : { timeZone: config.timeZone }),
            log: { info: (message) => app.log.info(message), warn: (message) => app.log.warn(message), error: (message) => app.log.error(message) },
            pause: yieldTurn,
          })
    // Replayed changes or a converted file: a reset returns to the data as the start wrote it anew.
    if (state?.startFixture !== undefined) app.startData.fixture = state.startFixture
  } catch (error) {
    restored?.snapshot?.close()
    await app.close()
    throw error
  }
  try {
    // Fastify's own line says where the socket is; the mock's "listening on" line comes from its caller.
    await app.listen({ port: config.port, host: config.host, listenTextResolver: (address) => `socket open at ${address}` })
  } catch (error) {
    state?.stop()
    await app.close()
    throw listenError(error, config)
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : config.port
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  const url = `${tls === undefined ? 'http' : 'https'}://${host}:${port}`
  const organization = app.store.organization()
  const client = createClient({
    transport: httpTransport(url, tls === undefined ? {} : { ca: tls.cert }),
    productVersion: config.productVersion,
    organization: organization.physicalName,
    clientId: organization.clientId,
    legacyClientId: organization.legacyClientId,
    ...(organization.workspaces[0] === undefined
      ? {}
      : { workspaceId: organization.workspaces[0].id, applicationId: organization.workspaces[0].applicationIds[0] }),
  })
  return {
    ...app.controls,
    url,
    port,
    tls: tls === undefined ? undefined : { cert: tls.cert, fingerprint256: tls.fingerprint256, selfSigned: tls.selfSigned },
    client,
    app,
    config,
    saveState: () => state?.flush(),
    saveUsage: () => app.usage?.write(),
    async close() {
      await client.transport.close()
      await app.close()
      // After the close, which lets requests in flight finish: their writes are in the file too.
      const failed = [state?.stop(), app.usage?.write()].filter((reason) => reason !== undefined)
      if (failed.length > 0) throw new Error(failed.join('; '))
    },
  }
}

/** A port that cannot be had, said in one line that names it; anything else as it came. */
function listenError(error: unknown, config: MockConfig): unknown {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'EADDRINUSE')
    return new ConfigError(`port ${config.port} on ${config.host} is in use; stop what listens there or pick another with --port (or PORT)`)
  if (code === 'EACCES') return new ConfigError(`port ${config.port} on ${config.host} may not be used by this user; pick one above 1023 with --port`)
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new ConfigError(`--host ${config.host} is not an address of this machine`)
  return error
}
