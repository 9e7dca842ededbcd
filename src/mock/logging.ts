import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify'
import type { Bindings, ChildLoggerOptions } from 'fastify/types/logger.js'
import { hostname } from 'node:os'
import { LOG_LEVELS, type MockConfig } from './config.ts'
import { redactUrl } from '../policy/redact.ts'
import type { LogStream } from './running-mock.ts'

declare module 'fastify' {
  interface FastifyReply {
    /** The catalog code of the problem this reply carries, for the request's log line (null for none). */
    problemCode: string | null
  }
}

/**
 * Lines for standard output gathered for up to `GATHER_MS` and written in one call: a busy mock
 * answers hundreds of requests in that time, and one write (one system call, one wake-up of the
 * reader) for all their lines costs far less than one each. Every line the mock writes to standard
 * output goes through here (pino's too), so they keep their order; `flushStdout` writes what is
 * gathered at once (before a stop waits for the queue, and when the process exits).
 */
const GATHER_MS = 10
let gathered = ''
let flushing = false
let onExit = false
const flushSoon = (): void => {
  flushing = false
  flushStdout()
}
export function flushStdout(): void {
  if (gathered.length === 0) return
  const text = gathered
  gathered = ''
  process.stdout.write(text)
}
/** Standard output, written every `GATHER_MS` at most (see `flushStdout`). */
export const stdoutLines: LogStream = {
  write(line: string): void {
    gathered += line
    if (!onExit) {
      // Lines still gathered when the process exits are written on the way out.
      onExit = true
      process.on('exit', flushStdout)
    }
    // Past 64 KB they are written at once.
    if (gathered.length >= 65536) flushStdout()
    else if (!flushing) {
      flushing = true
      // Unreferenced: it never keeps a process alive that would otherwise exit (the exit writes the lines).
      setTimeout(flushSoon, GATHER_MS).unref()
    }
  },
}
/** How the mock logs: Fastify's logger options, and where JSON request lines go (undefined for pretty lines, which pino writes). */
export interface LogSetup {
  logger: FastifyServerOptions['logger']
  /** JSON lines' destination: the request line is written straight to it, built from values at hand. */
  json: LogStream | undefined
}

/**
 * The mock's logger (pino, through Fastify): one line per request at info, written readably on a
 * terminal (pino-pretty) and as JSON lines otherwise or with `--log-format json`. Secrets in URLs
 * are never written. `stream` replaces standard output (tests read it).
 *
 * JSON lines go through `process.stdout` (gathered for a few milliseconds, `stdoutLines`), not pino's own
 * synchronous destination: on a pipe (a CI runner, `| tee`, a container's log) Node writes at once
 * while the reader keeps up and queues in memory while it falls behind, so a slow reader never
 * stalls the answers; a file is written as it comes. The stop waits for the queue to drain
 * (`drainStdout`). pino's asynchronous destination is not used: on a non-blocking pipe it loses
 * lines when the pipe fills (sonic-boom 4.2.1).
 */
export async function logSetup(config: Pick<MockConfig, 'logLevel' | 'logFormat'>, stream?: LogStream): Promise<LogSetup> {
  const pretty = !logsJson(config, stream)
  // Loaded for a terminal only: a mock in CI or a test writes JSON and starts without it.
  const pinoPretty = pretty ? (await import('pino-pretty')).default : undefined
  const destination =
    pinoPretty !== undefined
      ? pinoPretty({
          destination: stream ?? 1,
          colorize: stream === undefined && process.stdout.isTTY === true,
          translateTime: 'SYS:HH:MM:ss.l',
          ignore: 'pid,hostname,reqId,request',
          singleLine: true,
          sync: true,
        })
      : (stream ?? stdoutLines)
  return { logger: { level: config.logLevel, stream: destination }, json: pretty ? undefined : (stream ?? stdoutLines) }
}

/**
 * Fastify's per-request logger (`request.log`) made only when something logs through it: a pino
 * child per request (its bindings serialized, an object made) costs more than most answers' own
 * work, and the request line does not need it. The child, when made, is the one Fastify would
 * have made, so a line logged through `request.log` still carries `reqId`.
 */
export function lazyRequestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return new LazyChild(logger, bindings, options) as unknown as FastifyBaseLogger
}

