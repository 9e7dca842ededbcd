// W8 of `npm run bench`: json-server 0.17 over the mock's rows, from the bench's cache outside the
// repository. Usage: node json-server.cjs CACHE_DIR DB_FILE
const jsonServer = require(require.resolve('json-server', { paths: [process.argv[2]] }))

const server = jsonServer.create()
server.use(jsonServer.defaults({ logger: false }))
server.use(jsonServer.router(process.argv[3]))
const listener = server.listen(0, '127.0.0.1', () => process.stdout.write(`listening on http://127.0.0.1:${listener.address().port}\n`))
