import type { MockClock } from '../../deps.ts'
import { MAX_CLOCK_ADVANCE_MS } from '../../../spec/control-plane/constants.ts'
import { validationProblem } from '../../document/control-body.ts'

/** The mock's time as the control plane shows it (the `ClockState` schema). */
export interface ClockState {
  now: string
  offsetMs: number
}

/** The last moment the clock may reach: the end of year 9999, the last a DateTime value's four digits of year can say. */
const LAST_TIME = Date.UTC(9999, 11, 31, 23, 59, 59, 999)

/** The clock's time and how far it has been moved. */
export function readClock(clock: MockClock): ClockState {
  return { now: new Date(clock.now()).toISOString(), offsetMs: clock.offset() }
}

/**
 * Moves the clock forward without waiting: tokens expire and new rows are dated by it. Never
 * backwards, since a clock going back would make expired tokens live again and row times
 * run out of order.
 */
export function advanceClock(clock: MockClock, ms: number): ClockState {
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_CLOCK_ADVANCE_MS) {
    throw validationProblem([
      { pointer: '/body/advanceMs', keyword: 'range', message: `must be a whole number of milliseconds from 0 to ${MAX_CLOCK_ADVANCE_MS}, got ${ms}` },
    ])
  }
  // Moves add up: each is bounded, and so is where they lead, to a time every form of the mock can still write.
  if (clock.now() + ms > LAST_TIME) {
    throw validationProblem([
      {
        pointer: '/body/advanceMs',
        keyword: 'range',
        message: `would move the clock past ${new Date(LAST_TIME).toISOString()}, the last time a DateTime (yyyyMMddHHmmss, four digits of year) can say; it is ${new Date(clock.now()).toISOString()}`,
      },
    ])
  }
  clock.advance(ms)
  return readClock(clock)
}
