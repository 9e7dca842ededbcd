import { Agent as HttpAgent, createServer, request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { AddressInfo } from 'node:net'
import { ProblemError, type ProblemCode } from '../errors.ts'
import { connectionHost, httpsAgentOptions } from '../client/transport.ts'
import { hostAcceptor, hostName } from '../mock/plugins/host-check.ts'
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
}

export interface RunningProxy {
  /** `http://HOST:PORT` */
  url: string
  /** Stops taking exchanges; those in flight are given 2 s to end; resolves when the server is closed. */
  close(): Promise<void>
}

/** Headers that concern one connection only (RFC 9110, section 7.6.1), never passed on. */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer', 'transfer-encoding', 'upgrade'])

/** TLS failures that mean the target's certificate is not trusted: the advice is --ca or --insecure. */
const TLS_CODES = new Set(['DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED', 'ERR_TLS_CERT_ALTNAME_INVALID', 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY'])

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

  body(): Buffer | 'too-large' {
    if (this.over) return 'too-large'
    return this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks)
  }
}

function sendProblem(response: ServerResponse, code: ProblemCode, detail: string, instance: string): void {
  const problem = new ProblemError(code, detail)
  const body = JSON.stringify(problem.toBody(instance.length > 2048 ? undefined : instance))
  response.writeHead(problem.status, { 'content-type': 'application/problem+json; charset=utf-8', 'content-length': Buffer.byteLength(body) })
  response.end(body)
}

function sendJson(response: ServerResponse, status: number, text: string, headers: OutgoingHttpHeaders = {}): void {
  response.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store', ...headers })
  response.end(text)
}

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
    ? new HttpsAgent({ ...httpsAgentOptions({ ...(options.ca === undefined ? {} : { ca: options.ca }), ...(options.insecure === true ? { insecure: true } : {}) }) })
    : new HttpAgent({ keepAlive: true })
  const send = secure ? httpsRequest : httpRequest
  const targetHost = target.host
  const accepts = hostAcceptor({ host: options.host, allowedHosts: [], publicUrl: undefined })
  let lastAccepted = ''
  let inFlight = 0
  let drained: (() => void) | undefined

  const ownEndpoint = (request: IncomingMessage, response: ServerResponse, path: string) => {
    request.resume()
    if (request.method !== 'GET' && request.method !== 'HEAD') return sendProblem(response, 'METHOD_NOT_ALLOWED', `${OWN_PREFIX}/ answers GET only.`, path)
    if (path === `${OWN_PREFIX}/health`) return sendJson(response, 200, JSON.stringify({ status: 'ok', target: targetText }))
    if (path === `${OWN_PREFIX}/report`) {
      report().then((text) => sendJson(response, 200, text), (error: Error) => sendProblem(response, 'INTERNAL', `The report could not be made: ${error.message}`, path))
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
        status,
        answerHeaders,
        answerBody: received?.body() ?? Buffer.alloc(0),
        answerBytes: received?.bytes ?? 0,
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
    // Silence between the proxy and the target, whether it has not answered yet or stopped halfway.
    upstream.setTimeout(timeoutMs, () => upstream.destroy(Object.assign(new Error(`no answer within ${timeoutMs} ms`), { code: 'PROXY_TIMEOUT' })))
    upstream.on('response', (answer) => {
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
        if (answer.complete) return
        response.destroy()
        end('broken', 'the answer broke off')
      })
      response.on('finish', () => end('answered'))
    })
    upstream.on('error', (error: NodeJS.ErrnoException) => {
      if (ended) return
      if (response.headersSent) {
        response.destroy()
        end('broken', `the answer broke off (${error.code ?? error.message})`)
        return
      }
      if (request.destroyed && !request.complete) {
        end('broken', 'the client went away')
        return
      }
      const timedOut = error.code === 'PROXY_TIMEOUT'
      const tls = error.code !== undefined && TLS_CODES.has(error.code)
      const detail = timedOut
        ? `The target ${target.origin} sent nothing for ${timeoutMs} ms (--timeout).`
        : tls
          ? `The target ${target.origin} has a certificate that is not trusted (${error.code}): pass --ca FILE, or --insecure for a test installation.`
          : `The target ${target.origin} cannot be reached (${error.code ?? error.message}).`
      status = timedOut ? 504 : 502
      request.resume()
      sendProblem(response, timedOut ? 'TARGET_TIMEOUT' : 'TARGET_UNREACHABLE', detail, url)
      response.on('finish', () => end(timedOut ? 'timeout' : 'unreachable', detail))
      response.on('close', () => end(timedOut ? 'timeout' : 'unreachable', detail))
    })
    request.on('data', (chunk: Buffer) => sent.push(chunk))
    request.pipe(upstream)
    // The client went away before the answer was whole: the target's side goes too.
    response.on('close', () => {
      if (ended || response.writableFinished) return
      upstream.destroy()
      end('broken', 'the client went away')
    })
  }

  const server = createServer({ maxHeaderSize: 1024 * 1024 }, (request, response) => {
    const host = request.headers.host
    // A web page whose own name was pointed at this machine (DNS rebinding) gets nothing but the 403, as from the mock.
    if (accepts !== undefined && host !== undefined && host !== lastAccepted) {
      const name = hostName(host)
      if (!accepts(name)) {
        request.resume()
        return sendProblem(response, 'FOREIGN_HOST', `This proxy answers localhost and loopback addresses only, not the host "${name.slice(0, 255)}": a web page could otherwise reach it by pointing a name of its own at this machine. Start it with --host 0.0.0.0 to take every name.`, (request.url ?? '/').slice(0, 2048))
      }
      lastAccepted = host
    }
    const url = originForm(request.url ?? '/')
    const question = url.indexOf('?')
    const path = question < 0 ? url : url.slice(0, question)
    if (path === OWN_PREFIX || path.startsWith(`${OWN_PREFIX}/`)) return ownEndpoint(request, response, path)
    forward(request, response)
  })
  // No limit of the proxy's own on how long a client may take to send: the target sets its own.
  server.requestTimeout = 0
  server.headersTimeout = 0
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
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      server.closeIdleConnections()
      if (inFlight > 0) {
        await Promise.race([new Promise<void>((resolve) => (drained = resolve)), new Promise((resolve) => setTimeout(resolve, 2000).unref())])
      }
      server.closeAllConnections()
      agent.destroy()
      await closed
    },
  }
}
