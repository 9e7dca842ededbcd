import type { MockClock } from '../../deps.ts'
import { MAX_CLOCK_ADVANCE_MS } from '../../../spec/control-plane/constants.ts'
import { validationProblem } from '../../document/control-body.ts'

/** The mock's time as the control plane shows it (the `ClockState` schema). */
export interface ClockState {
  now: string
  offsetMs: number
}

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
    throw validationProblem([{ pointer: '/body/advanceMs', keyword: 'range', message: `must be a whole number of milliseconds from 0 to ${MAX_CLOCK_ADVANCE_MS}, got ${ms}` }])
  }
  clock.advance(ms)
  return readClock(clock)
}
