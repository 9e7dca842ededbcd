import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { UsageAccumulator, writeUsageFile, type UsageFile } from '../../usage-file/file.ts'
import { requestShape } from '../../usage-file/request-shape.ts'
import { ShapeAccumulator } from '../../usage-file/shape.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The usage recorder with `--record-usage`; null otherwise. */
    usage: UsageRecorder | null
  }
}

/**
 * Records what clients use (`--record-usage FILE`): registered only when asked for, so a mock
 * that does not record pays nothing per request. While recording, the request path only keeps
 * references (request, headers, body, the answer's payload) in a queue; shapes are computed after
 * the answer went out, in batches, and at the latest when the usage is read or written.
 */
export interface UsageRecorder {
  /** The usage so far, as the file would hold it. */
  usage(): UsageFile
  /** Writes the file now; the reason when it could not be written. */
  write(): string | undefined
  readonly file: string
}

/** One answered request, kept by reference until it is folded in. */
interface Pending {
  operation: string
  url: string
  headers: FastifyRequest['headers']
  body: unknown
  params: unknown
  status: number
  contentType: string
  payload: unknown
}

/** Bodies shaped per interaction and status; past this many, answers are only counted (their shape has settled). */
const SHAPED_ANSWERS = 100

function text(payload: unknown): string | undefined {
  if (typeof payload === 'string') return payload
  if (Buffer.isBuffer(payload)) return payload.toString('utf8')
  return undefined
}

function parseJson(payload: unknown): unknown {
  const body = text(payload)
  if (body === undefined || body === '') return undefined
  try {
    return JSON.parse(body)
  } catch {
    return undefined
  }
}

export function registerUsage(app: FastifyInstance, file: string): UsageRecorder {
  const release = app.mockConfig.productVersion
  const accumulator = new UsageAccumulator()
  let pending: Pending[] = []
  let scheduled = false

  const fold = () => {
    scheduled = false
    const batch = pending
    pending = []
    for (const item of batch) {
      const entry = accumulator.entry(item.operation, release, requestShape(item.operation, item.url, item.headers, item.body, item.params as Record<string, string> | undefined))
      entry.count++
      const answer = accumulator.answer(entry, item.status)
      answer.count++
      const mediaType = (item.contentType.split(';')[0] ?? '').trim().toLowerCase()
      if (item.status >= 400) {
        const code = (parseJson(item.payload) as { code?: unknown } | undefined)?.code
        if (typeof code === 'string') answer.problems.add(code)
        continue
      }
      if (mediaType !== '' && !/json/.test(mediaType)) {
        // A file: the media type the client received, never its bytes.
        answer.mediaTypes.add(mediaType)
        continue
      }
      if (answer.bodies >= SHAPED_ANSWERS) continue
      answer.bodies++
      const body = parseJson(item.payload)
      ;(answer.body ??= new ShapeAccumulator()).add(body === undefined ? (text(item.payload) === '' ? null : text(item.payload)) : body)
    }
  }

  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    const operation = request.routeOptions.config?.operationId
    if (operation !== undefined) {
      pending.push({
        operation,
        url: request.url,
        headers: request.headers,
        body: request.sentBody ?? request.body,
        params: request.params,
        status: reply.statusCode,
        contentType: String(reply.getHeader('content-type') ?? ''),
        payload,
      })
      if (!scheduled) {
        scheduled = true
        setImmediate(fold)
      }
    }
    done(null, payload)
  })

  const usage = () => {
    fold()
    return accumulator.file()
  }
  return {
    file,
    usage,
    write() {
      try {
        writeUsageFile(file, usage())
        return undefined
      } catch (error) {
        const reason = `usage file ${file} not written: ${(error as Error).message}`
        app.log.error(reason)
        return reason
      }
    },
  }
}
