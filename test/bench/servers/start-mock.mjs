// W6 of `npm run bench`: startMock() in a fresh process, from the compiled package as a user's
// tests import it; prints how long importing and starting took, as JSON.
const begun = performance.now()
const { startMock } = await import('../../../dist/src/index.js')
const imported = performance.now()
const mock = await startMock({ logLevel: 'silent' })
const started = performance.now()
const again = await startMock({ logLevel: 'silent' })
const second = performance.now()
process.stdout.write(`${JSON.stringify({ importMs: imported - begun, startMs: started - imported, secondStartMs: second - started })}\n`)
await again.close()
await mock.close()
