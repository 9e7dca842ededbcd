/**
 * The data's epoch: how many times the store's data was loaded (1 when it is built, one more at
 * each reset or fixture load). A write is stamped with the epoch it was received under; the store
 * refuses one stamped with an older epoch, so a reset or fixture load is a clean cut: nothing
 * received before it writes into the data loaded by it (a save held by a rule's delay or a fault's
 * latency, one still being planned in slices, one whose body was still arriving).
 */
export class DataReplaced extends Error {
  override name = 'DataReplaced'
}

/** Throws DataReplaced when `received` (a write's stamp; undefined: none, taken as now) is not `current`. */
export function requireEpoch(received: number | undefined, current: number): void {
  if (received === undefined || received === current) return
  throw new DataReplaced(
    "The mock's data was replaced (a reset or fixture load) after this request was received and before it was written; nothing of it was written. Send it again.",
  )
}
