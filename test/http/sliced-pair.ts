/** Two mocks started alike, for the tests that send one body to two mocks and compare (sliced and whole, or a write before and between). */
import { afterAll, beforeAll } from 'vitest'
import { startTestMock, type TestClient } from '../helpers/http.ts'

/** The two mocks by name, and their session tokens. */
export type Pair<A extends string = 'sliced', B extends string = 'whole'> = Record<A | B, TestClient> & { tokens: Record<A | B, string> }

/** Two mocks of the same fixture, time and randomness, each signed in, by the names given (`sliced` and `whole` unless said). */
export function pair<A extends string = 'sliced', B extends string = 'whole'>(a = 'sliced' as A, b = 'whole' as B): Pair<A, B> {
  const ctx = { tokens: {} } as Pair<A, B>
  beforeAll(async () => {
    for (const name of [a, b]) {
      ctx[name] = (await startTestMock()) as (typeof ctx)[A | B]
      ctx.tokens[name] = await (ctx[name] as TestClient).signIn()
    }
  })
  afterAll(async () => {
    for (const name of [a, b]) await (ctx[name] as TestClient | undefined)?.close()
  })
  return ctx
}
