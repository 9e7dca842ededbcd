/**
 * How a contract stops early. Thrown from a check or a request and caught by the runner, also
 * when they pass through fast-check (which reports them as the property's error).
 */

/** A failed `require`: the contract stops; its failure is already recorded. */
export class Stop extends Error {
  override name = 'Stop'
}

/** A state the contract needs is not there: it is reported as skipped, with the reason. */
export class Skip extends Error {
  override name = 'Skip'
}

/** The run was interrupted (Ctrl-C, SIGTERM): no request of a contract is sent any more. */
export class Interrupted extends Error {
  override name = 'Interrupted'
  constructor() {
    super('interrupted before the contract ended')
  }
}

/** Whether an error is one of the halts above rather than a fault. */
export function isHalt(error: unknown): error is Stop | Skip | Interrupted {
  return error instanceof Stop || error instanceof Skip || error instanceof Interrupted
}
