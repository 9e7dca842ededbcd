import type { FastifyInstance } from 'fastify'
import { ConfigError, DEFAULTS, type MockConfig } from './config.ts'
import { normalizeVersion } from '../spec/versions.ts'
import { buildApp } from './app.ts'
import { createClock, systemDeps } from './deps.ts'
import { loadFixture } from './fixtures/load.ts'
import { addGeneratedRows } from './fixtures/generate.ts'
import { lowerCaseGuids } from './fixtures/canonical-ids.ts'
import type { Deps, Fixture } from './store/types.ts'
import type { MockControls } from './control/index.ts'

/**
 * A mock listening on a port, as `startMock()` returns it, with the control plane's methods
 * (`reset()`, `loadFixture()`, `emails()`, `requests()`, `setFaults()`, `advanceClock()`, ...)
 * for tests that steer it without HTTP.
 */
export interface RunningMock extends MockControls {
  /** Base URL, e.g. `http://127.0.0.1:4080`. */
  url: string
  port: number
  app: FastifyInstance
  config: MockConfig
  close(): Promise<void>
}

export interface StartOptions extends Partial<MockConfig> {
  /** A fixture object instead of `fixture` (a path). */
  fixtureData?: Fixture
  /** Fixed time and randomness for deterministic tests. */
  deps?: Deps
  /** Where log lines go (standard output by default), for tests that read the log. */
  logStream?: NodeJS.WritableStream
}

/** Loads the fixture named by the configuration and adds the generated rows it asks for. */
export function prepareFixture(config: MockConfig, given?: Fixture): Fixture {
  // A fixture object given in code is not read from a file; its GUIDs are made lower case here as the loader does.
  const fixture = given === undefined ? loadFixture(config.fixture) : lowerCaseGuids(given)
  return config.rows > 0 ? addGeneratedRows(fixture, { rows: config.rows, seed: config.seed }) : fixture
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
  const productVersion = normalizeVersion(overrides.productVersion ?? DEFAULTS.productVersion)
  if (productVersion === null) throw new ConfigError(`productVersion must be "latest" or a release number, got "${overrides.productVersion}"`)
  const config: MockConfig = { ...DEFAULTS, ...overrides, productVersion, port: overrides.port ?? 0 }
  const clock = createClock(deps?.now)
  const base = deps ?? systemDeps(clock)
  const app = await buildApp(config, prepareFixture(config, fixtureData), { ...base, now: clock.now, clock, ...(logStream === undefined ? {} : { logStream }) })
  await app.listen({ port: config.port, host: config.host })
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : config.port
  const host = config.host.includes(':') ? `[${config.host}]` : config.host
  return { ...app.controls, url: `http://${host}:${port}`, port, app, config, close: () => app.close() }
}
