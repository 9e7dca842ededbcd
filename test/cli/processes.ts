import { spawn, type ChildProcess } from 'node:child_process'
import { until } from '../helpers/until.ts'

/** The project's own folder, where `npm start` runs. */
export const ROOT = new URL('../../', import.meta.url).pathname

/** A process a test started, with what it printed so far and how it ended. */
export interface Started {
  child: ChildProcess
  /** The URL of the listening line, once printed. */
  url?: string
  /** Exit code, once exited before the listening line (or after, see `exited`). */
  code?: number | null
  stdout: string
  stderr: string
  /** Resolves with the exit code (null after a signal) and when, by the monotonic clock. */
  exited: Promise<{ code: number | null; at: number }>
}

const started: ChildProcess[] = []

/** Where a process runs, and how long it may take to listen or end (`limitMs`, 60 s unless given). */
export interface ProcessOptions {
  env?: Record<string, string>
  cwd?: string
  limitMs?: number
}

/**
 * Starts a command and resolves on its listening line (`listening on URL`) or on its exit,
 * whichever comes first; refuses to wait more than `limitMs` (60 s).
 */
export function startProcess(command: string, args: string[], options: ProcessOptions = {}): Promise<Started> {
  const limitMs = options.limitMs ?? 60_000
  const child = spawn(command, args, { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] })
  started.push(child)
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.on('close', (code) => resolve({ code, at: performance.now() })))
  const run: Started = { child, stdout: '', stderr: '', exited }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`no listening line and no exit in ${limitMs / 1000} s; stdout: ${run.stdout} stderr: ${run.stderr}`)),
      limitMs,
    )
    child.stdout?.on('data', (chunk: Buffer) => {
      run.stdout += chunk.toString()
      const match = /listening on (https?:\/\/[^\s"]+)/.exec(run.stdout)
      if (match !== null && run.url === undefined) {
        run.url = match[1]
        clearTimeout(timer)
        resolve(run)
      }
    })
    child.stderr?.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()))
    void exited.then(({ code }) => {
      clearTimeout(timer)
      run.code = code
      resolve(run)
    })
  })
}

/** Runs a command to its end (`limitMs`, 60 s, at most) and returns its exit code and output. */
export async function runToEnd(
  command: string,
  args: string[],
  options: ProcessOptions = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = await startProcess(command, args, options)
  const { code } = await run.exited
  return { code, stdout: run.stdout, stderr: run.stderr }
}

/** Stops every process this module started that is still running, by its PID. */
export function stopStarted(): void {
  for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) process.kill(child.pid, 'SIGKILL')
}

/** Waits for something a test can only ask about (a count a mock reports): the suite's one wait, `until`. */
export function waitFor(what: string, ready: () => boolean | Promise<boolean>): Promise<void> {
  return until(ready, what, 4000)
}

/**
 * Resolves once a started process has printed `text` (on standard output or error), on its output's
 * own events; rejects when it exits without printing it.
 */
export function printed(run: Started, text: string): Promise<void> {
  const seen = () => run.stdout.includes(text) || run.stderr.includes(text)
  if (seen()) return Promise.resolve()
  return new Promise((resolve, reject) => {
    const look = () => {
      if (!seen()) return
      run.child.stdout?.off('data', later)
      run.child.stderr?.off('data', later)
      resolve()
    }
    // Run after the listener that appends the chunk to `run.stdout` (startProcess added it first).
    const later = () => setImmediate(look)
    run.child.stdout?.on('data', later)
    run.child.stderr?.on('data', later)
    void run.exited.then(() =>
      setImmediate(() =>
        seen() ? resolve() : reject(new Error(`the process ended without printing ${JSON.stringify(text)}; stdout: ${run.stdout} stderr: ${run.stderr}`)),
      ),
    )
  })
}

/** Whether the fault rules of the mock at `url` have applied to a request of `operationId` (the request arrived and is held). */
export async function faultApplied(url: string, operationId: string): Promise<boolean> {
  const listed = (await (await fetch(`${url}/__mock/faults`)).json()) as { rules: Array<{ operationId: string; applied: number }> }
  return listed.rules.some((rule) => rule.operationId === operationId && rule.applied > 0)
}
