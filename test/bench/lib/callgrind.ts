/**
 * Instructions per request: a server started under valgrind's callgrind, warmed up until its
 * optimizing compiler falls quiet, its counters dumped, then `requests` requests sent one after the
 * other over one kept-alive connection from a small loopback client, and its counters dumped again.
 * The last dump's total divided by the requests is the figure: the server's every instruction
 * between the two dumps, in all its threads (garbage collection and compiler threads included),
 * with nothing subtracted. Instruction counts do not
 * depend on what else the machine runs, which a rate measured on a shared machine does.
 */
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { Agent, request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { parseCallgrindFunctions, parseCallgrindTotal, type FunctionCost } from './callgrind-output.ts'
import { byKind } from './compare.ts'
import { median } from './load.ts'
import { startServer, stopServer, type Server } from './processes.ts'
import type { LoadRequest } from './wrk-output.ts'

const present = (command: string) => spawnSync(command, ['--version'], { encoding: 'utf8' }).error === undefined

/** Undefined when valgrind and callgrind_control can run; otherwise what to install. */
export function missingCallgrind(): string | undefined {
  const absent = ['valgrind', 'callgrind_control'].filter((command) => !present(command))
  return absent.length === 0 ? undefined : `${absent.join(', ')} not found: install valgrind (\`sudo apt-get install valgrind\`)`
}

/** Sends the requests one after the other on one kept-alive connection; throws on an answer that is not 2xx or that `check` refuses. */
export async function sendInTurn(
  url: string,
  headers: Record<string, string>,
  requests: (i: number) => LoadRequest,
  count: number,
  check?: (body: Buffer) => string | undefined,
): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const { hostname, port } = new URL(url)
  try {
    for (let i = 0; i < count; i++) {
      const item = requests(i)
      const body = item.body === undefined ? undefined : Buffer.from(item.body)
      const answer = await new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
        const outgoing = httpRequest(
          {
            hostname,
            port,
            method: item.method,
            path: item.path,
            agent,
            headers: body === undefined ? headers : { ...headers, 'content-type': item.contentType ?? 'application/json', 'content-length': body.length },
          },
          (incoming) => {
            const chunks: Buffer[] = []
            incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
            incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, body: Buffer.concat(chunks) }))
            incoming.on('error', reject)
          },
        )
        outgoing.on('error', reject)
        outgoing.end(body)
      })
      const refused = answer.status < 200 || answer.status > 299 ? `status ${answer.status}` : check?.(answer.body)
      if (refused !== undefined)
        throw new Error(`request ${i} (${item.method} ${item.path}) was refused: ${refused}: ${answer.body.toString('utf8').slice(0, 300)}`)
    }
  } finally {
    agent.destroy()
  }
}

/** Asks the valgrind process `pid` to dump its counters (callgrind_control -d; waits for its answer). */
function dumpCounters(pid: number): void {
  const result = spawnSync('callgrind_control', ['-d', String(pid)], { encoding: 'utf8', timeout: 600_000 })
  if (result.status !== 0 || !/OK/.test(result.stdout)) throw new Error(`callgrind_control -d ${pid} failed: ${(result.stderr || result.stdout).trim()}`)
}

/** What one counted run gave. */
export interface InstructionRun {
  /** The figure: the median of the counted windows' instructions per request. */
  perRequest: number
  /** Every counted instruction over every counted request, collections that fell in a window included. */
  mean: number
  /** Each counted window's instructions per request, in order. */
  windows: number[]
  /** Requests counted (the windows together). */
  requests: number
  /** Requests in a window. */
  window: number
  /** Requests sent before the counted ones: the warm-up asked for, and as many windows more as the optimizing compiler took to fall quiet. */
  warmup: number
  /** The dump of the window whose figure is the median, for its functions. */
  dump: string
}

/** How the warm-up ends: once a window of `window` requests spends under `share` of its instructions in the optimizing compiler, or at `max` requests. */
export interface Settling {
  window: number
  share: number
  max: number
}

export const SETTLING: Settling = { window: 1000, share: 0.01, max: 40_000 }

