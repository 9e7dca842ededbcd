import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { bufferOf } from '../bytes.ts'
import type { ReadyBytes } from '../store/engine/ready-bytes.ts'

/** Reads an answer's payload (and may set headers) without changing it. */
export type PayloadTap = (request: FastifyRequest, reply: FastifyReply, payload: unknown) => void

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Whether answers kept as ready bytes may be written past Fastify's onSend hooks: false when
     * a hook that changes the payload or needs it whole is on (usage recording, deviations).
     */
    readyWrites: boolean
    /** What every answer's onSend hooks do that reads the payload; ready answers call them themselves. */
    payloadTaps: PayloadTap[]
  }
  interface FastifyRequest {
    /** Set by a hook that must see this request's answer (a fault rule on it): no ready write then. */
    answerThroughHooks: boolean
  }
}

const JSON_UTF8 = 'application/json; charset=utf-8'

/**
 * Prepares the app for ready answers. `readyWrites` is false when a hook that changes payloads is
 * registered (it must then see every page). Call before any `addPayloadTap`.
 */
export function registerReadyAnswers(app: FastifyInstance, readyWrites: boolean): void {
  app.decorate('readyWrites', readyWrites)
  app.decorate('payloadTaps', [])
  app.decorateRequest('answerThroughHooks', false)
}

/**
 * Adds an onSend hook that reads the payload without changing it, and the same function to what a
 * ready answer does itself. Hooks that read payloads are added only this way, so the two paths
 * cannot drift apart (test/http/ready-answer.test.ts counts them).
 */
export function addPayloadTap(app: FastifyInstance, tap: PayloadTap): void {
  app.payloadTaps.push(tap)
  app.addHook('onSend', (request, reply, payload, done) => {
    tap(request, reply, payload)
    done(null, payload)
  })
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
 * written. When a hook must see or change the payload (`readyWrites` off, or a request marked
 * `answerThroughHooks`), the pieces are joined and sent the usual way.
 */
export function sendReady(request: FastifyRequest, reply: FastifyReply, ready: ReadyBytes): FastifyReply {
  reply.type(JSON_UTF8)
  if (!request.server.readyWrites || request.answerThroughHooks || request.method === 'HEAD' || ready.chunks.length === 1) return reply.send(bufferOf(ready.body))
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
