import { spawn } from 'node:child_process'
import { median } from '../lib/load.ts'
import { SIGN_IN_FORM, startMockServer } from '../lib/mock.ts'
import { onServerCore, ROOT, rssMb, stopServer } from '../lib/processes.ts'
import { fixed, holds, ratio, type Check, type Outcome } from '../lib/report.ts'
import type { Settings } from '../run.ts'

/** W5: RSS and time to the listening line with 100 k and 1 M orders (and twice as many lines). */
export async function memory(settings: Settings): Promise<Outcome> {
  const rows: Array<Array<string | number>> = []
  const checks: Check[] = []
  for (const masters of settings.sizes) {
    const mock = await startMockServer(masters)
    try {
      // A moment for the collector to finish what loading left, then the resident size.
      await new Promise((resolve) => setTimeout(resolve, 1000))
      const rss = rssMb(mock.child.pid as number)
      const data = `${masters / 1000} k orders + ${(2 * masters) / 1000} k lines`
      rows.push([data, fixed(mock.readyMs / 1000, 2), fixed(rss)])
      if (masters === Math.max(...settings.sizes)) {
        checks.push(
          { workload: 'W5', target: `${data} in ≤ 1 GB RSS`, figure: `${fixed(rss)} MB`, verdict: holds(rss <= 1024) },
          { workload: 'W5', target: `${data} ready in ≤ 5 s`, figure: `${fixed(mock.readyMs / 1000, 2)} s`, verdict: holds(mock.readyMs <= 5000) },
        )
      }
    } finally {
      await stopServer(mock)
    }
  }
  return {
    tables: [
      {
        title: 'W5: memory and start with generated rows (`--rows`)',
        columns: ['data', 'ready s', 'RSS MB'],
        rows,
        notes: ['Targets: 1 M orders + 2 M lines in ≤ 1 GB RSS, ready in ≤ 5 s.'],
      },
    ],
    checks,
  }
}

/** Milliseconds from spawning a command to its first answered sign-in. */
function toFirstSignIn(command: string[]): Promise<number> {
  const [file, ...args] = onServerCore(command) as [string, ...string[]]
  const begun = performance.now()
  const child = spawn(file, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
  let out = ''
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => (child.kill('SIGKILL'), reject(new Error(`no answer in 30 s: ${command.join(' ')}`))), 30_000)
    child.stdout.on('data', async (chunk: Buffer) => {
      out += chunk.toString()
      const match = /listening on (https?:\/\/[^\s"]+)/.exec(out)
      if (match === null || out.includes('\u0000done')) return
      out += '\u0000done'
      const answer = await fetch(`${match[1]}/identityprovider/acme/connect/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: SIGN_IN_FORM,
      })
      await answer.arrayBuffer()
      const ms = performance.now() - begun
      clearTimeout(timer)
      child.once('exit', () => resolve(ms))
      child.kill('SIGTERM')
    })
  })
}

/** `startMock()` in a fresh process: import, first start, a second start. */
async function inProcess(): Promise<{ importMs: number; startMs: number; secondStartMs: number }> {
  const [file, ...args] = onServerCore([process.execPath, 'test/bench/servers/start-mock.mjs']) as [string, ...string[]]
  const child = spawn(file, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  await new Promise((resolve) => child.on('exit', resolve))
  return JSON.parse(out.trim())
}

/**
 * W6: spawn to first answered sign-in of the installed bin with the default fixture, against a
 * bare Fastify process answering the same path; and `startMock()` in-process. Alternated, median
 * of five starts each (three in a quick run).
 */
export async function start(settings: Settings): Promise<Outcome> {
  const mock: number[] = []
  const bare: number[] = []
  const runs: Array<{ importMs: number; startMs: number; secondStartMs: number }> = []
  for (let i = 0; i < (settings.quick ? 3 : Math.max(5, settings.rounds)); i++) {
    mock.push(await toFirstSignIn([process.execPath, 'bin/appdata-kit.js', 'mock', '--port', '0', '--quiet']))
    bare.push(await toFirstSignIn([process.execPath, 'test/bench/servers/bare-fastify.mjs']))
    runs.push(await inProcess())
  }
  const bareMs = median(bare)
  const binMs = median(mock)
  const startMs = median(runs.map((r) => r.startMs))
  const checks: Check[] = [
    {
      workload: 'W6',
      target: 'the bin, spawn to first answered sign-in, ≤ 2× a bare Fastify process',
      figure: `${fixed(binMs)} ms, ${ratio(binMs, bareMs)} of ${fixed(bareMs)} ms`,
      verdict: holds(binMs <= 2 * bareMs),
    },
    { workload: 'W6', target: '`startMock()` to ready ≤ 100 ms', figure: `${fixed(startMs)} ms`, verdict: holds(startMs <= 100) },
  ]
  const table = {
    title: 'W6: start-up with the default fixture',
    columns: ['start', 'ms (median)', 'vs bare Fastify process'],
    rows: [
      ['bare Fastify process: spawn to first answer', fixed(bareMs), '1.00×'],
      ['`appdata-kit mock` (installed bin): spawn to first answered sign-in', fixed(binMs), ratio(binMs, bareMs)],
      ['`startMock()`: importing the package, once per process', fixed(median(runs.map((r) => r.importMs))), '-'],
      ['`startMock()`: first start, to ready', fixed(startMs), '-'],
      ['`startMock()`: a later start in the same process', fixed(median(runs.map((r) => r.secondStartMs)), 1), '-'],
    ],
    notes: ['Targets: the bin ≤ 2× a bare Fastify process; `startMock()` ≤ 100 ms.'],
  }
  return { tables: [table], checks }
}
