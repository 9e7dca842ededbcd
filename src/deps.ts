import { randomBytes } from 'node:crypto'
import type { Deps } from './store/model/types.ts'

/** The mock's clock: real time plus an offset that the control plane can move forward. */
export interface MockClock {
  now(): number
  advance(ms: number): number
  offset(): number
}

/** A clock on top of `base`; `advance` moves it forward without waiting (token expiry, row times). */
export function createClock(base: () => number = Date.now): MockClock {
  let offset = 0
  return {
    now: () => base() + offset,
    advance(ms: number) {
      offset += ms
      return base() + offset
    },
    offset: () => offset,
  }
}

/** Time and randomness for a running mock; tests pass their own fixed versions. */
export function systemDeps(clock: MockClock = createClock()): Deps {
  return { now: clock.now, randomBytes: (size) => randomBytes(size) }
}

/** A fixed start time plus a counter for random bytes: every run of a test sees the same values. */
export function fixedDeps(startIso: string): Deps & { clock: MockClock } {
  const start = Date.parse(startIso)
  const clock = createClock(() => start)
  let counter = 0
  return {
    clock,
    now: clock.now,
    randomBytes(size) {
      const bytes = new Uint8Array(size)
      counter += 1
      // The counter's bytes come first so no two calls ever return the same value.
      for (let i = 0; i < size; i++) bytes[i] = i < 4 ? (counter >>> (8 * i)) & 0xff : (i * 7) & 0xff
      return bytes
    },
  }
}
