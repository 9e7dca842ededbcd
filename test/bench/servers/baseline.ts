/**
 * The reference servers of `npm run bench`, each as small as it can be, over the mock's own data
 * (files the bench fetched from the mock):
 * - `node-bytes FILE [PATH=FILE ...]`: bare node:http answering pre-encoded bytes (those of the file
 *   named for the request's path, else FILE): the load generator's ceiling for a workload, measured with
 *   the mock's own answers;
 * - `fastify-text PAGE`: bare Fastify answering the page pre-serialized, as a string;
 * - `fastify-bytes PAGE`: bare Fastify answering the page as pre-encoded bytes (no UTF-8 encoding per request);
 * - `fastify-stringify ROWS`: Fastify keeping the rows as objects, slicing and `JSON.stringify`ing a page per request;
 * - `fastify-append ROWS`: Fastify parsing each save body and appending every row of it (masters and
 *   their details' rows), and answering reads by slicing and stringifying (the write baselines).
 * Usage: tsx test/bench/servers/baseline.ts MODE FILE [PATH=FILE ...]
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import Fastify from 'fastify'

const [mode = 'node-bytes', file = '', ...routes] = process.argv.slice(2)

/** A row of a save body as the append baseline reads it: the master and its details' rows. */
interface SavedRow {
  Row: unknown
  Details?: Array<{ Rows?: unknown[] }>
}
const PAGE = 200
const JSON_TYPE = 'application/json; charset=utf-8'

function listening(port: number): void {
  process.stdout.write(`listening on http://127.0.0.1:${port}\n`)
}

if (mode === 'node-bytes') {
  const fallback = readFileSync(file)
  const answers = new Map(routes.map((route) => [route.slice(0, route.indexOf('=')), readFileSync(route.slice(route.indexOf('=') + 1))]))
  const server = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      const bytes = answers.get(request.url ?? '') ?? fallback
      response.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': bytes.length })
      response.end(bytes)
    })
  })
  server.listen(0, '127.0.0.1', () => listening((server.address() as { port: number }).port))
} else {
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024 })
  const skipOf = (body: unknown) => Number(/\$skip=(\d+)/.exec(String((body as { query?: string } | null)?.query ?? ''))?.[1] ?? 0)
  if (mode === 'fastify-text') {
    const page = readFileSync(file, 'utf8')
    app.post('/ExplorerApi/api/items', async (_request, reply) => reply.type(JSON_TYPE).send(page))
  } else if (mode === 'fastify-bytes') {
    const page = readFileSync(file)
    app.post('/ExplorerApi/api/items', async (_request, reply) => reply.type(JSON_TYPE).send(page))
  } else {
    const rows = JSON.parse(readFileSync(file, 'utf8')) as unknown[]
    app.post('/ExplorerApi/api/items', async (request, reply) => {
      const skip = skipOf(request.body)
      return reply.type(JSON_TYPE).send(JSON.stringify(rows.slice(skip, skip + PAGE)))
    })
    // Every row of the body is kept, the masters and their details' rows alike, as the mock keeps
    // them: a bound that dropped the details (200 of a W4c create's 300 rows) would leave them to die
    // young, and measure less than what it is named for.
    app.post('/ExplorerApi/api/items/save', async (request) => {
      for (const item of (request.body as { Rows: SavedRow[] }).Rows) {
        rows.push(item.Row)
        for (const detail of item.Details ?? []) for (const row of detail.Rows ?? []) rows.push(row)
      }
      return { IsSaveSuccessfully: true, ReturnStates: [] }
    })
  }
  await app.listen({ port: 0, host: '127.0.0.1' })
  listening((app.server.address() as { port: number }).port)
}
