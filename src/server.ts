import { pathToFileURL } from 'node:url'
import { ConfigError, parseConfig, USAGE } from './config.ts'
import { startMock } from './mock.ts'

/** `npm start` and `appdata-kit mock`: parse flags, start the mock, print where it listens, stop cleanly on a signal. */
export async function runMock(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  let config
  try {
    config = parseConfig(argv, env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`appdata-kit: ${error.message}\n\n${USAGE}\n`)
    process.exit(2)
  }
  if (config.help) {
    process.stdout.write(`${USAGE}\n`)
    return
  }
  const { help: _help, ...mockConfig } = config
  const started = Date.now()
  const mock = await startMock(mockConfig)
  const fixture = mock.app.store.fixture
  process.stdout.write(
    `appdata-kit mock ${mockConfig.productVersion} (fixture ${mockConfig.fixture}${mockConfig.rows > 0 ? ` + ${mockConfig.rows} generated rows` : ''}, organization ${fixture.organization.physicalName}) ready in ${Date.now() - started} ms\n` +
      `documentation at ${mock.url}/docs\n` +
      `listening on ${mock.url}\n`,
  )
  const stop = (): void => {
    mock.close().then(() => process.exit(0), () => process.exit(1))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

/** Start-up failures (a bad fixture, a port in use) end the process with the reason, not a stack. */
export function exitWith(error: unknown): never {
  const message = error instanceof Error ? error.message : String(error)
  process.stderr.write(`appdata-kit: ${message}\n`)
  process.exit(1)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runMock(process.argv.slice(2), process.env).catch(exitWith)
}
