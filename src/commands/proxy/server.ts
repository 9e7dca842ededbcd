import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { AddressInfo, Socket } from 'node:net'
import { ProblemError, type ProblemCode } from '../../errors.ts'
import { connectionHost, httpsAgentOptions } from '../../wire/transport.ts'
import { hostAcceptor, hostName } from '../../policy/hosts.ts'
import type { ObservedExchange, Outcome } from './inspector.ts'

/**
 * The proxy's server, on Node's own http and https modules: a pass-through is mostly moving bytes,
 * and nothing between the sockets and the pipe should cost more than that. Every exchange is
 * forwarded as it came (the `Host` header set to the target's, hop-by-hop headers dropped, no
 * redirect followed), both bodies stream through with backpressure, and the bytes are copied aside
 * as they pass (up to the check limit) for the inspector, which judges them after the answer ended.
 */

export interface ProxyOptions {
  /** The installation's base URL; a path prefix is kept in front of every request's path. */
  target: URL
  host: string
  port: number
  /** How long the target may send nothing (no answer yet, or nothing more of it), ms. */
  timeoutMs: number
  ca?: Buffer
  insecure?: boolean
  /** Bodies longer than this pass unchecked (their bytes are not kept). */
  checkLimitBytes: number
  /** Takes each exchange once it ended (the inspector judges it later). */
  observe: (exchange: ObservedExchange) => void
  /** How long a client may take to send a request's line and headers, ms (HEADERS_TIMEOUT_MS unless given). */
  headersTimeoutMs?: number
}

/**
 * How long a client may take to send its request line and headers (Node's own default): until
 * they are whole nothing is passed on, so no target's timeout can end a connection that sends them
 * a byte a minute. A body may take as long as the target lets it.
 */
export const HEADERS_TIMEOUT_MS = 60_000

export interface RunningProxy {
  /** `http://HOST:PORT` */
  url: string
  /** Stops taking exchanges; those in flight are given `graceMs` (2 s unless given) to end, then cut; resolves when the server is closed. */
  close(graceMs?: number): Promise<void>
}

/** Headers that concern one connection only (RFC 9110, section 7.6.1), never passed on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
])

/** TLS failures that mean the target's certificate is not trusted: the advice is --ca or --insecure. */
const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
])

/** Raw headers (name, value, name, value, ...) without the hop-by-hop ones and those `Connection` names; `host` replaced when given. */
export function passedHeaders(raw: readonly string[], host?: string): string[] {
  const named = new Set<string>()
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]?.toLowerCase() === 'connection') for (const token of (raw[i + 1] ?? '').split(',')) named.add(token.trim().toLowerCase())
  }
  const out: string[] = []
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string
    const lower = name.toLowerCase()
    if (HOP_BY_HOP.has(lower) || named.has(lower)) continue
    if (lower === 'host') {
      if (host !== undefined) out.push(name, host)
      host = undefined
      continue
    }
    out.push(name, raw[i + 1] as string)
  }
  if (host !== undefined) out.push('Host', host)
  return out
}

/**
 * The request target as a path and query: a client that takes the proxy for an HTTP proxy of its own
 * (`HTTP_PROXY`) sends the absolute form (`http://host/path`, RFC 9112, section 3.2.2).
 */
