import { runWrk, type LoadSpec } from './wrk.ts'
import type { LoadResult } from './wrk-output.ts'

export type { LoadSpec } from './wrk.ts'
export type { LoadResult } from './wrk-output.ts'

/** One load run with the bench's load generator (wrk, on the load core). */
export const load = (spec: LoadSpec): Promise<LoadResult> => runWrk(spec)

export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

/** The medians of several runs of one load (errors and requests summed). */
export function medianOf(results: readonly LoadResult[]): LoadResult {
  return {
    rps: median(results.map((r) => r.rps)),
    p50: median(results.map((r) => r.p50)),
    p99: median(results.map((r) => r.p99)),
    max: median(results.map((r) => r.max)),
    errors: results.reduce((sum, r) => sum + r.errors, 0),
    non2xx: results.reduce((sum, r) => sum + r.non2xx, 0),
    requests: results.reduce((sum, r) => sum + r.requests, 0),
  }
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
  return new Map([...runs].map(([name, results]) => [name, medianOf(results)]))
}
