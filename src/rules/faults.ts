import type { Violation } from '../errors.ts'

/**
 * Fault rules (`POST /__mock/faults`): the infrastructure's answer to a request, on arrival, by
 * operation only (added latency, an error status, a dropped connection, or a connection cut after
 * the handler has written). This module is what a fault rule is and what makes one acceptable;
 * the table (table.ts) holds them and decide.ts picks the one that applies.
 */

/** A fault rule as a test writes it (the `FaultRule` schema of spec/control-plane/). */
export interface FaultRuleInput {
  /** An operationId of the API document, or `*` for every API operation. */
  operationId: string
  latencyMs?: number
  status?: number
  drop?: boolean
  commitThenDrop?: boolean
  /** Probability, 0..1, that the rule applies to a matching request (default 1). */
  rate?: number
  /** Apply this many times, then remove the rule. */
  times?: number
}

/** A rule as the mock holds it, with its use so far (the `ActiveFaultRule` schema). */
export interface ActiveFaultRule extends FaultRuleInput {
  id: number
  rate: number
  remaining: number | null
  applied: number
}

/** The active rules and the seed behind `rate` (the `FaultList` schema). */
export interface FaultList {
  seed: number
  rules: ActiveFaultRule[]
}

/** What a fault does to one request. */
export interface FaultDecision {
  ruleId: number
  latencyMs: number
  /** The effect after the delay; null for a rule that only delays. */
  action: { kind: 'status'; status: number } | { kind: 'drop' } | { kind: 'commitThenDrop' } | null
}

/** What a fault did to a request, as the journal records it. */
export type FaultEffect = 'latency' | 'status' | 'drop' | 'commitThenDrop'

/** The journal's name for a decision's effect. */
export function effectOf(decision: FaultDecision): FaultEffect {
  return decision.action === null ? 'latency' : decision.action.kind
}

/** The rules of a set, numbered in order, as the table holds them (copies: the caller's objects are never shared). */
export function activeFaultRules(rules: readonly FaultRuleInput[]): ActiveFaultRule[] {
  return rules.map((rule, index) => ({ id: index + 1, ...copyRule(rule), rate: rule.rate ?? 1, remaining: rule.times ?? null, applied: 0 }))
}

/** The decision a rule makes for a request it applies to. */
export function faultDecision(rule: ActiveFaultRule): FaultDecision {
  return { ruleId: rule.id, latencyMs: rule.latencyMs ?? 0, action: actionOf(rule) }
}

function actionOf(rule: FaultRuleInput): FaultDecision['action'] {
  if (rule.status !== undefined) return { kind: 'status', status: rule.status }
  if (rule.drop === true) return { kind: 'drop' }
  if (rule.commitThenDrop === true) return { kind: 'commitThenDrop' }
  return null
}

/** Only the members the schema knows, so a caller's object is never shared with the table. */
function copyRule(rule: FaultRuleInput): FaultRuleInput {
  const copy: FaultRuleInput = { operationId: rule.operationId }
  if (rule.latencyMs !== undefined) copy.latencyMs = rule.latencyMs
  if (rule.status !== undefined) copy.status = rule.status
  if (rule.drop !== undefined) copy.drop = rule.drop
  if (rule.commitThenDrop !== undefined) copy.commitThenDrop = rule.commitThenDrop
  if (rule.times !== undefined) copy.times = rule.times
  return copy
}

/**
 * What the schema cannot say of one rule: one effect at most, at least one, and an operation the
 * release has (a misspelt one would silently never match).
 */
export function faultRuleViolations(rule: FaultRuleInput, index: number, known: ReadonlySet<string>): Violation[] {
  const at = `/body/rules/${index}`
  const out: Violation[] = []
  if (rule.operationId !== '*' && !known.has(rule.operationId)) {
    const names = [...known].sort().join(', ')
    out.push({ pointer: `${at}/operationId`, keyword: 'operationId', message: `is not an operation of this release; use * or one of ${names}` })
  }
  const effects = (['status', 'drop', 'commitThenDrop'] as const).filter((name) => (name === 'status' ? rule.status !== undefined : rule[name] === true))
  if (effects.length > 1) {
    out.push({ pointer: `${at}/${effects[1]}`, keyword: 'oneEffect', message: `cannot go with ${effects[0]}: a rule has at most one of status, drop and commitThenDrop` })
  }
  if (effects.length === 0 && (rule.latencyMs ?? 0) === 0) {
    out.push({ pointer: at, keyword: 'effect', message: 'does nothing: give latencyMs, status, drop or commitThenDrop' })
  }
  return out
}
