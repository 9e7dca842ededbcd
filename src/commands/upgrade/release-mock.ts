import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../mock/app.ts'
import { DEFAULTS } from '../../mock/config.ts'
import { prepareFixture } from '../../mock/mock.ts'
import { fixedDeps } from '../../deps.ts'
import type { Transport } from '../../wire/transport.ts'
import { directTransport } from './direct-transport.ts'

/** A mock of one release in this process, answering through Fastify's own request handler (direct-transport.ts: no socket, no port). */
export interface ReleaseMock {
  release: string
  transport: Transport
  close(): Promise<void>
}

/**
 * Builds the app of a mock of `release` serving the fixture file (loaded for it alone: each mock's
 * store is its own), in the default (lenient) mode so that what a release takes with a warning
 * shows as the warning, without control plane or log, and with the smallest journal (one entry, no
 * bodies): only the control plane reads it, and a replay's hundreds of thousands of exchanges
 * would otherwise each be kept until a thousand more came. Time and randomness are fixed, so two
 * runs over the same usage replay the same values. A FixtureError when the file is no fixture.
 */
export async function buildReleaseApp(release: string, fixturePath: string): Promise<FastifyInstance> {
  const config = {
    ...DEFAULTS,
    productVersion: release,
    fixture: fixturePath,
    logLevel: 'silent' as const,
    controlPlane: false,
    journalLimit: 1,
    journalBodyLimit: 0,
  }
  const app = await buildApp(config, prepareFixture(config), fixedDeps('2026-01-05T09:00:00.000Z'))
  await app.ready()
  return app
}

/** A mock of `release` for a replay (buildReleaseApp), answering in this process. */
export async function startReleaseMock(release: string, fixturePath: string): Promise<ReleaseMock> {
  const app = await buildReleaseApp(release, fixturePath)
  return { release, transport: directTransport(app), close: () => app.close() }
}
