import Fastify from 'fastify'

/**
 * `npm run bench`, start-up part: how long `startMock()` (from the compiled package, as a user's
 * tests import it) takes to listen on a free port with the default fixture, against a bare Fastify
 * app with one route measured in the same run. The first start (module loading, document build,
 * validators compiled) and the median of the later ones (what each test file's `beforeAll` pays
 * after the first) are reported separately. BENCH_STARTS overrides the number of starts.
 */
const STARTS = Number(process.env.BENCH_STARTS ?? 20)

async function timed(run: () => Promise<() => Promise<void>>): Promise<number> {
  const begun = performance.now()
  const close = await run()
  const ms = performance.now() - begun
  await close()
  return ms
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number

const bare = async () => {
  const app = Fastify()
  app.get('/', async () => ({ ok: true }))
  await app.listen({ port: 0, host: '127.0.0.1' })
  return () => app.close()
}
const importBegun = performance.now()
const { startMock } = await import('../../dist/src/index.js')
const importMs = performance.now() - importBegun

const mock = async () => {
  const started = await startMock({ logLevel: 'silent' })
  return () => started.close()
}

const firstBare = await timed(bare)
const firstMock = await timed(mock)
const mocks: number[] = []
const bares: number[] = []
for (let i = 0; i < STARTS; i++) {
  mocks.push(await timed(mock))
  bares.push(await timed(bare))
}
console.log(`\nstartMock() with the default fixture, ${STARTS} starts (Node ${process.version}); importing the package took ${importMs.toFixed(0)} ms`)
console.log('| start | startMock ms | bare Fastify ms | ratio |')
console.log('|---|---|---|---|')
console.log(`| first in the process | ${firstMock.toFixed(0)} | ${firstBare.toFixed(1)} | ${(firstMock / firstBare).toFixed(0)} |`)
console.log(`| median of the later ones | ${median(mocks).toFixed(1)} | ${median(bares).toFixed(1)} | ${(median(mocks) / median(bares)).toFixed(1)} |`)
