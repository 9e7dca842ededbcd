import { existsSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import { parseConfig } from './config.ts'
import { startMock, type LaunchedMock } from './mock.ts'
import { PACKAGE_VERSION } from '../package-root.ts'
import { ConfigError, EXIT, exitWith } from '../cli-base/exit.ts'
import { changeLogPath } from '../state/change-log.ts'
import { drainStdout, flushStdout, logsJson } from './logging.ts'

/** How long a stop waits for requests in flight before it closes every connection and exits anyway. */
export const STOP_GRACE_MS = 1500

/**
 * `npm start` and `appdata-kit mock`: parse flags and variables, start the mock, print where it
 * listens, stop cleanly on SIGTERM or SIGINT. Exit 2 for a flag or variable it cannot use, 1 when
 * it cannot start (a port in use, a bad fixture).
 */
export async function runMock(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  let config
  try {
    config = parseConfig(argv, env)
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error
    process.stderr.write(`appdata-kit mock: ${error.message}\n(appdata-kit mock --help lists every flag)\n`)
    process.exit(EXIT.usage)
  }
  if (config.print !== undefined) {
    process.stdout.write(config.print.endsWith('\n') ? config.print : `${config.print}\n`)
    return
  }
  const { print: _print, ...mockConfig } = config
  const started = Date.now()
  const restoring = mockConfig.stateFile !== undefined && existsSync(mockConfig.stateFile)
  const mock = await startMock(mockConfig)
  stopOnSignals(mock)
  const fixture = mock.app.store.fixture
  const rows = mockConfig.rows > 0 ? ` + ${mockConfig.rows} generated rows` : ''
  const data = restoring ? `state restored from ${mockConfig.stateFile}` : `fixture ${mockConfig.fixture}${rows}`
  const lines = [
    `appdata-kit ${PACKAGE_VERSION}: mock of release ${mockConfig.productVersion} (${data}, organization ${fixture.organization.physicalName}) ready in ${Date.now() - started} ms`,
  ]
  if (mockConfig.stateFile !== undefined) {
    const synced = mockConfig.stateSync === 'always' ? ', flushed to the disk' : ''
    lines.push(
      `data kept in ${mockConfig.stateFile}: every change written to ${changeLogPath(mockConfig.stateFile)} before it is answered${synced}; the file rewritten every ${mockConfig.stateInterval} s with changes, and at stop`,
    )
  }
  if (mockConfig.recordUsage !== undefined) lines.push(`usage recorded to ${mockConfig.recordUsage} at stop (live at ${mock.url}/__mock/usage)`)
  if (mock.tls !== undefined) {
    const written = mockConfig.tlsOut === undefined ? '' : `, written to ${mockConfig.tlsOut}/cert.pem`
    lines.push(`${mock.tls.selfSigned ? 'self-signed ' : ''}certificate SHA-256 fingerprint ${mock.tls.fingerprint256}${written}`)
  }
  lines.push(`documentation at ${mock.url}/docs, health at ${mock.url}/__mock/health`, `listening on ${mock.url}`)
  // Whenever the log is JSON (--log-format json, or the default anywhere but a terminal) these lines are
  // JSON too, so a reader parsing each line meets no plain one; scripts still find "listening on URL"
  // in the last line's text, and its `url`.
  const json = (msg: string) => JSON.stringify({ level: 30, time: Date.now(), msg, ...(msg.startsWith('listening on') ? { url: mock.url } : {}) })
  const asJson = logsJson(mockConfig)
  // After the lines the logger has gathered (see stdoutLines), so the listening line stays last.
  flushStdout()
  process.stdout.write(`${lines.map((line) => (asJson ? json(line) : line)).join('\n')}\n`)
}

/** How long a stop waits for queued log lines to reach a reader that is behind. */
const LOG_DRAIN_MS = 1000

/**
 * SIGTERM or SIGINT: stop accepting, let requests in flight finish, close idle keep-alive
 * connections at once and each busy one as soon as its answer is sent, then exit 0. Whatever is still
 * open after STOP_GRACE_MS is cut, so a CI job or `docker stop` never waits on a client's
 * keep-alive. A second signal exits at once.
 */
function stopOnSignals(mock: LaunchedMock): void {
  let stopping = false
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) {
      // A second signal does not wait for requests in flight, but saved rows still reach the state file, and the usage its file.
      const failed = [mock.saveState(), mock.saveUsage()].filter((reason) => reason !== undefined).join('; ') || undefined
      if (failed !== undefined) process.stderr.write(`appdata-kit mock: ${failed}\n`)
      process.exit(failed === undefined ? EXIT.ok : EXIT.failed)
    }
    stopping = true
    mock.app.log.info(`${signal}: stopping`)
    // Node closes idle connections once when closing starts; one that finishes its request later would wait for its keep-alive timeout.
    const idle = setInterval(() => mock.app.server.closeIdleConnections(), 25)
    idle.unref()
    const cut = setTimeout(() => {
      mock.app.server.closeAllConnections()
      setTimeout(() => {
        // The state and usage files are written synchronously, so they are complete before the exit.
        const failed = [mock.saveState(), mock.saveUsage()].filter((reason) => reason !== undefined).join('; ') || undefined
        if (failed !== undefined) process.stderr.write(`appdata-kit mock: ${failed}\n`)
        process.exit(failed === undefined ? EXIT.ok : EXIT.failed)
      }, 200).unref()
    }, STOP_GRACE_MS)
    cut.unref()
    mock.close().then(
      // Log lines still queued for a slow reader are written first (see loggerOptions).
      () => void drainStdout(LOG_DRAIN_MS).then(() => process.exit(EXIT.ok)),
      (error: unknown) => {
        process.stderr.write(`appdata-kit mock: stopping failed: ${(error as Error).message}\n`)
        process.exit(EXIT.failed)
      },
    )
  }
  process.on('SIGINT', stop)
  process.on('SIGTERM', stop)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runMock(process.argv.slice(2), process.env).catch(exitWith)
}
