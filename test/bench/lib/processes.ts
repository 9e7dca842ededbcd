import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { availableParallelism } from 'node:os'

/** The project folder, where servers are started from. */
export const ROOT = new URL('../../../', import.meta.url).pathname

/**
 * Core pinning: servers on core 0, the load generator on core 1, when the machine has two cores
 * and `taskset`; otherwise nothing is pinned (and the report says so).
 */
export const PINNING = availableParallelism() >= 2 && spawnSync('taskset', ['-c', '0', 'true']).status === 0
export const onServerCore = (command: string[]) => (PINNING ? ['taskset', '-c', '0', ...command] : command)
export const onLoadCore = (command: string[]) => (PINNING ? ['taskset', '-c', '1', ...command] : command)

/**
 * Moves the bench's own process (every thread) to the load generator's core. It reads the servers'
 * pipes (the logged mock's line per request) and sends W7's save: left to the scheduler, that work
 * landed on the server's core in some runs and not in others, and a server sharing its core with
 * the bench measured the bench. The servers it starts are pinned to core 0 by `onServerCore`.
 */
export function pinSelfToLoadCore(): void {
  if (PINNING) spawnSync('taskset', ['-a', '-p', '-c', '1', String(process.pid)], { stdio: 'ignore' })
}

/** A server the bench started, by PID. */
export interface Server {
  name: string
  child: ChildProcess
  url: string
  /** Spawn to the listening line. */
  readyMs: number
  output: () => string
}

const started = new Set<ChildProcess>()

/**
 * Starts a server process (pinned to the server core unless `pin` is false) and resolves on its
 * `listening on URL` line; 300 s at most (`timeoutMs`).
 */
export function startServer(
  name: string,
  command: string[],
  options: { cwd?: string; env?: Record<string, string>; pin?: boolean; timeoutMs?: number } = {},
): Promise<Server> {
  const [file, ...args] = (options.pin === false ? command : onServerCore(command)) as [string, ...string[]]
  const timeoutMs = options.timeoutMs ?? 300_000
  const begun = performance.now()
  const child = spawn(file, args, { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] })
  started.add(child)
  let out = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start in ${timeoutMs / 1000} s: ${out.slice(-2000)}`)), timeoutMs)
    const onData = (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening on (https?:\/\/[^\s"]+)/.exec(out)
      if (match !== null) {
        clearTimeout(timer)
        child.stdout?.off('data', onData)
        resolve({ name, child, url: match[1] as string, readyMs: performance.now() - begun, output: () => out })
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.on('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`${name} exited with ${code}: ${out.slice(-2000)}`))
    })
  })
}

/** Stops a server the bench started (SIGTERM, then SIGKILL after 5 s). */
export function stopServer(server: Server): Promise<void> {
  const { child } = server
  started.delete(child)
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.removeAllListeners('exit')
    const kill = setTimeout(() => child.kill('SIGKILL'), 5000)
    child.once('exit', () => {
      clearTimeout(kill)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

/** Kills whatever the bench started and has not stopped (on the way out). */
export function stopAll(): void {
  for (const child of started) if (child.exitCode === null) child.kill('SIGKILL')
  started.clear()
}

/** Resident memory of a process, in MB. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}

/** Peak resident memory of a process since it started (VmHWM), in MB. */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024
}
