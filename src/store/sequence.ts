/**
 * A storage's sequences (database Id, Identity value) and the installation's row-version counter
 * are numbers, exact only up to `Number.MAX_SAFE_INTEGER` (2^53 - 1): past it `n + 1 === n`, a
 * loop that looks for the next free value never moves, and two rows could get one Id. A value
 * past it is refused instead; the mock answers 409 SEQUENCE_EXHAUSTED (docs/behaviour.md). Only a
 * fixture that sets a sequence near 2^53 gets there.
 */
export class SequenceExhausted extends Error {
  override name = 'SequenceExhausted'
}

/**
 * `value` when a sequence may hand it out, and the `more` values after it; throws SequenceExhausted
 * past Number.MAX_SAFE_INTEGER. Compared without adding: past 2^53 a sum rounds, and may round back under.
 */
export function withinSequence(value: number, what: string, more = 0): number {
  if (!Number.isSafeInteger(value) || value > Number.MAX_SAFE_INTEGER - more) {
    throw new SequenceExhausted(
      `${what} would pass ${Number.MAX_SAFE_INTEGER} (2^53 - 1), the largest integer the mock holds exactly; load a fixture with lower values or reset the mock.`,
    )
  }
  return value
}
