import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { UsageAccumulator, writeUsageFile, type UsageFile } from '../../usage-file/file.ts'
import { recordExchange, type RecordedExchange } from '../../usage-file/record.ts'
import { USAGE_LIMITS } from '../../usage-file/limits.ts'

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

export function registerUsage(app: FastifyInstance, file: string): UsageRecorder {
  const release = app.mockConfig.productVersion
  // As many interactions as a usage file may hold (USAGE_LIMITS): what the recorder writes, every reader takes.
  const accumulator = new UsageAccumulator({ limit: USAGE_LIMITS.interactions })
  let pending: RecordedExchange[] = []
  let scheduled = false

  const fold = () => {
    scheduled = false
    const batch = pending
    pending = []
    for (const item of batch) recordExchange(accumulator, release, item)
  }

  app.addHook('onSend', (request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void) => {
    const operation = request.routeOptions.config?.operationId
    if (operation !== undefined) {
      pending.push({
        operation,
        url: request.url,
        headers: request.headers,
        body: request.sentBody ?? request.body,
        params: request.params as Record<string, string> | undefined,
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
        if (accumulator.unrecorded > 0) {
          app.log.warn(
            `usage file ${file}: ${accumulator.unrecorded} request(s) of shapes past the ${USAGE_LIMITS.interactions} interactions a usage file holds were not recorded`,
          )
        }
        return undefined
      } catch (error) {
        const reason = `usage file ${file} not written: ${(error as Error).message}`
        app.log.error(reason)
        return reason
      }
    },
  }
}
