import type { OutgoingHttpHeaders } from 'node:http'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { bufferOf } from '../bytes.ts'
import type { ReadyBytes } from '../store/ready-bytes.ts'
import { keepJournalPayload } from './plugins/journal.ts'
import { setWarningsHeader } from './plugins/warnings.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Whether answers kept as ready bytes may be written past Fastify's onSend hooks: false when
     * a hook that reads or changes the payload is on (usage recording, deviations).
     */
    readyWrites: boolean
  }
}

const JSON_UTF8 = 'application/json; charset=utf-8'

/**
 * Sends a JSON answer the store keeps as ready bytes (views of its arenas) without joining them:
 * the headers and every piece go out corked, in one system call, as Fastify's own `send` does for
 * one buffer. Copying a 50 KB page into a fresh buffer per request (and collecting those buffers)
 * cost more than everything else a page read does.
 *
 * Fastify's onSend hooks take one buffer, so this does itself what the hooks that are always on
 * do (the `X-Mock-Warnings` header, the journal's reference to the body) and writes through
 * `reply.hijack()`; onResponse hooks (request log, journal entry) still run when the answer is
 * written. When a hook that needs the payload is on (usage recording, deviations, a fault rule on
 * this request), the pieces are joined and sent the usual way. A test lists the app's onSend hooks,
 * so a new one cannot be skipped unnoticed (test/http/ready-answer.test.ts).
 */
export function sendReady(request: FastifyRequest, reply: FastifyReply, ready: ReadyBytes): FastifyReply {
  reply.type(JSON_UTF8)
  if (!request.server.readyWrites || request.mockFault !== null || request.method === 'HEAD' || ready.chunks.length === 1) return reply.send(bufferOf(ready.body))
  setWarningsHeader(request, reply)
  keepJournalPayload(request, reply, ready)
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
