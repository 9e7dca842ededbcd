import Fastify from 'fastify'

/**
 * The two reference points of the page benchmark, each a bare Fastify route over rows shaped like
 * the mock's (same fields, same sizes):
 * - `ceiling`: answers one pre-serialized page text, the fastest any server can answer;
 * - `naive`: keeps row objects in an array and `slice` + `JSON.stringify`s the page on every request.
 * Usage: tsx test/bench/baseline-server.ts ceiling|naive ROWS PAGE
 */
const [mode = 'ceiling', rowsText = '1000000', pageText = '200'] = process.argv.slice(2)
const total = Number(rowsText)
const pageSize = Number(pageText)
const statuses = ['Open', 'Shipped', 'Closed', 'Invoiced']

function row(i: number): Record<string, unknown> {
  const version = Buffer.alloc(8)
  version.writeBigUInt64BE(BigInt(i))
  return {
    Id: i,
    CT_ATTACHMENTS: null,
    DT_CREATION: '2026-11-01T09:00:00.000Z',
    DT_LAST_UPDATE: '2026-11-01T09:00:00.000Z',
    ROW_ORDER: i,
    TIMESTAMP: version.toString('base64'),
    USER_ID_CREATION: 1,
    USER_ID_LAST_UPDATE: 1,
    IdRow: 1000 + i,
    Customer: `Customer ${i % 977} Ltd`,
    Amount: Math.round(((i * 7919) % 100000) * 1.37) / 100,
    Status: statuses[i % statuses.length],
  }
}

const app = Fastify({ logger: false })
if (mode === 'ceiling') {
  const page = JSON.stringify(Array.from({ length: pageSize }, (_, i) => row(i + 1)))
  app.post('/ExplorerApi/api/items', async (_request, reply) => reply.type('application/json; charset=utf-8').send(page))
} else {
  const rows = Array.from({ length: total }, (_, i) => row(i + 1))
  app.post('/ExplorerApi/api/items', async (request, reply) => {
    const skip = Number(/\$skip=(\d+)/.exec((request.body as { query: string }).query)?.[1] ?? 0)
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(rows.slice(skip, skip + pageSize)))
  })
}
await app.listen({ port: 0, host: '127.0.0.1' })
const address = app.server.address()
process.stdout.write(`listening on http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}\n`)
