import { writeFileSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import { UsageAccumulator } from '../../usage-file/file.ts'
import { USAGE_LIMITS } from '../../usage-file/limits.ts'
import { JUDGE_THREAD_NAME, type JudgeReply, type JudgeRequest, type JudgeWorkerData } from './judge-protocol.ts'
import { judgeExchange, type ExchangeToJudge } from './judge.ts'
import { signInMatchers } from './views.ts'

/**
 * The proxy's judging thread: it loads the documents and the validators, tells the main thread
 * how to know a sign-in, then judges the exchanges it is sent one after the other, in the order
 * they ended, and sends each judgement back. Nothing it does (a body that takes minutes to judge, a
 * bug that throws) can hold the forwarding or the signals, which stay on the main thread; the main
 * thread bounds what waits here and may end this thread at any time.
 */

/** Longest a judgement waits for the others of its batch before it is sent back, ms. */
const REPLY_MS = 10
/** Bodies past this many bytes may take long to judge: the judgements before them are sent back first. */
const BIG_BYTES = 256 * 1024

const sizeOf = (exchange: ExchangeToJudge): number =>
  (exchange.requestBody === 'too-large' ? 0 : exchange.requestBody.byteLength) + (exchange.answerBody === 'too-large' ? 0 : exchange.answerBody.byteLength)

/** Names this thread where the system lets a thread name itself (Linux); elsewhere it keeps its name. */
function nameThread(): void {
  try {
    writeFileSync('/proc/thread-self/comm', JUDGE_THREAD_NAME)
  } catch {
    // Not Linux, or no /proc: only a name.
  }
}

const port = parentPort
if (port !== null) {
  const data = workerData as JudgeWorkerData
  const usage = data.recordUsage ? new UsageAccumulator({ limit: USAGE_LIMITS.interactions }) : undefined
  if (data.usage !== undefined) usage?.addFile(data.usage)
  nameThread()
  port.postMessage([{ type: 'ready', matchers: signInMatchers() }] satisfies JudgeReply[])
  const options = { checkLimitBytes: data.checkLimitBytes, ...(usage === undefined ? {} : { usage }) }
  port.on('message', (batch: JudgeRequest[]) => {
    let replies: JudgeReply[] = []
    let since = performance.now()
    const send = () => {
      if (replies.length > 0) port.postMessage(replies)
      replies = []
      since = performance.now()
    }
    for (const { id, exchange } of batch) {
      // The judgements of a batch go back together, but none waits on a big body's judging, nor more than REPLY_MS for the others.
      if (sizeOf(exchange) > BIG_BYTES || performance.now() - since >= REPLY_MS) send()
      // Whatever an exchange holds, judging it must not end the thread: it is counted as not judged, with the reason.
      try {
        replies.push({ type: 'judged', id, judgement: judgeExchange(exchange, options) })
      } catch (error) {
        replies.push({ type: 'failed', id, message: `${exchange.method} ${exchange.url.split('?')[0]}: ${(error as Error).message}` })
      }
    }
    send()
  })
}