export function originForm(target: string): string {
  if (!/^https?:\/\//i.test(target)) return target
  const afterHost = target.indexOf('/', target.indexOf('//') + 2)
  return afterHost < 0 ? '/' : target.slice(afterHost)
}

/** Collects a body's bytes as they pass, up to a limit; past it, only their count. */
class Collector {
  readonly #limit: number
  #chunks: Buffer[] = []
  #kept = 0
  bytes = 0
  over = false

  constructor(limit: number, declared: string | undefined) {
    this.#limit = limit
    // A body that says it is longer than the limit is not collected at all.
    if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > limit) this.over = true
  }

  push(chunk: Buffer): void {
    this.bytes += chunk.length
    if (this.over) return
    this.#kept += chunk.length
    if (this.#kept > this.#limit) {
      this.over = true
      this.#chunks = []
      return
    }
    this.#chunks.push(chunk)
  }

  /** The bytes in one Buffer that owns its memory whole (a socket's chunk shares its own), so that it can move to the judging thread. */
  body(): Buffer | 'too-large' {
    if (this.over) return 'too-large'
    const out = Buffer.from(new ArrayBuffer(this.#kept))
    let at = 0
    for (const chunk of this.#chunks) {
      out.set(chunk, at)
      at += chunk.length
    }
    this.#chunks = []
    return out
  }
}

/** A problem as the proxy answers it itself: its status, headers and body bytes. */
function problemAnswer(code: ProblemCode, detail: string, instance: string): { status: number; headers: OutgoingHttpHeaders; body: Buffer } {
  const problem = new ProblemError(code, detail)
  const body = Buffer.from(JSON.stringify(problem.toBody(instance.length > 2048 ? undefined : instance)))
  return { status: problem.status, headers: { 'content-type': 'application/problem+json; charset=utf-8', 'content-length': body.length }, body }
}

function sendProblem(response: ServerResponse, code: ProblemCode, detail: string, instance: string): void {
  const { status, headers, body } = problemAnswer(code, detail, instance)
  response.writeHead(status, headers)
  response.end(body)
}

function sendJson(response: ServerResponse, status: number, text: string, headers: OutgoingHttpHeaders = {}): void {
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    ...headers,
  })
  response.end(text)
}

/** Failures that mean the target took the connection and closed it without an answer (rather than could not be reached). */
const CLOSED_CODES = new Set(['ECONNRESET', 'EPIPE'])

/** The proxy's own endpoints (`/__proxy/...`), which are never forwarded. */
export const OWN_PREFIX = '/__proxy'

/**
 * Starts the proxy; resolves when it listens. `report` gives the text `GET /__proxy/report`
 * answers (the command line makes it from the inspector's report, through the secret filter).
 */
