/**
 * The judging thread as the system shows it (src/commands/proxy/judge-thread.ts): it names itself, so that
 * `top -H` or `ps -L` tell it from the forwarding thread and V8's own threads, and the bench can
 * place it on a core and count its CPU time (test/bench/workloads/w9-proxy.ts). Linux only: a
 * thread names itself through /proc there.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { stopStarted } from '../cli/processes.ts'
import { JUDGE_THREAD_NAME } from '../../src/commands/proxy/judge-thread.ts'
import { getItems, plantedTarget, proxy, report, stop } from './support.ts'

afterEach(stopStarted)

let target: Awaited<ReturnType<typeof plantedTarget>>
beforeAll(async () => {
  target = await plantedTarget({})
})
afterAll(async () => {
  await target?.close()
})

/** The names of a process's threads, by thread id. */
function threadNames(pid: number): Map<number, string> {
  return new Map(readdirSync(`/proc/${pid}/task`).map((tid) => [Number(tid), readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim()]))
}

describe.runIf(existsSync('/proc/thread-self/comm'))('the judging thread', () => {
  it(`is one thread of the proxy's process named ${JUDGE_THREAD_NAME}, not the one that forwards`, async () => {
    const run = await proxy(target.url, ['--product-version', '3.0.19'])
    expect((await getItems(run.url, 'valid')).status).toBe(200)
    // Judged: the thread is up and has named itself.
    expect((await report(run)).notJudged.count).toBe(0)
    const pid = run.child.pid as number
    const named = [...threadNames(pid)].filter(([, name]) => name === JUDGE_THREAD_NAME)
    expect(named).toHaveLength(1)
    expect(named[0]?.[0]).not.toBe(pid)
    expect(await stop(run)).toBe(0)
  })
})
