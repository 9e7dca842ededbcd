import type { JudgeRequest } from './judge-protocol.ts'
import { judgeService } from './judge-service.ts'
import type { StartJudge } from './judge-thread.ts'

/**
 * The judge on the calling thread: what the judging thread does (judge-service.ts), each batch
 * judged at the next turn of the event loop. Judging then holds the forwarding while it runs, so
 * the proxy never takes this; `npm run mutate` does (test/proxy/support.ts), since a mutant lives
 * only in the thread that runs the tests, and a program that embeds the proxy where no thread may
 * start may.
 */
export const startJudgeInline: StartJudge = (data, listener) => {
  let ended = false
  let batch: JudgeRequest[] = []
  const service = judgeService(data)
  setImmediate(() => {
    if (!ended) listener.reply(service.ready)
  })
  const flush = () => {
    const requests = batch
    batch = []
    if (ended) return
    service.judge(requests, (replies) => {
      for (const reply of replies) if (!ended) listener.reply(reply)
    })
  }
  return {
    send(request) {
      batch.push(request)
      if (batch.length === 1) setImmediate(flush)
    },
    async terminate() {
      ended = true
    },
  }
}
