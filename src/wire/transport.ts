import { Agent as HttpAgent, request as httpRequest } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { rootCertificates } from 'node:tls'
import { textOf } from '../bytes.ts'

/** A request as a transport sends it: the path below the base URL, with its query string. */
export interface WireRequest {
  method: string
  path: string
  headers?: Record<string, string>
  body?: string | Uint8Array
  /** Give up (TransportError TOO_LARGE) as soon as the answer's body passes this many bytes. */
  maxBytes?: number
  /**
   * Only the size of a 2xx answer's body, not its bytes: its Content-Length when it says one (the
   * transport hangs up after the headers), else the bytes counted as they come and dropped.
   */
  sizeOnly?: boolean
}

/** An answer as a transport receives it; header names in lower case. */
export interface WireResponse {
  status: number
  headers: Record<string, string>
  body: Uint8Array
  /** With `sizeOnly`, the body's length in bytes (`body` is then empty). */
  size?: number
}

/** How requests reach an installation: over HTTP(S), or into a mock in the same process. */
export interface Transport {
  send(request: WireRequest): Promise<WireResponse>
  /** Frees sockets; a transport is not used after. */
  close(): Promise<void>
  /** Where requests go, for messages (never holds a secret). */
  readonly target: string
}

/** Why a request got no answer: the installation cannot be reached, or took longer than allowed. */
export class TransportError extends Error {
  override name = 'TransportError'
  readonly code: 'UNREACHABLE' | 'TIMEOUT' | 'TLS' | 'TOO_LARGE'
  constructor(code: TransportError['code'], message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
  }
}

export interface HttpTransportOptions {
  /** Per-request limit in milliseconds, from sending to the answer's last byte (default 30 s). */
  timeoutMs?: number
  /** PEM certificate(s) to trust besides the system's, for an installation with its own CA. */
  ca?: string | Uint8Array
  /** Accept any certificate (testing only). */
  insecure?: boolean
}

const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
])

/**
 * A request target as a browser or `fetch` would send it: characters a URL may not hold raw
 * (controls, spaces, quotes, angle brackets, non-ASCII) percent-encoded as UTF-8, escapes already
 * written kept, so clients and tests can pass readable paths and queries.
 */
