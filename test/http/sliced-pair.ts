/** Two mocks started alike, for the tests that send one body to a mock that slices and one that does not. */
import { afterAll, beforeAll } from 'vitest'
import { startTestMock, type TestClient } from '../helpers/http.ts'

/** Two mocks of the same fixture, time and randomness: one reads with `sliced` settings, the other whole. */
export function pair() {
  const ctx = {} as { sliced: TestClient; whole: TestClient; tokens: { sliced: string; whole: string } }
  beforeAll(async () => {
    ctx.sliced = await startTestMock()
    ctx.whole = await startTestMock()
    ctx.tokens = { sliced: await ctx.sliced.signIn(), whole: await ctx.whole.signIn() }
  })
  afterAll(async () => {
    await ctx.sliced?.close()
    await ctx.whole?.close()
  })
  return ctx
}
