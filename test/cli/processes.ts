import { spawn, type ChildProcess } from 'node:child_process'
import { EventEmitter } from 'node:events'
import { until } from '../helpers/until.ts'

/** The project's own folder, where `npm start` runs. */
export const ROOT = new URL('../../', import.meta.url).pathname

/**
 * The variable `npm run mutate` sets (scripts/mutate/vitest.config.mjs) for helpers that start the
 * built command line as a process: they run the command in the test's own process instead, from
 * the sources, where Stryker's mutants are (a process of the built bin would run none of them).
 */
const IN_PROCESS_UNDER_MUTATION = 'APPDATA_KIT_IN_PROCESS_UNDER_MUTATION'

/** Whether this run is `npm run mutate`'s: commands then run in this process (startInProcess). */
export const underMutation = (): boolean => process.env[IN_PROCESS_UNDER_MUTATION] === '1'

/** The line a command prints once it listens, with its URL. */
const LISTENING = /listening on (https?:\/\/[^\s"]+)/

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
      const match = LISTENING.exec(run.stdout)
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

/** What a command run in this process writes, and its exit code (as the bin's `io` and return value). */
export type InProcessCommand = (io: { stdout: (text: string) => void; stderr: (text: string) => void }, stop: Promise<unknown>) => Promise<number>

/**
 * A command run in this process (under `npm run mutate`, see IN_PROCESS_UNDER_MUTATION) as a
 * started process is seen: its output as it comes (with the `data` events `printed` listens to), its
 * listening line, its end, and a `kill` that resolves `stop`, as SIGTERM or SIGINT ends the bin.
 * `env` is set in this process while it runs.
 */
export function startInProcess(command: InProcessCommand, env: Record<string, string> = {}): Promise<Started> {
  const saved = Object.entries(env).map(([name]) => [name, process.env[name]] as const)
  Object.assign(process.env, env)
  let signal: () => void = () => undefined
  const stop = new Promise<void>((resolve) => (signal = resolve))
  const child = Object.assign(new EventEmitter(), {
    stdout: new EventEmitter(),
    stderr: new EventEmitter(),
    exitCode: null as number | null,
    signalCode: null,
    pid: undefined,
    kill: () => {
      signal()
      return true
    },
  }) as unknown as ChildProcess
  started.push(child)
  const run: Started = { child, stdout: '', stderr: '', exited: Promise.resolve({ code: null, at: 0 }) }
  return new Promise((resolve) => {
    const io = {
      stdout: (text: string) => {
        run.stdout += text
        const match = LISTENING.exec(run.stdout)
        if (match !== null && run.url === undefined) {
          run.url = match[1]
          resolve(run)
        }
        child.stdout?.emit('data', Buffer.from(text))
      },
      stderr: (text: string) => {
        run.stderr += text
        child.stderr?.emit('data', Buffer.from(text))
      },
    }
    run.exited = command(io, stop)
      .catch((error: unknown) => {
        io.stderr(`${(error as Error).stack ?? String(error)}\n`)
        return 70
      })
      .then((code) => {
        for (const [name, value] of saved) {
          if (value === undefined) delete process.env[name]
          else process.env[name] = value
        }
        ;(child as { exitCode: number | null }).exitCode = code
        run.code = code
        resolve(run)
        return { code, at: performance.now() }
      })
  })
}

/** Runs a command in this process to its end (startInProcess) and returns its exit code and output. */
export async function runInProcessToEnd(command: InProcessCommand): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const run = await startInProcess(command)
  const { code } = await run.exited
  return { code, stdout: run.stdout, stderr: run.stderr }
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
  for (const child of started.splice(0)) {
    if (child.exitCode !== null || child.signalCode !== null) continue
    if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL')
    // One run in this process (startInProcess): stopped as the bin stops on a signal.
    else child.kill()
  }
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