export function requestTarget(target: string): string {
  const question = target.indexOf('?')
  // A lone surrogate has no UTF-8 form; URL parsers write the replacement character for it.
  const escape = (c: string) => (/^[\ud800-\udfff]$/.test(c) ? '%EF%BF%BD' : encodeURIComponent(c))
  const encode = (text: string, unsafe: RegExp) => text.replace(unsafe, escape)
  const path = encode(question < 0 ? target : target.slice(0, question), /[\u0000-\u0020"#<>`{}\u007f]|[^\u0000-\u007f]/gu)
  return question < 0 ? path : `${path}?${encode(target.slice(question + 1), /[\u0000-\u0020"#<>\u007f]|[^\u0000-\u007f]/gu)}`
}

function headersOf(raw: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(raw)) if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  return out
}

/** A Content-Length header's value as a byte count, or undefined when it gives none. */
function declaredLength(header: string | undefined): number | undefined {
  if (header === undefined || !/^\d+$/.test(header.trim())) return undefined
  const length = Number(header)
  return Number.isSafeInteger(length) ? length : undefined
}

/**
 * The host to connect to for a base URL: an IPv6 literal without the brackets a URL writes it
 * in (`http://[::1]:4080` connects to `::1`), any other host as it is.
 */
export function connectionHost(base: URL): string {
  return base.hostname.startsWith('[') && base.hostname.endsWith(']') ? base.hostname.slice(1, -1) : base.hostname
}

/**
 * The options of an HTTPS transport's agent. A CA given is trusted besides Node's bundled roots:
 * Node's `ca` option replaces the roots, so an installation's own CA given alone would make every
 * publicly certified host (a proxy, a cloud gateway) untrusted.
 */
export function httpsAgentOptions(options: HttpTransportOptions): { keepAlive: boolean; ca?: string[]; rejectUnauthorized: boolean } {
  return {
    keepAlive: true,
    ...(options.ca === undefined ? {} : { ca: [...rootCertificates, textOf(options.ca)] }),
    rejectUnauthorized: options.insecure !== true,
  }
}

/**
 * Requests over HTTP or HTTPS to a base URL (`https://host[:port][/prefix]`), on kept-alive
 * sockets. Node's own http and https modules, so a certificate authority or `insecure` can be
 * given per transport without touching the process.
 */
export function httpTransport(baseUrl: string, options: HttpTransportOptions = {}): Transport {
  let base: URL
  try {
    base = new URL(baseUrl)
  } catch {
    // The runtime's parser says only "Invalid URL": which text, and what would do, are said here.
    throw new TypeError(`base URL must be an absolute http or https URL such as https://appdata.example.com, got ${JSON.stringify(baseUrl)}`)
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') throw new TypeError(`base URL must be http or https, got ${base.protocol}`)
  const secure = base.protocol === 'https:'
  const prefix = base.pathname.replace(/\/+$/, '')
  const timeoutMs = options.timeoutMs ?? 30_000
  const agent = secure ? new HttpsAgent(httpsAgentOptions(options)) : new HttpAgent({ keepAlive: true })
  const send = secure ? httpsRequest : httpRequest
  return {
    target: `${base.origin}${prefix}`,
    send(request) {
      return new Promise((resolve, reject) => {
        const body = request.body === undefined ? undefined : Buffer.from(request.body)
        const headers = { ...request.headers, ...(body === undefined ? {} : { 'content-length': String(body.length) }) }
        let settled = false
        const settle = (outcome: () => void) => {
          if (settled) return
          settled = true
          clearTimeout(timer)
          outcome()
        }
        const fail = (error: TransportError) => settle(() => reject(error))
        const req = send(
          {
            protocol: base.protocol,
            hostname: connectionHost(base),
            port: base.port,
            path: `${prefix}${requestTarget(request.path)}`,
            method: request.method,
            headers,
            agent,
          },
          (res) => {
            const status = res.statusCode ?? 0
            const sizeOnly = request.sizeOnly === true && status >= 200 && status <= 299
            const declared = sizeOnly ? declaredLength(res.headers['content-length']) : undefined
            if (declared !== undefined) {
              settle(() => resolve({ status, headers: headersOf(res.headers), body: Buffer.alloc(0), size: declared }))
              // The body is not wanted: closing the socket costs less than reading a large file through.
              res.destroy()
              return
            }
            const chunks: Buffer[] = []
            let received = 0
            res.on('data', (chunk: Buffer) => {
              received += chunk.length
              // Stop reading a body past the caller's limit at once, rather than holding all of it first.
              if (request.maxBytes !== undefined && received > request.maxBytes) {
                fail(new TransportError('TOO_LARGE', `${request.method} ${request.path}: the answer is larger than ${request.maxBytes} bytes`))
                req.destroy()
                return
              }
              if (!sizeOnly) chunks.push(chunk)
            })
            res.on('end', () =>
              settle(() => resolve({ status, headers: headersOf(res.headers), body: Buffer.concat(chunks), ...(sizeOnly ? { size: received } : {}) })),
            )
            res.on('error', (error) =>
              fail(new TransportError('UNREACHABLE', `${request.method} ${request.path}: the answer broke off (${error.message})`, { cause: error })),
            )
          },
        )
        // The whole exchange, not the socket's idle time: an answer that trickles in never idles.
        const timer = setTimeout(() => {
          fail(new TransportError('TIMEOUT', `${request.method} ${request.path}: no complete answer within ${timeoutMs} ms`))
          req.destroy()
        }, timeoutMs)
        req.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code !== undefined && TLS_CODES.has(error.code)) {
            return fail(
              new TransportError(
                'TLS',
                `${base.origin}: its certificate is not trusted (${error.code}); pass --ca FILE, or --insecure for a test installation`,
                { cause: error },
              ),
            )
          }
          fail(new TransportError('UNREACHABLE', `${base.origin} cannot be reached (${error.code ?? error.message})`, { cause: error }))
        })
        req.end(body)
      })
    },
    async close() {
      agent.destroy()
    },
  }
}

/**
 * What `injectTransport` needs of an app: Fastify's `inject` (a RunningMock's `app` has it). Declared
 * by what it uses rather than as Fastify's type, so the package's types need neither Fastify's nor
 * Node's (a project without `@types/node` compiles against them).
 */
export interface InjectableApp {
  inject(request: { method: string; url: string; headers: Record<string, string>; payload?: string | Uint8Array }): Promise<{
    statusCode: number
    headers: Record<string, string | string[] | number | undefined>
    rawPayload: Uint8Array
  }>
}

/** Requests into a Fastify app in the same process (`app.inject`): no socket, for fast tests. */
export function injectTransport(app: InjectableApp): Transport {
  return {
    target: 'in-process mock',
    async send(request) {
      const answer = await app.inject({
        method: request.method,
        url: request.path,
        headers: request.headers ?? {},
        ...(request.body === undefined ? {} : { payload: request.body }),
      })
      const headers = headersOf(answer.headers as Record<string, string | string[] | undefined>)
      if (request.sizeOnly === true && answer.statusCode >= 200 && answer.statusCode <= 299)
        return { status: answer.statusCode, headers, body: Buffer.alloc(0), size: answer.rawPayload.length }
      return { status: answer.statusCode, headers, body: answer.rawPayload }
    },
    async close() {},
  }
}
