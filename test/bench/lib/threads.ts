import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { PINNING } from './processes.ts'

/**
 * The threads of a process the bench started, from /proc (Linux): their CPU time (user and
 * system, as the kernel counts it, so a machine busy with other work does not inflate it the way
 * it inflates a wall-clock time) and the cores each may run on. The bench places a thread on a core
 * with `taskset -p`, and reads the placement back rather than assuming it.
 */

/** Clock ticks per second of /proc's CPU times. */
const TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100

/** One thread: its id, its name (`comm`), its CPU time so far, and the cores it may run on (`0`, `0-1`). */
export interface ThreadInfo {
  tid: number
  name: string
  cpuMs: number
  cores: string
}

/** utime + stime of a /proc stat line, in ms (the fields after the name, which may hold spaces). */
function cpuMsOfStat(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS
}

/** The cores a thread may run on, as the kernel lists them. */
function coresOf(pid: number, tid: number): string {
  return /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'))?.[1] ?? '?'
}

/** Every thread of a process (those that end while it is read are left out). */
export function threadsOf(pid: number): ThreadInfo[] {
  const out: ThreadInfo[] = []
  for (const entry of readdirSync(`/proc/${pid}/task`)) {
    const tid = Number(entry)
    try {
      out.push({
        tid,
        name: readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim(),
        cpuMs: cpuMsOfStat(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')),
        cores: coresOf(pid, tid),
      })
    } catch {
      // The thread ended in between.
    }
  }
  return out
}

/** A process's CPU time, all its threads together (ended ones included), ms. */
export function processCpuMs(pid: number): number {
  return cpuMsOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))
}

/** The thread of a process that bears a name, or undefined. */
export function namedThread(pid: number, name: string): ThreadInfo | undefined {
  return threadsOf(pid).find((thread) => thread.name === name)
}

/** Moves one thread to a core (when the bench pins at all); the others of its process stay where they are. */
export function pinThread(tid: number, core: number): void {
  if (PINNING) spawnSync('taskset', ['-p', '-c', String(core), String(tid)], { stdio: 'ignore' })
}

/** A process's CPU time split: its main thread, the thread named `name` (if any), and all the others together (V8's collector and compiler threads, libuv's pool), ms. */
export function cpuSplit(pid: number, name?: string): { main: number; named: number; others: number; total: number } {
  const threads = threadsOf(pid)
  const total = processCpuMs(pid)
  const main = threads.find((thread) => thread.tid === pid)?.cpuMs ?? 0
  const named = name === undefined ? 0 : threads.filter((thread) => thread.name === name).reduce((sum, thread) => sum + thread.cpuMs, 0)
  return { main, named, others: total - main - named, total }
}
