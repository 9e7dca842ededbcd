import { describe, expect, it } from 'vitest'
import { UsageAccumulator } from '../../src/usage-file/file.ts'
import { USAGE_LIMITS } from '../../src/usage-file/limits.ts'

/** A recorder keeps no more interactions than a usage file may hold: its file is one every reader takes. */
describe('UsageAccumulator', () => {
  const shape = (top: number) => ({ query: { top } }) as never

  it('keeps at most its limit of interactions, counting the requests of shapes past it, and still counts shapes it keeps', () => {
    const accumulator = new UsageAccumulator({ limit: 3 })
    for (let top = 0; top < 5; top++) accumulator.entry('queryItems', '3.0.19', shape(top)).count++
    accumulator.entry('queryItems', '3.0.19', shape(0)).count++
    accumulator.entry('queryItems', '3.0.19', shape(9)).count++
    const file = accumulator.file()
    expect(file.interactions.map((i) => [i.request, i.count])).toEqual([
      [shape(0), 2],
      [shape(1), 1],
      [shape(2), 1],
    ])
    expect(accumulator.unrecorded).toBe(3)
  })

  it("keeps every interaction without a limit (a merge says itself when it passes the bound), and the readers' bound is at least 100,000", () => {
    const accumulator = new UsageAccumulator()
    for (let top = 0; top < 50; top++) accumulator.entry('queryItems', '3.0.19', shape(top))
    expect(accumulator.file().interactions).toHaveLength(50)
    expect(accumulator.unrecorded).toBe(0)
    expect(USAGE_LIMITS.interactions).toBeGreaterThanOrEqual(100_000)
  })
})
