import type { Socket } from 'node:net'
import type { FastifyInstance } from 'fastify'
import { ProblemError } from '../../errors.ts'

/** How long a connection refused mid-body is drained before it is closed. */
export const DRAIN_MS = 5000
/** How many bytes a connection refused mid-body may still send before it is closed. */
export const DRAIN_BYTES = 64 * 1024 * 1024
/** How often a draining connection's byte count is looked at. */
const DRAIN_CHECK_MS = 100

/**
 * The environment's URL limit (the description, Limits: 2048 characters). Counted on the request target
 * (path and query as sent), before anything else runs, so an over-long URL costs nothing.
 * The 60 MB body limit is Fastify's `bodyLimit`, which refuses by Content-Length before reading;
 * the connection of a request refused before its body was read is closed gracefully (see below).
 */
export function registerLimits(app: FastifyInstance, maxUrlLength: number): void {
  // Callback style, not async: an async hook costs every request a promise and a microtask turn.
  app.addHook('onRequest', (request, _reply, done) => {
    if (request.url.length <= maxUrlLength) return done()
    done(new ProblemError('URI_TOO_LONG', `The URL has ${request.url.length} characters; the limit is ${maxUrlLength}.`, { limit: maxUrlLength }))
  })
  // Runs only for errors: a request whose body the client is still sending when it is refused
  // (413 by Content-Length or mid-stream, 414 or 403 before the body) ends its connection, but
  // gracefully, so the client can read the refusal.
  app.addHook('onError', (request, reply, _error, done) => {
    // `complete` is still false for a request without a body refused in onRequest: only a body to come counts.
    const bodyToCome = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0
    if (bodyToCome && !request.raw.complete) {
      // Keeping the connection would read the rest of a body the mock refused, however long it is.
      reply.header('connection', 'close')
      closeGracefully(request.raw.socket)
    }
    done()
  })
}

/**
 * RFC 9112, section 9.6: a server that closes while the client is still sending makes the client's
 * kernel see a reset, which discards the answer before the client reads it (Node's `fetch` then
 * reports EPIPE or ECONNRESET instead of the 413). So when Node closes this connection after the
 * answer, it only half-closes it (our FIN after the answer) and keeps reading, discarding, until
 * the client closes its side, DRAIN_MS pass or DRAIN_BYTES more arrive; then it is closed. A client
 * that keeps sending forever holds the socket no longer than that.
 */
function closeGracefully(socket: Socket | null): void {
  if (socket === null || socket.destroyed) return
  // Node calls destroySoon once the answer is written to a connection that does not stay open.
  socket.destroySoon = () => {
    const start = socket.bytesRead
    socket.end()
    const stop = (): void => {
      clearTimeout(deadline)
      clearInterval(check)
      socket.destroy()
    }
    const deadline = setTimeout(stop, DRAIN_MS)
    // Node's HTTP parser reads the socket without emitting 'data': the count is looked at instead.
    const check = setInterval(() => {
      if (socket.bytesRead - start > DRAIN_BYTES) stop()
    }, DRAIN_CHECK_MS)
    deadline.unref()
    check.unref()
    // The client closed its side (it read the answer and gave up sending): nothing is left to drain.
    socket.once('end', stop)
    socket.once('close', stop)
  }
}
