import type { FastifyInstance } from 'fastify'
import { ConfigError, DEFAULTS, emulatedRelease, type MockConfig } from './config.ts'
import { buildApp } from './app.ts'
import { createClock, systemDeps } from './deps.ts'
import { dirname } from 'node:path'
import { loadFixture, parseFixture } from './fixtures/load.ts'
import { withGeneratedRows } from './fixtures/generate.ts'
import type { FixtureFile } from './fixtures/file-format.ts'
import type { Deps, Fixture } from './store/types.ts'
import type { MockControls } from './control/index.ts'
import { createClient, type Client } from './client/client.ts'
import { httpTransport } from './client/transport.ts'
import { serverTls, type ServerTls } from './tls.ts'
import { keepStateFile, readStateFile } from './state-file.ts'

/**
 * A mock listening on a port, as `startMock()` returns it, with the control plane's methods
 * (`reset()`, `loadFixture()`, `emails()`, `requests()`, `setFaults()`, `advanceClock()`, ...)
 * for tests that steer it without HTTP.
 */
export interface RunningMock extends MockControls {
  /** Base URL, e.g. `http://127.0.0.1:4080` (`https://` with `tls`). */
  url: string
  port: number
  /**
   * With `tls`: the certificate served (PEM) and its SHA-256 fingerprint, for clients that must
   * trust it (`new https.Agent({ ca: mock.tls.cert })`); undefined over plain HTTP.
   */
  tls: Pick<ServerTls, 'cert' | 'fingerprint256' | 'selfSigned'> | undefined
  /**
   * A typed client of this mock, set up for the fixture's organization, first workspace and first
   * application, in the forms of the emulated release; sign in with `client.signIn({ username, password })`.
   */
  client: Client
  app: FastifyInstance
  config: MockConfig
  /** Writes `stateFile` now if the data changed since it was last written (a no-op without one); the reason if it failed. */
  saveState(): string | undefined
  /** Stops accepting, lets requests in flight finish, writes the state file (with `stateFile`), closes. */
  close(): Promise<void>
}

export interface StartOptions extends Partial<MockConfig> {
  /**
   * A fixture object in the format of fixtures/default.json, instead of `fixture` (a path). It is
   * checked as a fixture file is; attachment payload paths resolve against the default fixture's folder.
   */
  fixtureData?: FixtureFile | Record<string, unknown>
  /** Fixed time and randomness for deterministic tests. */
  deps?: Deps
  /** Where log lines go (standard output by default), for tests that read the log. */
  logStream?: NodeJS.WritableStream
}

/**
 * Loads the fixture named by the configuration (or given as an object) and adds the generated
 * rows it asks for; with a state file that exists, its data instead (saved rows included).
 */
export function prepareFixture(config: MockConfig, given?: unknown): Fixture {
  const zone = config.timeZone === undefined ? {} : { timeZone: config.timeZone }
  const restored = config.stateFile === undefined ? undefined : readStateFile(config.stateFile, config.timeZone)
  if (restored !== undefined) return restored
  const fixture = given === undefined ? loadFixture(config.fixture, zone) : parseFixture(given, 'fixtureData', dirname(DEFAULTS.fixture), zone)
  return config.rows > 0 ? withGeneratedRows(fixture, { rows: config.rows, seed: config.seed }) : fixture
}

/**
 * Starts the mock and resolves when it listens. `port: 0` picks a free port; the URL tells which.
 * @example
 * const mock = await startMock({ port: 0 })
 * await fetch(`${mock.url}/identityprovider/acme/connect/token`, { method: 'POST', body: form })
 * await mock.close()
 */
export async function startMock(options: StartOptions = {}): Promise<RunningMock> {
  const { fixtureData, deps, logStream, ...overrides } = options
  const productVersion = emulatedRelease(overrides.productVersion ?? DEFAULTS.productVersion)
  const config: MockConfig = { ...DEFAULTS, ...overrides, productVersion, port: overrides.port ?? 0 }
  const clock = createClock(deps?.now)
  const base = deps ?? systemDeps(clock)
  const tls = await serverTls(config)
  const app = await buildApp(config, prepareFixture(config, fixtureData), {
    ...base,
    now: clock.now,
    clock,
    ...(logStream === undefined ? {} : { logStream }),
    ...(tls === undefined ? {} : { tls }),
  })
  try {
    // Fastify's own line says where the socket is; the mock's "listening on" line comes from its caller.
    await app.listen({ port: config.port, host: config.host, listenTextResolver: (address) => `socket open at ${address}` })
  } catch (error) {
    await app.close()
    throw listenError(error, config)
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : config.port
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  const url = `${tls === undefined ? 'http' : 'https'}://${host}:${port}`
  let state
  try {
    state = config.stateFile === undefined ? undefined : keepStateFile(app, config.stateFile, config.stateInterval)
  } catch (error) {
    await app.close()
    throw error
  }
  const organization = app.store.organization()
  const client = createClient({
    transport: httpTransport(url, tls === undefined ? {} : { ca: tls.cert }),
    productVersion: config.productVersion,
    organization: organization.physicalName,
    clientId: organization.clientId,
    legacyClientId: organization.legacyClientId,
    ...(organization.workspaces[0] === undefined ? {} : { workspaceId: organization.workspaces[0].id, applicationId: organization.workspaces[0].applicationIds[0] }),
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
    async close() {
      await client.transport.close()
      await app.close()
      // After the close, which lets requests in flight finish: their writes are in the file too.
      state?.stop()
      const failed = state?.flush()
      if (failed !== undefined) throw new Error(failed)
    },
  }
}

/** A port that cannot be had, said in one line that names it; anything else as it came. */
function listenError(error: unknown, config: MockConfig): unknown {
  const code = (error as NodeJS.ErrnoException).code
  if (code === 'EADDRINUSE') return new ConfigError(`port ${config.port} on ${config.host} is in use; stop what listens there or pick another with --port (or PORT)`)
  if (code === 'EACCES') return new ConfigError(`port ${config.port} on ${config.host} may not be used by this user; pick one above 1023 with --port`)
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return new ConfigError(`--host ${config.host} is not an address of this machine`)
  return error
}
