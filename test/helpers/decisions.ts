import type { Decision } from '../../src/rules/decide.ts'
import type { FaultDecision } from '../../src/rules/faults.ts'

/** The fault rule's decision a `decide` at the arrival point answers (a fault, or a delay by a fault); null for none. */
export function faultOf(decision: Decision): FaultDecision | null {
  if (decision.kind === 'fault') return decision.fault
  if (decision.kind === 'delay') return decision.fault
  return null
}

/** The id of the answer rule a decision at the answer point names (a whole answer, a patch, its own answer); null for none. */
export async function ruleIdOf(decision: Promise<Decision>): Promise<number | null> {
  const decided = await decision
  if (decided.kind === 'answer' || decided.kind === 'patch') return decided.rule.ruleId
  if (decided.kind === 'delay') return decided.rule?.ruleId ?? null
  return null
}
