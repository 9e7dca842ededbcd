/**
 * `startMock()` as the package's types describe it. Every type here (and all it names) is written
 * in web-standard and the package's own types, never Node's or Fastify's, so a project without
 * `@types/node` (a browser bundle, a plain-TypeScript library) compiles against the package.
 */
import type { MockConfig } from './config.ts'
import type { MockControls } from './service/controls.ts'
import type { FixtureFile } from '../fixtures/file-format.ts'
import type { Deps } from '../store/model/types.ts'
import type { Client } from '../client/client.ts'
import type { InjectableApp } from '../wire/transport.ts'
import type { ServerTls } from './tls.ts'

/** Where log lines go: anything with `write(line)`, such as a Node Writable stream. */
export interface LogStream {
  write(line: string): unknown
}

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
  /**
   * The Fastify app that serves the mock, for `injectTransport(mock.app)` (requests without a
   * socket). Typed by what that needs; it is a `FastifyInstance` for code that wants more.
   */
  app: InjectableApp
  config: MockConfig
  /** Writes `stateFile` now if the data changed since it was last written (a no-op without one); the reason if it failed. */
  saveState(): string | undefined
  /** Writes the usage file now (with `recordUsage`; a no-op without); the reason if it failed. */
  saveUsage(): string | undefined
  /** Stops accepting, lets requests in flight finish, writes the state file (with `stateFile`) and the usage file (with `recordUsage`), closes. */
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
  logStream?: LogStream
}
