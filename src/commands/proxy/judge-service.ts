import { UsageAccumulator } from '../../usage-file/file.ts'
import { USAGE_LIMITS } from '../../usage-file/limits.ts'
import type { JudgeReply, JudgeRequest, JudgeWorkerData } from './judge-protocol.ts'
import { judgeExchange, type ExchangeToJudge } from './judge.ts'
import { signInMatchers } from './views.ts'

/**
 * What a judging thread does, wherever it runs: told the options at its start, it says how to know a
 * sign-in (its `ready`), then judges the exchanges of each batch one after the other, in the order
 * they ended, and hands each judgement back. judge-worker.ts runs it in a thread of its own (the
 * proxy's way); judge-thread.ts's `startJudgeInline` on the calling thread.
 */

/** Longest a judgement waits for the others of its batch before it is handed back, ms. */
const REPLY_MS = 10
/** Bodies past this many bytes may take long to judge: the judgements before them are handed back first. */
const BIG_BYTES = 256 * 1024

const sizeOf = (exchange: ExchangeToJudge): number =>
  (exchange.requestBody === 'too-large' ? 0 : exchange.requestBody.byteLength) + (exchange.answerBody === 'too-large' ? 0 : exchange.answerBody.byteLength)

export interface JudgeService {
  /** The first message: how the main thread knows a sign-in. */
  ready: JudgeReply
  /** Judges a batch, handing back judgements in groups (`post`): none waits on a big body's judging, nor more than REPLY_MS for the others. */
  judge(batch: readonly JudgeRequest[], post: (replies: JudgeReply[]) => void): void
}

export function judgeService(data: JudgeWorkerData): JudgeService {
  const usage = data.recordUsage ? new UsageAccumulator({ limit: USAGE_LIMITS.interactions }) : undefined
  if (data.usage !== undefined) usage?.addFile(data.usage)
  const options = { checkLimitBytes: data.checkLimitBytes, ...(usage === undefined ? {} : { usage }) }
  return {
    ready: { type: 'ready', matchers: signInMatchers() },
    judge(batch, post) {
      let replies: JudgeReply[] = []
      let since = performance.now()
      const send = () => {
        if (replies.length > 0) post(replies)
        replies = []
        since = performance.now()
      }
      for (const { id, exchange } of batch) {
        if (sizeOf(exchange) > BIG_BYTES || performance.now() - since >= REPLY_MS) send()
        // Whatever an exchange holds, judging it must not end the judge: it is counted as not judged, with the reason.
        try {
          replies.push({ type: 'judged', id, judgement: judgeExchange(exchange, options) })
        } catch (error) {
          replies.push({ type: 'failed', id, message: `${exchange.method} ${exchange.url.split('?')[0]}: ${(error as Error).message}` })
        }
      }
      send()
    },
  }
}
