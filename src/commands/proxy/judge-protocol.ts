import type { UsageFile } from '../../usage-file/file.ts'
import type { ExchangeToJudge, judgeExchange } from './judge.ts'
import type { signInMatchers } from './views.ts'

/**
 * What the main thread and the judging thread say to each other (judge-thread.ts starts the thread,
 * judge-worker.ts is the thread): apart from both, so neither imports the other.
 */

/** The name the judging thread gives itself where the system lets it (Linux, 15 characters at most), as `top -H` and `ps -L` show it: the bench finds it by this name to place it on a core and count its CPU time. */
export const JUDGE_THREAD_NAME = 'appdata-judge'

/** What the main thread gives the thread at its start. */
export interface JudgeWorkerData {
  checkLimitBytes: number
  recordUsage: boolean
  /** The usage counted so far, when the thread is started again after one that failed. */
  usage?: UsageFile
}

/** An exchange to judge; the thread takes them in batches (`JudgeRequest[]`), and answers in batches (`JudgeReply[]`). */
export interface JudgeRequest {
  id: number
  exchange: ExchangeToJudge
}

/** A message from the thread. */
export type JudgeReply =
  | { type: 'ready'; matchers: ReturnType<typeof signInMatchers> }
  | { type: 'judged'; id: number; judgement: ReturnType<typeof judgeExchange> }
  | { type: 'failed'; id: number; message: string }
