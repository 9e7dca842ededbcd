import fc from 'fast-check'
import { Interrupted, isHalt } from './halt.ts'
import type { ContractContext } from './types.ts'

/**
 * Runs a fast-check property for a contract, ending at the first failure (no shrinking: against
 * an installation every run costs requests). A `require`, a `skip` or an interrupt raised inside
 * the property is the contract's, not a counterexample: it is thrown on as it came, so the
 * contract fails once with its own message, is skipped, or stops. A run that starts after an
 * interrupt fails at its first request the same way, so none goes on sending.
 */
export async function checkProperty<Ts>(
  ctx: ContractContext,
  property: fc.IAsyncPropertyWithHooks<Ts>,
  parameters: fc.Parameters<Ts>,
): Promise<fc.RunDetails<Ts>> {
  const result = await fc.check(property, { ...parameters, endOnFailure: true })
  if (result.failed && isHalt(result.errorInstance)) throw result.errorInstance
  if (ctx.signal.aborted) throw new Interrupted()
  return result
}
