import { EventEmitter } from 'node:events'
import { Readable, Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import type { Transport, WireRequest, WireResponse } from '../../wire/transport.ts'

/**
 * Requests into a mock built in this process, handed to Fastify's own request handler
 * (`app.routing`, what its HTTP server calls for every request) with a request and an answer of
 * this module's own instead of a connection: routing, every hook (the host check, authentication,
 * the request check, warnings), the handler and the answer's bytes are the mock's, as over HTTP.
 *
 * `app.inject` does the same with objects built for any test a user may write (the URL parsed, the
 * options checked, Node's whole HTTP answer written to a socket that drops it, the body copied and
 * decoded as text), which cost four times what the mock's own work does on a small read: a replay
 * sends each recorded request to two mocks, a usage may hold 200,000 of them. These objects hold
 * what Fastify and the mock read of a request and write to an answer, no more: the request's
 * target as `inject` reads it, the headers it adds (Host, Content-Length), the body as one chunk;
 * the answer's status, headers and bytes as written (Fastify writes none for HEAD or 204).
 */

/** The connection a request came on: loopback, never encrypted; one per request, as `inject` makes. */
class LoopbackSocket extends EventEmitter {
  readonly remoteAddress = '127.0.0.1'
  readonly remotePort = 0
  readonly localAddress = '127.0.0.1'
  readonly encrypted = false
  destroyed = false
  readonly bytesRead = 0
  destroy(): this {
    this.destroyed = true
    return this
  }
  end(): this {
    return this
  }
  setTimeout(): this {
    return this
  }
}

/** The request as Node's server gives it to Fastify: method, target, headers (names in lower case), and the body as a stream. */
class DirectRequest extends Readable {
  readonly httpVersion = '1.1'
  readonly httpVersionMajor = 1
  readonly httpVersionMinor = 1
  readonly aborted = false
  /** Set once the body has been read to its end, as Node does. */
  complete = false
  readonly rawHeaders: string[] = []
  readonly socket = new LoopbackSocket()
  #body: Buffer | undefined

  constructor(
    readonly method: string,
    public url: string,
    readonly headers: Record<string, string>,
    body: Buffer | undefined,
  ) {
    // Not destroyed when read: Fastify and the mock look at the request after its body.
    super({ autoDestroy: false })
    for (const name of Object.keys(headers)) this.rawHeaders.push(name, headers[name] as string)
    this.#body = body
  }

  override _read(): void {
    const body = this.#body
    this.#body = undefined
    if (body !== undefined && body.length > 0) this.push(body)
    this.complete = true
    this.push(null)
  }
}

type HeaderValue = string | number | readonly string[]

function headersSentError(what: string): Error {
  return Object.assign(new Error(`Cannot ${what} after they are sent to the client`), { code: 'ERR_HTTP_HEADERS_SENT' })
}

/** The answer as Fastify and the mock write it (Node's ServerResponse's methods they call), kept in memory. */
class DirectResponse extends Writable {
  statusCode = 200
  statusMessage = ''
  headersSent = false
  readonly socket: LoopbackSocket
  readonly chunks: Buffer[] = []
  length = 0
  readonly #headers = new Map<string, HeaderValue>()

  constructor(readonly req: DirectRequest) {
    super()
    this.socket = req.socket
  }

  get finished(): boolean {
    return this.writableEnded
  }

  setHeader(name: string, value: HeaderValue): this {
    if (this.headersSent) throw headersSentError('set headers')
    this.#headers.set(name.toLowerCase(), value)
    return this
  }

  getHeader(name: string): HeaderValue | undefined {
    return this.#headers.get(name.toLowerCase())
  }

  getHeaders(): Record<string, HeaderValue> {
    return Object.fromEntries(this.#headers)
  }

  getHeaderNames(): string[] {
    return [...this.#headers.keys()]
  }

  hasHeader(name: string): boolean {
    return this.#headers.has(name.toLowerCase())
  }

  removeHeader(name: string): void {
    if (this.headersSent) throw headersSentError('remove headers')
    this.#headers.delete(name.toLowerCase())
  }

  /** Node's forms: (status, headers), (status, reason, headers); headers as an object or as a flat list of names and values. */
  writeHead(
    status: number,
    reason?: string | Record<string, HeaderValue | undefined> | HeaderValue[],
    headers?: Record<string, HeaderValue | undefined> | HeaderValue[],
  ): this {
    if (this.headersSent) throw headersSentError('write headers')
    const fields = typeof reason === 'string' ? headers : reason
    if (typeof reason === 'string') this.statusMessage = reason
    this.statusCode = status
    if (Array.isArray(fields)) {
      for (let i = 0; i + 1 < fields.length; i += 2) this.#headers.set(String(fields[i]).toLowerCase(), fields[i + 1] as HeaderValue)
    } else if (fields !== undefined) {
      for (const [name, value] of Object.entries(fields as Record<string, HeaderValue | undefined>))
        if (value !== undefined) this.#headers.set(name.toLowerCase(), value)
    }
    this.headersSent = true
    return this
  }

  flushHeaders(): void {
    if (!this.headersSent) this.writeHead(this.statusCode)
  }

  // Writing before the headers writes them first, with what was set, as Node does.
  override write(chunk: unknown, encoding?: unknown, callback?: unknown): boolean {
    if (!this.headersSent) this.writeHead(this.statusCode)
    return super.write(chunk, encoding as BufferEncoding, callback as (error: Error | null | undefined) => void)
  }

  override end(chunk?: unknown, encoding?: unknown, callback?: unknown): this {
    if (!this.headersSent && !this.writableEnded) this.writeHead(this.statusCode)
    return super.end(chunk, encoding as BufferEncoding, callback as () => void)
  }

  setTimeout(): this {
    return this
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.keep(chunk)
    callback()
  }

  override _writev(chunks: Array<{ chunk: Buffer }>, callback: (error?: Error | null) => void): void {
    for (const { chunk } of chunks) this.keep(chunk)
    callback()
  }

  private keep(chunk: Buffer): void {
    this.chunks.push(chunk)
    this.length += chunk.length
  }

  /** The headers as a transport gives them: names in lower case, several values joined. */
  wireHeaders(): Record<string, string> {
    const out: Record<string, string> = {}
    for (const [name, value] of this.#headers) out[name] = Array.isArray(value) ? value.join(', ') : String(value)
    return out
  }
}

/** Targets `inject` passes on as they are: a path and query of characters a URL keeps, no dot segment, no empty query. */
const PLAIN_TARGET = /^\/(?!\/)[A-Za-z0-9\-_~!$&()*+,;=:@/%?.]*$/
const DOT_SEGMENT = /(^|\/)(\.|%2e)/i

/**
 * The request target as `inject` gives it to the app: parsed as a URL against `http://localhost`
 * (characters a URL may not hold percent-encoded, dot segments resolved, a fragment dropped), its
 * path and query. Most targets are already in that form and are taken as they are.
 */
export function targetOf(path: string): string {
  const question = path.indexOf('?')
  const pathPart = question < 0 ? path : path.slice(0, question)
  if (PLAIN_TARGET.test(path) && !DOT_SEGMENT.test(pathPart) && !path.endsWith('?')) return path
  const url = new URL(path.startsWith('//') ? `http://localhost${path}` : path, 'http://localhost')
  return url.pathname + url.search
}

/** What `directTransport` needs of an app: Fastify's request handler. */
export type RoutingApp = Pick<FastifyInstance, 'routing'>

/** A transport into a Fastify app built in this process, through its own request handler (see above). */
export function directTransport(app: RoutingApp): Transport {
  return {
    target: 'in-process mock',
    send(request: WireRequest): Promise<WireResponse> {
      return new Promise((resolve, reject) => {
        const headers: Record<string, string> = {}
        for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = String(value)
        // An empty text is no body, as `inject` takes it (no Content-Length); empty bytes are a body of length 0.
        const body = request.body === undefined || request.body === '' ? undefined : Buffer.from(request.body)
        if (body !== undefined && headers['content-length'] === undefined) headers['content-length'] = String(body.length)
        // The host `inject` names: loopback, which the mock's host check takes.
        headers.host ??= 'localhost:80'
        const req = new DirectRequest(request.method.toUpperCase(), targetOf(request.path), headers, body)
        const res = new DirectResponse(req)
        let settled = false
        res.on('finish', () => {
          if (settled) return
          settled = true
          // A copy, as a socket would take it: a chunk may be a view of the mock's own memory (a page's rows), which a later write changes.
          const bytes = Buffer.concat(res.chunks, res.length)
          const wire = { status: res.statusCode, headers: res.wireHeaders() }
          resolve(
            request.sizeOnly === true && res.statusCode >= 200 && res.statusCode <= 299
              ? { ...wire, body: Buffer.alloc(0), size: bytes.length }
              : { ...wire, body: bytes },
          )
        })
        const fail = (error?: Error) => {
          if (settled) return
          settled = true
          reject(
            error ?? Object.assign(new Error(`${request.method} ${request.path}: the mock closed the answer before it was complete`), { code: 'ECONNRESET' }),
          )
        }
        res.on('error', fail)
        res.on('close', () => {
          if (!res.writableFinished) fail()
        })
        app.routing(req as never, res as never)
      })
    },
    async close() {},
  }
}
