/**
 * The load generator: wrk (a native generator, much faster than the servers it measures), one
 * thread pinned to the load core. The bench installs it when it can (root with apt-get) and
 * otherwise says what to install; it never falls back to a slower generator.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onLoadCore, ROOT } from './processes.ts'
import { AMOUNT_MARK, luaScript, parseWrkOutput, requestFile, type LoadRequest, type LoadResult } from './wrk-output.ts'

/** The wrk binary: `BENCH_WRK` or `wrk` on the PATH. */
const WRK = process.env.BENCH_WRK ?? 'wrk'
const present = () => spawnSync(WRK, ['-v'], { encoding: 'utf8' }).error === undefined

const HOW_TO_INSTALL =
  'install the Debian/Ubuntu package `wrk` (`sudo apt-get install wrk`; elsewhere build https://github.com/wg/wrk) and run `npm run bench` again, or point BENCH_WRK at its binary'

/**
 * Makes sure wrk is there: installs the Debian package when running as root with apt-get (after
 * `apt-get update` when the first try fails). Undefined when wrk can run; otherwise why not and what to install.
 */
export function ensureWrk(log: (line: string) => void): string | undefined {
  if (present()) return undefined
  if (process.env.BENCH_WRK !== undefined) return `BENCH_WRK=${WRK} cannot be run: ${HOW_TO_INSTALL}`
  const apt = spawnSync('apt-get', ['--version'], { encoding: 'utf8' }).error === undefined
  if (process.getuid?.() !== 0 || !apt)
    return `wrk is not installed and the bench cannot install it (${apt ? 'not running as root' : 'no apt-get'}): ${HOW_TO_INSTALL}`
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }
  const install = () => spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'wrk'], { encoding: 'utf8', env, timeout: 300_000 })
  log('wrk is not installed: apt-get install -y wrk')
  let result = install()
  if (result.status !== 0) {
    log('apt-get update, then apt-get install -y wrk again')
    spawnSync('apt-get', ['update'], { encoding: 'utf8', env, timeout: 300_000 })
    result = install()
  }
  if (result.status === 0 && present()) return undefined
  return `installing wrk with apt-get failed (${(result.stderr || result.stdout || '').trim().split('\n').slice(-2).join(' ')}): ${HOW_TO_INSTALL}`
}

/** wrk's version line, for the report. */
export function wrkVersion(): string {
  const result = spawnSync(WRK, ['-v'], { encoding: 'utf8' })
  return /wrk\s+\S+/.exec(`${result.stdout}${result.stderr}`)?.[0] ?? 'wrk'
}

/** One load run: the requests (cycled in order), how many connections, for how long or how many. */
export interface LoadSpec {
  url: string
  connections: number
  seconds: number
  /** Stop after this many answers instead of after `seconds` (the request list must hold this many plus one per connection). */
  amount?: number
  /** Stop when this settles (and at `seconds` at the latest): a load that runs beside something else for as long as it takes. */
  until?: Promise<unknown>
  headers: Record<string, string>
  requests: LoadRequest[]
}

/**
 * Runs wrk on the load core and reads its result line; throws when it fails. A run with an amount
 * is given a generous `-d` and interrupted (SIGINT, which makes wrk report at once) when its thread says it reached the amount.
 */
export async function runWrk(spec: LoadSpec): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'appdata-kit-bench-wrk-'))
  try {
    writeFileSync(join(dir, 'requests.bin'), requestFile(spec.url, spec.headers, spec.requests))
    writeFileSync(join(dir, 'script.lua'), luaScript(join(dir, 'requests.bin'), spec.amount))
    const seconds = spec.amount === undefined ? Math.max(1, Math.round(spec.seconds)) : 120
    const [command, ...args] = onLoadCore([
      WRK,
      '-t1',
      `-c${spec.connections}`,
      `-d${seconds}s`,
      '--timeout',
      '30s',
      '-s',
      join(dir, 'script.lua'),
      spec.url,
    ]) as [string, ...string[]]
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      let err = ''
      let interrupted = false
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (!interrupted && out.includes(AMOUNT_MARK)) {
          interrupted = true
          child.kill('SIGINT')
        }
      })
      child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
      spec.until?.finally(() => {
        if (!interrupted && child.exitCode === null) {
          interrupted = true
          child.kill('SIGINT')
        }
      })
      child.on('error', reject)
      child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`wrk exited with ${code}: ${err.trim() || out.trim()}`))))
    })
    return parseWrkOutput(output)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