/**
 * Counts a server's instructions per request. `command` starts the server (printing `listening on
 * URL`) from `cwd`; `prepare` signs in and returns the headers. `warmup` requests are sent first,
 * then windows of `settling.window` requests, each dumped, until one spends less than
 * `settling.share` of its instructions in V8's optimizing compiler (bare node:http sending W1's page
 * compiled for its first 10,000 requests under callgrind: 217 k instructions a request of compiling
 * in its second thousand, 0 from its eleventh on, where each window then counted 69.4–69.6 k). Then
 * `requests` more in windows of the same size, each dumped: the figure is the median window's
 * instructions per request. A major collection of the old generation lands in one window in some
 * runs and in none in others (about 200 M instructions for W1's mock, once in some 10,000 requests,
 * 200 k a request in that window): the median leaves it out, so the figure is what a request costs
 * every time; the mean over the windows, which keeps it, is reported beside it. Only dumps delimit
 * the windows: a zero (`callgrind_control -z`) left the other threads' earlier costs (the
 * compiler's) to show up again in the next dump. The dumps go to `dir`.
 */
export async function countInstructions(options: {
  name: string
  cwd: string
  command: string[]
  dir: string
  warmup: number
  requests: number
  prepare: (url: string) => Promise<Record<string, string>>
  request: (i: number) => LoadRequest
  check?: (body: Buffer) => string | undefined
  settling?: Settling
}): Promise<InstructionRun> {
  const settling = options.settling ?? SETTLING
  const base = join(options.dir, `callgrind.${options.name.replace(/[^\w.-]+/g, '-')}`)
  // Not pinned: under valgrind the server's threads run one at a time, and a count does not depend on the core.
  const server: Server = await startServer(
    `${options.name} under callgrind`,
    ['valgrind', '--tool=callgrind', `--callgrind-out-file=${base}.%p`, ...options.command],
    { cwd: options.cwd, pin: false, timeoutMs: 1_800_000 },
  )
  const pid = server.child.pid as number
  const part = (n: number) => `${base}.${pid}.${n}`
  let headers: Record<string, string> = {}
  let sent = 0
  let parts = 0
  /** Sends `count` requests and dumps: the number of the part that holds them. */
  const send = async (count: number): Promise<number> => {
    const from = sent
    await sendInTurn(server.url, headers, (i) => options.request(from + i), count, options.check)
    sent += count
    dumpCounters(pid)
    parts++
    if (!existsSync(part(parts))) throw new Error(`callgrind wrote no dump ${part(parts)}`)
    return parts
  }
  const counted: Array<{ part: number; perRequest: number; instructions: number }> = []
  let warmup = 0
  try {
    headers = await options.prepare(server.url)
    if (options.warmup > 0) await send(options.warmup)
    for (;;) {
      if (sent >= options.warmup + settling.max)
        throw new Error(
          `${options.name}: the optimizing compiler was still busy after ${sent} requests (over ${settling.share * 100} % of a window of ${settling.window}): no steady figure`,
        )
      const window = byKind(functionsOf(part(await send(settling.window))), settling.window)
      const total = window['garbage collection'] + window['optimizing compiler'] + window['the rest']
      if (window['optimizing compiler'] < settling.share * total) break
    }
    warmup = sent
    for (let i = 0; i < Math.max(1, Math.ceil(options.requests / settling.window)); i++) {
      const n = await send(settling.window)
      const instructions = parseCallgrindTotal(readFileSync(part(n), 'utf8'))
      counted.push({ part: n, perRequest: instructions / settling.window, instructions })
    }
  } finally {
    await stopServer(server)
  }
  const sorted = [...counted].sort((a, b) => a.perRequest - b.perRequest)
  const middle = sorted[(sorted.length - 1) >> 1] as (typeof counted)[number]
  const requests = counted.length * settling.window
  return {
    perRequest: median(counted.map((w) => w.perRequest)),
    mean: counted.reduce((sum, w) => sum + w.instructions, 0) / requests,
    windows: counted.map((w) => w.perRequest),
    requests,
    window: settling.window,
    warmup,
    dump: part(middle.part),
  }
}

/** The functions of a dump by their own instructions, most first. */
export function functionsOf(dump: string): FunctionCost[] {
  return parseCallgrindFunctions(readFileSync(dump, 'utf8'))
}
