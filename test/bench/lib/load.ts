import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onLoadCore, ROOT } from './processes.ts'

/** One load run: the requests (cycled in order), how many connections, for how long or how many. */
export interface LoadSpec {
  url: string
  connections: number
  seconds: number
  /** Stop after this many requests instead of after `seconds`. */
  amount?: number
  headers: Record<string, string>
  requests: Array<{ method: 'GET' | 'POST'; path: string; body?: string; contentType?: string }>
}

export interface LoadResult {
  rps: number
  p50: number
  p99: number
  /** The slowest request's latency, ms. */
  max: number
  errors: number
  non2xx: number
  requests: number
}

/** Runs autocannon in a separate process on the load core; throws when it fails. */
export async function load(spec: LoadSpec): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'appdata-kit-bench-'))
  const file = join(dir, 'spec.json')
  writeFileSync(file, JSON.stringify(spec))
  const [command, ...args] = onLoadCore([process.execPath, '--import', 'tsx', join(ROOT, 'test/bench/lib/load-worker.ts'), file]) as [string, ...string[]]
  try {
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
      let text = ''
      child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()))
      child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`load generator exited with ${code}`))))
    })
    return JSON.parse(out.trim().split('\n').at(-1) as string) as LoadResult
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/**
 * Runs each load `rounds` times, alternating between them (A B C A B C ...), so a slow spell of
 * the shared machine hits every server alike, and keeps the median of each measure.
 */
export async function alternate(loads: ReadonlyArray<{ name: string; spec: () => LoadSpec }>, rounds: number): Promise<Map<string, LoadResult>> {
  const runs = new Map<string, LoadResult[]>()
  for (let round = 0; round < rounds; round++) {
    for (const { name, spec } of loads) runs.set(name, [...(runs.get(name) ?? []), await load(spec())])
  }
  return new Map(
    [...runs].map(([name, results]) => [
      name,
      {
        rps: median(results.map((r) => r.rps)),
        p50: median(results.map((r) => r.p50)),
        p99: median(results.map((r) => r.p99)),
        max: median(results.map((r) => r.max)),
        errors: results.reduce((sum, r) => sum + r.errors, 0),
        non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
        requests: results.reduce((sum, r) => sum + r.requests, 0),
      },
    ]),
  )
}
