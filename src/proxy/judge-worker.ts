import { parentPort, workerData } from 'node:worker_threads'
import { UsageAccumulator, type UsageFile } from '../usage-file/file.ts'
import { USAGE_LIMITS } from '../usage-file/limits.ts'
import { judgeExchange, type ExchangeToJudge } from './judge.ts'
import { signInMatchers } from './views.ts'

/**
 * The proxy's judging thread: it loads the documents and the validators, tells the main thread
 * how to know a sign-in, then judges the exchanges it is sent one after the other, in the order
 * they ended, and sends each judgement back. Nothing it does (a body that takes minutes to judge, a
 * bug that throws) can hold the forwarding or the signals, which stay on the main thread; the main
 * thread bounds what waits here and may end this thread at any time.
 */

/** What the main thread gives the thread at its start. */
export interface JudgeWorkerData {
  checkLimitBytes: number
  recordUsage: boolean
  /** The usage counted so far, when the thread is started again after one that failed. */
  usage?: UsageFile
}

/** A message to the thread. */
export interface JudgeRequest {
  id: number
  exchange: ExchangeToJudge
}

/** A message from the thread. */
export type JudgeReply =
  | { type: 'ready'; matchers: ReturnType<typeof signInMatchers> }
  | { type: 'judged'; id: number; judgement: ReturnType<typeof judgeExchange> }
  | { type: 'failed'; id: number; message: string }

const port = parentPort
if (port !== null) {
  const data = workerData as JudgeWorkerData
  const usage = data.recordUsage ? new UsageAccumulator({ limit: USAGE_LIMITS.interactions }) : undefined
  if (data.usage !== undefined) usage?.addFile(data.usage)
  const reply = (message: JudgeReply) => port.postMessage(message)
  reply({ type: 'ready', matchers: signInMatchers() })
  port.on('message', ({ id, exchange }: JudgeRequest) => {
    // Whatever an exchange holds, judging it must not end the thread: it is counted as not judged, with the reason.
    try {
      reply({ type: 'judged', id, judgement: judgeExchange(exchange, { checkLimitBytes: data.checkLimitBytes, ...(usage === undefined ? {} : { usage }) }) })
    } catch (error) {
      reply({ type: 'failed', id, message: `${exchange.method} ${exchange.url.split('?')[0]}: ${(error as Error).message}` })
    }
  })
}
