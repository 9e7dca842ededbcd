import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startServer, type Server } from './processes.ts'

/** The command that starts a reference server of test/bench/servers/baseline.ts, from the project folder. */
export function baselineCommand(mode: string, file: string, routes: string[] = []): string[] {
  return [process.execPath, '--import', 'tsx', 'test/bench/servers/baseline.ts', mode, file, ...routes]
}

/** A reference server of test/bench/servers/baseline.ts (MODE over FILE, and PATH=FILE routes for node-bytes). */
export function startBaseline(mode: string, file: string, routes: string[] = []): Promise<Server> {
  return startServer(mode, baselineCommand(mode, file, routes))
}

/**
 * The load generator's ceiling for a workload: bare node:http answering `bytes` (or, for the paths
 * of `routes`, their bytes), the mock's own answers. It reads its files as it starts, so they go at once.
 */
export async function startCeiling(name: string, bytes: Buffer, routes: Record<string, Buffer> = {}): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'appdata-kit-bench-ceiling-'))
  try {
    writeFileSync(join(dir, 'answer'), bytes)
    const args = Object.entries(routes).map(([path, answer], i) => {
      writeFileSync(join(dir, `route-${i}`), answer)
      return `${path}=${join(dir, `route-${i}`)}`
    })
    return { ...(await startBaseline('node-bytes', join(dir, 'answer'), args)), name: `ceiling: ${name}` }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
