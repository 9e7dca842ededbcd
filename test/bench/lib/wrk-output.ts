/**
 * What the bench hands wrk and reads back, as pure functions (tested in test/bench/wrk-output.test.ts):
 * the requests as ready HTTP/1.1 bytes in one file, the Lua script that sends them in turn and prints
 * its result as one JSON line, and the parser of that line.
 */

/** One request of a load run, cycled in order across all connections. */
export interface LoadRequest {
  method: 'GET' | 'POST'
  path: string
  body?: string
  contentType?: string
}

/** What one load run measured. Latencies in ms. */
export interface LoadResult {
  rps: number
  p50: number
  p99: number
  /** The slowest request's latency, ms. */
  max: number
  /** Socket errors and timeouts. */
  errors: number
  /** Answers with a status of 400 or more (wrk counts those), and saves answered with the flag false. */
  non2xx: number
  /** Responses counted in the rate. */
  requests: number
}

/** The line the script's `done()` prints, and the one a thread prints when its run reached its amount. */
export const RESULT_MARK = 'BENCH-RESULT '
export const AMOUNT_MARK = 'BENCH-AMOUNT-REACHED'

/**
 * The requests as raw HTTP/1.1, each preceded by its byte length on a line of its own, as the
 * script reads them (`wrk.format` would build the same text; building it here keeps any byte out of Lua quoting).
 */
export function requestFile(url: string, headers: Record<string, string>, requests: readonly LoadRequest[]): Buffer {
  const { host } = new URL(url)
  const parts: Buffer[] = []
  for (const item of requests) {
    const lines = [`${item.method} ${item.path} HTTP/1.1`, `Host: ${host}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)]
    const body = item.body === undefined ? undefined : Buffer.from(item.body)
    if (body !== undefined) lines.push(`Content-Type: ${item.contentType ?? 'application/json'}`, `Content-Length: ${body.length}`)
    const head = Buffer.from(`${lines.join('\r\n')}\r\n\r\n`)
    const request = body === undefined ? head : Buffer.concat([head, body])
    parts.push(Buffer.from(`${request.length}\n`), request)
  }
  return Buffer.concat(parts)
}

/**
 * The Lua script of one run. Every request comes from the file, in turn. With `amount`, the thread
 * also reads each answer: it counts saves answered with the flag false, and stops once `amount`
 * answers came, timing them itself with a monotonic clock (wrk's own rate divides by the whole `-d`).
 * Run with one thread (`-t1`): the load core is one core.
 */
export function luaScript(requestsPath: string, amount?: number): string {
  const counting =
    amount === undefined
      ? ''
      : `
local ffi = require("ffi")
ffi.cdef[[ typedef struct { long tv_sec; long tv_nsec; } bench_timespec; int clock_gettime(int, bench_timespec *); ]]
local clock = ffi.new("bench_timespec")
local function now() ffi.C.clock_gettime(1, clock); return tonumber(clock.tv_sec) * 1e6 + tonumber(clock.tv_nsec) / 1e3 end
local first, counted, refused = nil, 0, 0
local amount = ${Math.floor(amount)}
local sent = request
request = function()
  if first == nil then first = now(); wrk.thread:set("first", first) end
  return sent()
end
function response(status, headers, body)
  if counted >= amount then return end
  counted = counted + 1
  -- A save refused for a business reason answers 200 with the flag false (either spelling).
  if body ~= nil and string.find(body, 'fully":false', 1, true) then refused = refused + 1 end
  wrk.thread:set("last", now())
  wrk.thread:set("counted", counted)
  wrk.thread:set("refused", refused)
  if counted == amount then
    io.write("${AMOUNT_MARK}\\n")
    io.stdout:flush()
    wrk.thread:stop()
  end
end
`
  return `-- Made by the bench (test/bench/lib/wrk-output.ts) for one run.
local requests = {}
local index = 0
function init(args)
  local file = assert(io.open(${JSON.stringify(requestsPath)}, "rb"))
  local data = file:read("*a")
  file:close()
  local at = 1
  while at <= #data do
    local eol = string.find(data, "\\n", at, true)
    local length = tonumber(string.sub(data, at, eol - 1))
    requests[#requests + 1] = string.sub(data, eol + 1, eol + length)
    at = eol + length + 1
  end
end
function request()
  index = index % #requests + 1
  return requests[index]
end
${counting}
local threads = {}
function setup(thread) threads[#threads + 1] = thread end
function done(summary, latency, requests)
  local thread = threads[1]
  local function number(value) if value == nil then return "null" end return string.format("%.3f", value) end
  io.write(string.format('${RESULT_MARK}{"requests":%d,"durationUs":%d,"bytes":%d,"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d,"firstUs":%s,"lastUs":%s,"counted":%s,"refused":%s}\\n',
    summary.requests, summary.duration, summary.bytes, summary.errors.connect, summary.errors.read, summary.errors.write, summary.errors.status, summary.errors.timeout,
    latency:percentile(50), latency:percentile(99), latency.max,
    number(thread:get("first")), number(thread:get("last")), number(thread:get("counted")), number(thread:get("refused"))))
end
`
}

interface RawResult {
  requests: number
  durationUs: number
  connect: number
  read: number
  write: number
  status: number
  timeout: number
  p50Us: number
  p99Us: number
  maxUs: number
  firstUs: number | null
  lastUs: number | null
  counted: number | null
  refused: number | null
}

/**
 * Reads the result line of wrk's output. A run bounded by an amount is rated by the answers it
 * counted over the time from its first request to its last counted answer; a timed run by wrk's
 * completed requests over wrk's own duration.
 */
export function parseWrkOutput(output: string): LoadResult {
  const line = output.split('\n').find((text) => text.startsWith(RESULT_MARK))
  if (line === undefined) throw new Error(`wrk printed no result line: ${output.trim().split('\n').slice(-5).join(' | ')}`)
  const raw = JSON.parse(line.slice(RESULT_MARK.length)) as RawResult
  const amountRun = raw.counted !== null && raw.firstUs !== null && raw.lastUs !== null
  const seconds = amountRun ? ((raw.lastUs as number) - (raw.firstUs as number)) / 1e6 : raw.durationUs / 1e6
  const requests = amountRun ? (raw.counted as number) : raw.requests
  return {
    rps: seconds > 0 ? requests / seconds : 0,
    p50: raw.p50Us / 1000,
    p99: raw.p99Us / 1000,
    max: raw.maxUs / 1000,
    errors: raw.connect + raw.read + raw.write + raw.timeout,
    non2xx: raw.status + (raw.refused ?? 0),
    requests,
  }
}
