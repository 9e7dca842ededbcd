import { Worker } from 'node:worker_threads'
import type { JudgeReply, JudgeRequest, JudgeWorkerData } from './judge-protocol.ts'
export { JUDGE_THREAD_NAME } from './judge-protocol.ts'

/**
 * Starting the judging thread (judge-worker.ts) from wherever this module runs: the bundled
 * command line (dist/bin/, where scripts/bundle-bin.mjs emits `judge-worker.mjs` beside the
 * chunks), the compiled tree (dist/src/commands/proxy/`judge-worker.js`), or the sources themselves (a test,
 * `tsx`), where the thread loads tsx's loader first to read TypeScript.
 */

/** The main thread's handle on a judging thread. */
export interface JudgeThread {
  /** Sends an exchange; the bodies' memory moves to the thread (`transfer`). Those sent in one turn of the event loop go in one message, at its end. */
  send(request: JudgeRequest, transfer: ArrayBuffer[]): void
  /** Ends the thread at once, wherever it is in its work; resolves when it ended (at most `waitMs` later). */
  terminate(waitMs?: number): Promise<void>
}

/** What the main thread hears from a judging thread. */
export interface JudgeListener {
  reply(message: JudgeReply): void
  /** The thread ended by itself (an error it did not catch, memory): what it was sent and had not answered is lost. */
  ended(message: string): void
}

/** Starts a judging thread. */
export type StartJudge = (data: JudgeWorkerData, listener: JudgeListener) => JudgeThread

/** The thread's entry beside this module, by the extension this module was loaded with. */
function workerEntry(): { url: URL; typescript: boolean } {
  const here = import.meta.url
  const extension = /\.(mjs|js|ts)$/.exec(new URL(here).pathname)?.[1] ?? 'js'
  return { url: new URL(`./judge-worker.${extension}`, here), typescript: extension === 'ts' }
}

/** Starts the judging thread of this installation of the proxy. */
export const startJudgeThread: StartJudge = (data, listener) => {
  const { url, typescript } = workerEntry()
  let worker: Worker
  if (typescript) {
    // From the sources: the thread registers tsx's loader (a development dependency), then loads its entry.
    const api = import.meta.resolve('tsx/esm/api')
    worker = new Worker(`import(${JSON.stringify(api)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(url.href)}) })`, {
      eval: true,
      workerData: data,
    })
  } else {
    worker = new Worker(url, { workerData: data })
  }
  let ended = false
  const end = (message: string) => {
    if (ended) return
    ended = true
    listener.ended(message)
  }
  worker.on('message', (messages: JudgeReply[]) => {
    for (const message of messages) listener.reply(message)
  })
  worker.on('error', (error) => end(error.message))
  worker.on('exit', (code) => end(`the judging thread ended (exit code ${code})`))
  // The thread never keeps the process alive: the proxy's server does, and stopping ends the thread.
  worker.unref()
  // Exchanges that end in one turn of the event loop go to the thread in one message (and their
  // judgements come back together): each message costs both threads a wake-up and a serialization of
  // its own. On W9's page that was a tenth of the proxy's CPU time per exchange (about 815 µs in all
  // with a message each, 735 µs batched, its threads together, measured with /proc over 2,000 pages).
  let batch: JudgeRequest[] = []
  let moved: ArrayBuffer[] = []
  let scheduled = false
  const flush = () => {
    scheduled = false
    const [requests, transfer] = [batch, moved]
    batch = []
    moved = []
    if (ended || requests.length === 0) return
    try {
      worker.postMessage(requests, transfer)
    } catch (error) {
      // An exchange that cannot be sent (it never should) is one the judge failed on: counted, never a crash of the proxy.
      for (const { id } of requests)
        listener.reply({ type: 'failed', id, message: `the exchange could not be sent to the judging thread (${(error as Error).message})` })
    }
  }
  return {
    send(request, transfer) {
      batch.push(request)
      moved.push(...transfer)
      if (!scheduled) {
        scheduled = true
        setImmediate(flush)
      }
    },
    async terminate(waitMs = 500) {
      ended = true
      let timer: NodeJS.Timeout | undefined
      await Promise.race([
        worker.terminate().then(
          () => undefined,
          () => undefined,
        ),
        new Promise((resolve) => (timer = setTimeout(resolve, waitMs))),
      ])
      clearTimeout(timer)
    },
  }
}
