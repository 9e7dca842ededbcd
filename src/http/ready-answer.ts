import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { bufferOf } from '../bytes.ts'
import type { ReadyBytes } from '../wire/ready-bytes.ts'

/** Reads an answer's payload (and may set headers) without changing it. */
export type PayloadTap = (request: FastifyRequest, reply: FastifyReply, payload: unknown) => void

/**
 * A change one answer still needs (an answer rule's patch, a fault's cut): the payload to send
 * instead (or the same one, after a side effect such as a cut connection).
 */
export type PayloadChange = (request: FastifyRequest, reply: FastifyReply, payload: unknown) => unknown

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Whether answers kept as ready bytes may be written past Fastify's onSend hooks: false when
     * a hook that changes the payload or needs it whole is on (usage recording, deviations).
     */
    readyWrites: boolean
    /** What every answer's onSend hook does that reads the payload; ready answers call them themselves. */
    payloadTaps: PayloadTap[]
  }
  interface FastifyReply {
    /**
     * The change this answer still needs, set by `changeAnswer` when the request's handling decided
     * it (decorated null): the answer's onSend hook runs it before the taps read the payload.
     */
    answerChange: PayloadChange | null
  }
}

const JSON_UTF8 = 'application/json; charset=utf-8'

/**
 * Prepares the app for ready answers. `readyWrites` is false when a hook that changes payloads is
 * registered (it must then see every page). Call before any `addPayloadTap`.
 */
export function registerReadyAnswers(app: FastifyInstance, readyWrites: boolean): void {
  const taps: PayloadTap[] = []
  app.decorate('readyWrites', readyWrites)
  app.decorate('payloadTaps', taps)
  app.decorateReply('answerChange', null)
  // One hook for both, the change first: what the taps read (the journal's copy, the warnings) is
  // what the client gets, whatever order the plugins were registered in.
  app.addHook('onSend', (request, reply, payload, done) => {
    const change = reply.answerChange
    const sent = change === null ? payload : change(request, reply, payload)
    for (const tap of taps) tap(request, reply, sent)
    done(null, sent)
  })
}

/**
 * Adds a function that reads every answer's payload without changing it, run by the answers' one
 * onSend hook and by a ready answer itself. Hooks that read payloads are added only this way, so
 * the two paths cannot drift apart (test/http/ready-answer.test.ts counts them).
 */
export function addPayloadTap(app: FastifyInstance, tap: PayloadTap): void {
  app.payloadTaps.push(tap)
}

/**
 * Gives this answer a change to go through, run by the answer's onSend hook before every tap (a
 * page kept as ready bytes is then joined first). An answer takes at most one: the rules decide
 * one per request (src/mock/plugins/rules.ts).
 */
export function changeAnswer(reply: FastifyReply, change: PayloadChange): void {
  reply.answerChange = change
}

/**
 * Sends a JSON answer the store keeps as ready bytes (views of its arenas) without joining them:
 * the headers and every piece go out corked, in one system call, as Fastify's own `send` does for
 * one buffer. Copying a 50 KB page into a fresh buffer per request (and collecting those buffers)
 * cost more than everything else a page read does.
 *
 * Fastify's onSend hooks take one buffer, so this runs the payload taps itself (the
 * `X-Mock-Warnings` header, the journal's reference to the body) and writes through
 * `reply.hijack()`; onResponse hooks (request log, journal entry) still run when the answer is
 * written. When a hook must see or change the payload (`readyWrites` off, or a change this answer
 * needs, `changeAnswer`), the pieces are joined and sent the usual way.
 */
export function sendReady(request: FastifyRequest, reply: FastifyReply, ready: ReadyBytes): FastifyReply {
  reply.type(JSON_UTF8)
  if (!request.server.readyWrites || reply.answerChange !== null || request.method === 'HEAD' || ready.chunks.length === 1)
    return reply.send(bufferOf(ready.body))
  for (const tap of request.server.payloadTaps) tap(request, reply, ready)
  reply.hijack()
  const response = reply.raw
  reply.header('content-length', ready.length)
  response.writeHead(reply.statusCode, reply.getHeaders() as OutgoingHttpHeaders)
  response.cork()
  for (const chunk of ready.chunks) response.write(chunk)
  response.end()
  response.uncork()
  return reply
}
