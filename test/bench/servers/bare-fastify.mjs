// The start-up baseline of `npm run bench` (W6): a bare Fastify process with one route, plain
// JavaScript (no loader), printing the same listening line the mock prints.
import Fastify from 'fastify'

const app = Fastify({ logger: false })
app.post('/identityprovider/:organization/connect/token', async () => ({ access_token: 'x', expires_in: 3600 }))
await app.listen({ port: 0, host: '127.0.0.1' })
process.stdout.write(`listening on http://127.0.0.1:${app.server.address().port}\n`)