class LazyChild {
  #made: FastifyBaseLogger | undefined
  constructor(
    readonly parent: FastifyBaseLogger,
    readonly bindingsGiven: Bindings,
    readonly options: ChildLoggerOptions,
  ) {}
  get real(): FastifyBaseLogger {
    return (this.#made ??= this.parent.child(this.bindingsGiven, this.options))
  }
  get level(): string {
    return this.real.level
  }
  set level(level: string) {
    this.real.level = level
  }
  isLevelEnabled(level: string): boolean {
    return (this.real as unknown as { isLevelEnabled(level: string): boolean }).isLevelEnabled(level)
  }
  bindings(): Bindings {
    return (this.real as unknown as { bindings(): Bindings }).bindings()
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.real.child(bindings, options)
  }
  fatal(...args: unknown[]): void {
    ;(this.real.fatal as (...a: unknown[]) => void)(...args)
  }
  error(...args: unknown[]): void {
    ;(this.real.error as (...a: unknown[]) => void)(...args)
  }
  warn(...args: unknown[]): void {
    ;(this.real.warn as (...a: unknown[]) => void)(...args)
  }
  info(...args: unknown[]): void {
    ;(this.real.info as (...a: unknown[]) => void)(...args)
  }
  debug(...args: unknown[]): void {
    ;(this.real.debug as (...a: unknown[]) => void)(...args)
  }
  trace(...args: unknown[]): void {
    ;(this.real.trace as (...a: unknown[]) => void)(...args)
  }
  silent(): void {}
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

/** pino's numbers for the request line's levels. */
const LEVEL_NUMBERS = { info: 30, warn: 40, error: 50 } as const

/**
 * Logs each answered request once: method, path (secrets redacted), operation, status, the
 * problem's code for a refusal, the time taken and the warnings it raised. At info normally; at
 * warn when the mock accepted it with warnings and at error for a 5xx, so `--quiet` still shows
 * those. Fastify's own two lines per request are switched off (`disableRequestLogging`).
 * A JSON line is built here from values at hand and written to `json` (the fields, their order and
 * the base bindings pino would write: `level`, `time`, `pid`, `hostname`, `reqId`, `request`,
 * `msg`); a readable line goes through pino (pino-pretty on a terminal).
 */
export function registerRequestLog(app: FastifyInstance, level: MockConfig['logLevel'], json: LogStream | undefined): void {
  app.decorateReply('problemCode', null)
  // Decided once: with nothing at warn or below logged (tests, benchmarks) the hook costs nothing per request.
  const shown = LOG_LEVELS.indexOf(level)
  if (shown < LOG_LEVELS.indexOf('error')) return
  // What pino writes after `time` on every line: its default base, the process id and the host name.
  const prefix = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`
  app.addHook('onResponse', (request, reply, done) => {
    const warnings = request.mockWarnings?.map((w) => w.code) ?? []
    // A 5xx a fault rule asked for is the test's doing, not the mock's failure.
    const lineLevel = reply.statusCode >= 500 && reply.problemCode !== 'INJECTED_FAULT' ? 'error' : warnings.length > 0 ? 'warn' : 'info'
    if (LOG_LEVELS.indexOf(lineLevel) > shown) return done()
    const path = redactUrl(request.url)
    const config = request.routeOptions.config
    const operationId = config?.operationId ?? config?.controlOperationId ?? null
    const ms = Math.round(reply.elapsedTime * 10) / 10
    const status = reply.statusCode
    const code = reply.problemCode
    const line = `${request.method} ${path} ${operationId ?? '-'} ${status}${code === null || code === '' ? '' : ` ${code}`} ${ms} ms${warnings.length > 0 ? ` warnings ${[...new Set(warnings)].join(',')}` : ''}`
    if (json === undefined) {
      request.log[lineLevel]({ request: { method: request.method, path, operationId, status, code, ms, warnings } }, line)
      return done()
    }
    json.write(
      `{"level":${LEVEL_NUMBERS[lineLevel]},"time":${Date.now()}${prefix},"reqId":${JSON.stringify(request.id)},"request":{"method":${JSON.stringify(request.method)},"path":${JSON.stringify(path)},` +
        `"operationId":${operationId === null ? 'null' : JSON.stringify(operationId)},"status":${status},"code":${code === null ? 'null' : JSON.stringify(code)},"ms":${ms},"warnings":${JSON.stringify(warnings)}},"msg":${JSON.stringify(line)}}\n`,
    )
    done()
  })
}

/**
 * Resolves once the lines queued for standard output are written, or after `ms` (a reader that
 * stopped reading does not keep the mock alive).
 */
export function drainStdout(ms: number): Promise<void> {
  flushStdout()
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms)
    process.stdout.write('', () => {
      clearTimeout(timer)
      resolve()
    })
  })
}
