import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { bufferOf } from '../bytes.ts'
import type { ReadyBytes } from '../wire/ready-bytes.ts'

/** Reads an answer's payload (and may set headers) without changing it. */
export type PayloadTap = (request: FastifyRequest, reply: FastifyReply, payload: unknown) => void

/** Changes the answers of the requests it applies to (an answer rule's patch, a fault's cut). */
export interface PayloadChange {
  /** Whether it changes this request's answer: a page kept as ready bytes is then joined and passed to `change`. */
  applies(request: FastifyRequest): boolean
  /** The payload to send instead (or the same one, after a side effect such as a cut connection). */
  change(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Whether answers kept as ready bytes may be written past Fastify's onSend hooks: false when
     * a hook that changes the payload or needs it whole is on (usage recording, deviations).
     */
    readyWrites: boolean
    /** What every answer's onSend hook does that reads the payload; ready answers call them themselves. */
    payloadTaps: PayloadTap[]
    /** What may change an answer before the taps read it. */
    payloadChanges: PayloadChange[]
  }
}

const JSON_UTF8 = 'application/json; charset=utf-8'

/**
 * Prepares the app for ready answers. `readyWrites` is false when a hook that changes payloads is
 * registered (it must then see every page). Call before any `addPayloadTap`.
 */
export function registerReadyAnswers(app: FastifyInstance, readyWrites: boolean): void {
  const taps: PayloadTap[] = []
  const changes: PayloadChange[] = []
  app.decorate('readyWrites', readyWrites)
  app.decorate('payloadTaps', taps)
  app.decorate('payloadChanges', changes)
  // One hook for both, changes first: what the taps read (the journal's copy, the warnings) is
  // what the client gets, whatever order the plugins were registered in.
  app.addHook('onSend', (request, reply, payload, done) => {
    let sent = payload
    for (const change of changes) if (change.applies(request)) sent = change.change(request, reply, sent)
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

/** Adds a change of the answers it applies to, run by the answers' onSend hook before every tap. */
export function addPayloadChange(app: FastifyInstance, change: PayloadChange): void {
  app.payloadChanges.push(change)
}

/** Whether a change applies to this request's answer (it must then go through the onSend hook). */
function changed(request: FastifyRequest): boolean {
  for (const change of request.server.payloadChanges) if (change.applies(request)) return true
  return false
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
 * written. When a hook must see or change the payload (`readyWrites` off, or a payload change that
 * applies to the request), the pieces are joined and sent the usual way.
 */
export function sendReady(request: FastifyRequest, reply: FastifyReply, ready: ReadyBytes): FastifyReply {
  reply.type(JSON_UTF8)
  if (!request.server.readyWrites || changed(request) || request.method === 'HEAD' || ready.chunks.length === 1) return reply.send(bufferOf(ready.body))
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
