import type { FastifyInstance, FastifyServerOptions } from 'fastify'
import { LOG_LEVELS, type MockConfig } from './config.ts'
import { redactUrl } from './control/redact.ts'
import type { LogStream } from './running-mock.ts'

declare module 'fastify' {
  interface FastifyReply {
    /** The catalog code of the problem this reply carries, for the request's log line (null for none). */
    problemCode: string | null
  }
}

/**
 * The mock's logger (pino, through Fastify): one line per request at info, written readably on a
 * terminal (pino-pretty) and as JSON lines otherwise or with `--log-format json`. Secrets in URLs
 * are never written. `stream` replaces standard output (tests read it).
 *
 * JSON lines go through `process.stdout`, not pino's own synchronous destination: on a pipe (a CI
 * runner, `| tee`, a container's log) Node writes at once while the reader keeps up and queues in
 * memory while it falls behind, so a slow reader never stalls the answers; a file is written as it
 * comes. The stop waits for the queue to drain (`drainStdout`). pino's asynchronous destination is
 * not used: on a non-blocking pipe it loses lines when the pipe fills (sonic-boom 4.2.1).
 */
export async function loggerOptions(config: Pick<MockConfig, 'logLevel' | 'logFormat'>, stream?: LogStream): Promise<FastifyServerOptions['logger']> {
  const pretty = !logsJson(config, stream)
  // Loaded for a terminal only: a mock in CI or a test writes JSON and starts without it.
  const pinoPretty = pretty ? (await import('pino-pretty')).default : undefined
  const destination = pinoPretty !== undefined
    ? pinoPretty({
        destination: stream ?? 1,
        colorize: stream === undefined && process.stdout.isTTY === true,
        translateTime: 'SYS:HH:MM:ss.l',
        ignore: 'pid,hostname,reqId,request',
        singleLine: true,
        sync: true,
      })
    : (stream ?? process.stdout)
  return {
    level: config.logLevel,
    ...(destination === undefined ? {} : { stream: destination }),
  }
}

/**
 * Whether the log is JSON lines: `--log-format json`, or `auto` anywhere but a terminal (a pipe, a
 * file, a test's stream). The one decision for the logger and for the lines the mock prints when it
 * starts (server.ts), so a CI log read line by line as JSON never meets a plain line.
 */
export function logsJson(config: Pick<MockConfig, 'logFormat'>, stream?: LogStream): boolean {
  if (config.logFormat === 'auto') return stream !== undefined || process.stdout.isTTY !== true
  return config.logFormat === 'json'
}

/**
 * Logs each answered request once: method, path (secrets redacted), operation, status, the
 * problem's code for a refusal, the time taken and the warnings it raised. At info normally; at
 * warn when the mock accepted it with warnings and at error for a 5xx, so `--quiet` still shows
 * those. Fastify's own two lines per request are switched off (`disableRequestLogging`).
 */
export function registerRequestLog(app: FastifyInstance, level: MockConfig['logLevel']): void {
  app.decorateReply('problemCode', null)
  // Decided once: with nothing at warn or below logged (tests, benchmarks) the hook costs nothing per request.
  const shown = LOG_LEVELS.indexOf(level)
  if (shown < LOG_LEVELS.indexOf('error')) return
  app.addHook('onResponse', (request, reply, done) => {
    const warnings = request.mockWarnings?.map((w) => w.code) ?? []
    // A 5xx a fault rule asked for is the test's doing, not the mock's failure.
    const lineLevel = reply.statusCode >= 500 && reply.problemCode !== 'INJECTED_FAULT' ? 'error' : warnings.length > 0 ? 'warn' : 'info'
    if (LOG_LEVELS.indexOf(lineLevel) > shown) return done()
    const path = redactUrl(request.url)
    const operationId = request.routeOptions.config?.operationId ?? request.routeOptions.config?.controlOperationId ?? null
    const ms = Math.round(reply.elapsedTime * 10) / 10
    const line = [request.method, path, operationId ?? '-', reply.statusCode, reply.problemCode ?? '', `${ms} ms`, warnings.length > 0 ? `warnings ${[...new Set(warnings)].join(',')}` : '']
      .filter((part) => part !== '')
      .join(' ')
    request.log[lineLevel]({ request: { method: request.method, path, operationId, status: reply.statusCode, code: reply.problemCode, ms, warnings } }, line)
    done()
  })
}

/**
 * Resolves once the lines queued for standard output are written, or after `ms` (a reader that
 * stopped reading does not keep the mock alive).
 */
export function drainStdout(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    process.stdout.write('', () => {
      clearTimeout(timer)
      resolve()
    })
  })
}
