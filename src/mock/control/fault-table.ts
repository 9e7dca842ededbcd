import type { Violation } from '../../errors.ts'
import { mulberry32 } from '../../fixtures/prng.ts'
import { checkControlBody, validationProblem } from './document.ts'
import { createRuleList, type RuleList } from './rule-table.ts'

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

/** What the faults plugin does to one request. */
export interface FaultDecision {
  ruleId: number
  latencyMs: number
  /** The effect after the delay; null for a rule that only delays. */
  action: { kind: 'status'; status: number } | { kind: 'drop' } | { kind: 'commitThenDrop' } | null
}

/** The fault rules of one mock. */
export interface FaultTable {
  /**
   * Replaces every rule after checking them (400 problem naming the field). An operationId the
   * release lacks is refused, so a misspelt one cannot silently never match.
   */
  set(input: { rules: FaultRuleInput[]; seed?: number }): FaultList
  list(): FaultList
  /** Removes every rule; returns how many there were. */
  clear(): number
  /** The rule that applies to a request of this operation, counted as applied; null for none. */
  decide(operationId: string): FaultDecision | null
  /** Whether any rule is set: with none, a request needs no look-up at all. */
  hasRules(): boolean
}

/**
 * An empty fault table. `randomSeed` supplies the seed when a call gives none; it comes from
 * the mock's injected randomness, so fixed test dependencies give the same draws every run.
 * `knownOperationIds` is read when rules are set (the faults plugin fills it as routes are added).
 * The rules live in `list`, the mock's one table of rules, beside its answer rules (rule-table.ts).
 */
export function createFaultTable(randomSeed: () => number, knownOperationIds: ReadonlySet<string>, list: RuleList<ActiveFaultRule, unknown> = createRuleList()): FaultTable {
  // Drawn only when rules are set without a seed, so a mock that never uses faults takes
  // nothing from the injected randomness that tokens come from.
  let seed = 0
  let random = mulberry32(seed)
  const faultRules = (): ActiveFaultRule[] => list.entries.flatMap((entry) => (entry.kind === 'fault' ? [entry.rule] : []))
  const listed = (): FaultList => ({ seed, rules: faultRules().map((rule) => ({ ...rule })) })

  return {
    set(input) {
      checkControlBody('FaultRuleSet', input)
      const violations = input.rules.flatMap((rule, index) => ruleViolations(rule, index, knownOperationIds))
      if (violations.length > 0) throw validationProblem(violations)
      seed = input.seed ?? randomSeed()
      random = mulberry32(seed)
      list.setFaults(
        input.rules.map((rule, index) => ({
          id: index + 1,
          ...copyRule(rule),
          rate: rule.rate ?? 1,
          remaining: rule.times ?? null,
          applied: 0,
        })),
      )
      return listed()
    },
    list: listed,
    clear: () => list.clear('fault'),
    hasRules: () => list.count('fault') > 0,
    decide(operationId) {
      // The hot path: no rules, no work.
      if (list.count('fault') === 0) return null
      for (const entry of list.entries) {
        // Fault rules come first; the first answer rule ends them.
        if (entry.kind !== 'fault') break
        const rule = entry.rule
        if (rule.operationId !== '*' && rule.operationId !== operationId) continue
        // A rule that always applies draws nothing, so adding one does not shift the draws of the others.
        if (rule.rate < 1 && random() >= rule.rate) continue
        rule.applied += 1
        if (rule.remaining !== null) {
          rule.remaining -= 1
          if (rule.remaining === 0) list.remove(rule)
        }
        return { ruleId: rule.id, latencyMs: rule.latencyMs ?? 0, action: actionOf(rule) }
      }
      return null
    },
  }
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

/** What the schema cannot say: one effect at most, at least one, and an operation that exists. */
function ruleViolations(rule: FaultRuleInput, index: number, known: ReadonlySet<string>): Violation[] {
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
