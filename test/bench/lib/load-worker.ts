/**
 * The load generator, in its own process (pinned to its own core): runs autocannon as the spec
 * file says and prints the result as one JSON line. Requests come from a list cycled in order
 * across all connections, so each update can name a different row with its current TIMESTAMP.
 */
import { readFileSync } from 'node:fs'
import autocannon from 'autocannon'
import type { LoadSpec } from './load.ts'

const spec = JSON.parse(readFileSync(process.argv[2] as string, 'utf8')) as LoadSpec
let next = 0
let responses = 0
let lastResponse = 0
const begun = performance.now()
const instance = autocannon({
  url: spec.url,
  connections: spec.connections,
  ...(spec.amount === undefined ? { duration: spec.seconds } : { amount: spec.amount }),
  headers: spec.headers,
  requests: [
    {
      setupRequest: (request: autocannon.Request) => {
        const item = spec.requests[next++ % spec.requests.length] as LoadSpec['requests'][number]
        return { ...request, method: item.method, path: item.path, body: item.body, headers: { ...request.headers, ...(item.body === undefined ? {} : { 'content-type': item.contentType ?? 'application/json' }) } }
      },
    },
  ],
}) as unknown as autocannon.Instance & Promise<autocannon.Result>
// autocannon's own rate and duration move in whole seconds; the run's rate is taken from the responses instead.
instance.on('response', () => {
  responses++
  lastResponse = performance.now()
})
const result = await instance
const seconds = (lastResponse - begun) / 1000
process.stdout.write(`${JSON.stringify({ rps: seconds > 0 ? responses / seconds : 0, p50: result.latency.p50, p99: result.latency.p99, max: result.latency.max, errors: result.errors + result.timeouts, non2xx: result.non2xx, requests: result.requests.total })}\n`)
