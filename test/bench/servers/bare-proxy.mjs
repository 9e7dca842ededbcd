/**
 * The proxy workload's bound: a bare node:http pass-through proxy, as small as one can be (the
 * request piped to the target on kept-alive sockets, the answer piped back, nothing judged, nothing
 * copied aside). What `appdata-kit proxy` costs beyond moving bytes is its distance to this.
 * Usage: node test/bench/servers/bare-proxy.mjs TARGET_URL
 */
import { Agent, createServer, request } from 'node:http'

const target = new URL(process.argv[2] ?? 'http://127.0.0.1:4080')
const agent = new Agent({ keepAlive: true })
const server = createServer((incoming, outgoing) => {
  const headers = { ...incoming.headers, host: target.host }
  delete headers.connection
  const upstream = request({ hostname: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers, agent }, (answer) => {
    outgoing.writeHead(answer.statusCode ?? 502, answer.headers)
    answer.pipe(outgoing)
  })
  upstream.on('error', () => outgoing.destroy())
  incoming.pipe(upstream)
})
server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${server.address().port}\n`))