export async function startProxy(options: ProxyOptions, report: () => Promise<string>): Promise<RunningProxy> {
  const { target, observe, checkLimitBytes, timeoutMs } = options
  const targetText = `${target.origin}${target.pathname.replace(/\/+$/, '')}`
  const secure = target.protocol === 'https:'
  const prefix = target.pathname.replace(/\/+$/, '')
  const agent = secure
    ? new HttpsAgent({
        ...httpsAgentOptions({ ...(options.ca === undefined ? {} : { ca: options.ca }), ...(options.insecure === true ? { insecure: true } : {}) }),
      })
    : new HttpAgent({ keepAlive: true })
  const send = secure ? httpsRequest : httpRequest
  const targetHost = target.host
  const accepts = hostAcceptor({ host: options.host, allowedHosts: [], publicUrl: undefined })
  let lastAccepted = ''
  let inFlight = 0
  /** Set when the proxy cuts the exchanges still in flight at its stop: they end for that reason, not the client's. */
  let stopping = false
  let drained: (() => void) | undefined

  const ownEndpoint = (request: IncomingMessage, response: ServerResponse, path: string) => {
    request.resume()
    if (request.method !== 'GET' && request.method !== 'HEAD') return sendProblem(response, 'METHOD_NOT_ALLOWED', `${OWN_PREFIX}/ answers GET only.`, path)
    if (path === `${OWN_PREFIX}/health`) return sendJson(response, 200, JSON.stringify({ status: 'ok', target: targetText }))
    if (path === `${OWN_PREFIX}/report`) {
      report().then(
        (text) => sendJson(response, 200, text),
        (error: Error) => sendProblem(response, 'INTERNAL', `The report could not be made: ${error.message}`, path),
      )
      return
    }
    return sendProblem(response, 'NOT_FOUND', `The proxy answers ${OWN_PREFIX}/health and ${OWN_PREFIX}/report; every other path goes to the target.`, path)
  }

  const forward = (request: IncomingMessage, response: ServerResponse) => {
    const startedAt = Date.now()
    const begun = performance.now()
    const method = request.method ?? 'GET'
    const url = originForm(request.url ?? '/')
    const sent = new Collector(checkLimitBytes, request.headers['content-length'])
    let received: Collector | undefined
    let status = 0
    let answerHeaders: IncomingMessage['headers'] = {}
    /** The proxy's own answer (a problem), when it answered itself. */
    let own: Buffer | undefined
    /** Set once the answer's fate is decided (passed on, answered by the proxy, cut): what the target does later changes nothing. */
    let settled = false
    let ended = false
    inFlight++
    const end = (outcome: Outcome, reason?: string) => {
      if (ended) return
      ended = true
      inFlight--
      const exchange: ObservedExchange = {
        startedAt,
        durationMs: performance.now() - begun,
        method,
        url,
        requestHeaders: request.headers,
        requestBody: sent.body(),
        requestBytes: sent.bytes,
        requestComplete: request.complete,
        status,
        answerHeaders,
        answerBody: own ?? received?.body() ?? Buffer.alloc(0),
        answerBytes: own?.length ?? received?.bytes ?? 0,
        outcome,
        ...(reason === undefined ? {} : { reason }),
      }
      observe(exchange)
      if (inFlight === 0) drained?.()
    }
    const upstream = send({
      protocol: target.protocol,
      hostname: connectionHost(target),
      port: target.port,
      method,
      path: `${prefix}${url}`,
      headers: passedHeaders(request.rawHeaders, targetHost),
      setHost: false,
      agent,
    })
    /** The target gave no answer the client can read: the proxy answers with a problem naming it (502, 504), and reports why. */
    const answerSelf = (code: ProblemCode, detail: string, outcome: Outcome, reason: string) => {
      if (settled) return
      settled = true
      upstream.destroy()
      request.resume()
      if (response.headersSent) return cut(reason)
      const answer = problemAnswer(code, detail, url)
      status = answer.status
      answerHeaders = { 'content-type': answer.headers['content-type'] as string, 'content-length': String(answer.body.length) }
      own = answer.body
      response.writeHead(answer.status, answer.headers)
      response.end(answer.body)
      response.on('finish', () => end(outcome, reason))
      response.on('close', () => end(outcome, reason))
    }
    /** The answer broke off after its head went to the client: the client's connection is cut too, so it sees the answer was not whole. */
    const cut = (reason: string) => {
      settled = true
      response.destroy()
      end('broken', reason)
    }
    // Silence between the proxy and the target, whether it has not answered yet or stopped halfway.
    upstream.setTimeout(timeoutMs, () => upstream.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'PROXY_TIMEOUT' })))
    upstream.on('response', (answer) => {
      if (settled) {
        answer.resume()
        return
      }
      status = answer.statusCode ?? 0
      answerHeaders = answer.headers
      received = new Collector(checkLimitBytes, answer.headers['content-length'])
      const collector = received
      // The target's Date, not one of the proxy's own.
      response.sendDate = false
      response.writeHead(status, answer.statusMessage, passedHeaders(answer.rawHeaders))
      answer.on('data', (chunk: Buffer) => collector.push(chunk))
      answer.pipe(response)
      answer.on('error', () => undefined)
      // The target closed, or went silent for --timeout, before the answer was whole.
      answer.on('close', () => {
        if (answer.complete || settled) return
        cut('the target closed the connection')
      })
      response.on('finish', () => {
        settled = true
        end('answered')
      })
    })
    // Interim answers (RFC 9110, section 15.2): 100 Continue is the proxy's own to give (Node's server answers a client's
    // Expect itself), 103 Early Hints passes on; any other is none a client asked for, and none it can read.
    upstream.on('information', (info: { statusCode: number; statusMessage: string; headers: IncomingMessage['headers'] }) => {
      if (settled || info.statusCode === 100) return
      if (info.statusCode === 103) {
        try {
          const hints = Object.fromEntries(Object.entries(info.headers).filter(([name]) => !HOP_BY_HOP.has(name)))
          response.writeEarlyHints(hints as Record<string, string | string[]>)
        } catch {
          // Hints Node cannot write (no Link): they are only hints.
        }
        return
      }
      const reason = `the target answered ${info.statusCode} ${info.statusMessage}, an interim status no client asked for`
      answerSelf(
        'TARGET_BROKEN_ANSWER',
        `The target ${target.origin} answered ${info.statusCode} ${info.statusMessage}, an interim status this request did not ask for, instead of an answer.`,
        'interim',
        reason,
      )
    })
    // A 101 to a request that asked for no upgrade (the proxy passes no Upgrade header on): Node hands over the socket, which is dropped.
    upstream.on('upgrade', (answer: IncomingMessage, socket: Socket) => {
      socket.destroy()
      // Named by the status, whatever reason phrase came with it (Node emits this for 101 alone).
      const status101 = `${answer.statusCode ?? 101} Switching Protocols`
      answerSelf(
        'TARGET_BROKEN_ANSWER',
        `The target ${target.origin} answered ${status101} to a request that asked for no upgrade, instead of an answer.`,
        'interim',
        `the target answered ${status101} to a request that asked for no upgrade`,
      )
    })
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (settled || ended) return
      const timedOut = error.code === 'PROXY_TIMEOUT'
      // A close and a reset mid-body reach Node's client alike, in either order: both are the target closing the connection.
      if (response.headersSent) return cut(timedOut ? `the target sent nothing more for ${timeoutMs} ms (--timeout)` : 'the target closed the connection')
      if (request.destroyed && !request.complete) {
        settled = true
        return end('abandoned', 'the client went away')
      }
      const tls = error.code !== undefined && TLS_CODES.has(error.code)
      const closed = error.code !== undefined && CLOSED_CODES.has(error.code)
      const detail = timedOut
        ? `The target ${target.origin} sent nothing for ${timeoutMs} ms (--timeout).`
        : tls
          ? `The target ${target.origin} has a certificate that is not trusted (${error.code}): pass --ca FILE, or --insecure for a test installation.`
          : closed
            ? `The target ${target.origin} closed the connection without an answer (${error.code}).`
            : `The target ${target.origin} cannot be reached (${error.code ?? error.message}).`
      const reason = timedOut
        ? `the target sent nothing for ${timeoutMs} ms (--timeout)`
        : tls
          ? `the target's certificate is not trusted (${error.code})`
          : closed
            ? `the target closed the connection without an answer (${error.code})`
            : `the target could not be reached (${error.code ?? error.message})`
      answerSelf(timedOut ? 'TARGET_TIMEOUT' : 'TARGET_UNREACHABLE', detail, timedOut ? 'timeout' : 'unreachable', reason)
    })
    request.on('data', (chunk: Buffer) => sent.push(chunk))
    request.pipe(upstream)
    // The client went away before the answer was whole: the target's side goes too.
    response.on('close', () => {
      if (ended || response.writableFinished) return
      settled = true
      upstream.destroy()
      end('abandoned', stopping ? 'the proxy stopped' : 'the client went away')
    })
  }

  const headersTimeout = options.headersTimeoutMs ?? HEADERS_TIMEOUT_MS
  // The timeout is checked every `connectionsCheckingInterval` (30 s by Node's default): often enough for a short one too.
  const server = createServer(
    { maxHeaderSize: 1024 * 1024, connectionsCheckingInterval: Math.min(30_000, Math.max(50, headersTimeout / 4)) },
    (request, response) => {
      const host = request.headers.host
      // A web page whose own name was pointed at this machine (DNS rebinding) gets nothing but the 403, as from the mock.
      if (accepts !== undefined && host !== undefined && host !== lastAccepted) {
        const name = hostName(host)
        if (!accepts(name)) {
          request.resume()
          return sendProblem(
            response,
            'FOREIGN_HOST',
            `This proxy answers localhost and loopback addresses only, not the host "${name.slice(0, 255)}": a web page could otherwise reach it by pointing a name of its own at this machine. Start it with --host 0.0.0.0 to take every name.`,
            (request.url ?? '/').slice(0, 2048),
          )
        }
        lastAccepted = host
      }
      const url = originForm(request.url ?? '/')
      const question = url.indexOf('?')
      const path = question < 0 ? url : url.slice(0, question)
      if (path === OWN_PREFIX || path.startsWith(`${OWN_PREFIX}/`)) return ownEndpoint(request, response, path)
      forward(request, response)
    },
  )
  // No limit of the proxy's own on how long a client may take to send a body: the target sets its own.
  server.requestTimeout = 0
  server.headersTimeout = headersTimeout
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${shown}:${address.port}`,
    async close(graceMs = 2000) {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      if (inFlight > 0) {
        await Promise.race([new Promise<void>((resolve) => (drained = resolve)), new Promise((resolve) => setTimeout(resolve, graceMs).unref())])
      }
      stopping = true
      // The exchanges still in flight are cut: each ends (and is observed) as its connection closes, a turn or two later.
      const cut = inFlight > 0 ? new Promise<void>((resolve) => (drained = resolve)) : undefined
      server.closeAllConnections()
      agent.destroy()
      if (cut !== undefined) await Promise.race([cut, new Promise((resolve) => setTimeout(resolve, 200))])
      await closed
    },
  }
}
