import { writeFileSync } from 'node:fs'
import { parentPort, workerData } from 'node:worker_threads'
import { JUDGE_THREAD_NAME, type JudgeReply, type JudgeRequest, type JudgeWorkerData } from './judge-protocol.ts'
import { judgeService } from './judge-service.ts'

/**
 * The proxy's judging thread: it loads the documents and the validators and runs the judge
 * (judge-service.ts), which tells the main thread how to know a sign-in and then judges the
 * exchanges it is sent. Nothing it does (a body that takes minutes to judge, a bug that throws) can
 * hold the forwarding or the signals, which stay on the main thread; the main thread bounds what
 * waits here and may end this thread at any time.
 */

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
  const service = judgeService(workerData as JudgeWorkerData)
  nameThread()
  port.postMessage([service.ready] satisfies JudgeReply[])
  port.on('message', (batch: JudgeRequest[]) => service.judge(batch, (replies) => port.postMessage(replies)))
}
