import type { ActiveFaultRule } from './faults.ts'
import type { HeldRule } from './answers.ts'
import type { RequestSubject } from './pattern.ts'
import type { Work } from './work.ts'

/**
 * Which rule takes a request, as functions over the rules a table hands them: nothing here counts a
 * use or moves a scenario (the table does, for the rule picked, through `take`), so what a request
 * meets is decided from the rules, their states and the request alone.
 */

/**
 * The fault rule an arriving request meets: the first of `candidates` (the rules for its
 * operation and for every operation, in the order set) that is not used up and passes its `rate`
 * draw. A rule that always applies draws nothing, so adding one does not shift the draws of the
 * others.
 */
export function pickFault(candidates: readonly ActiveFaultRule[], draw: () => number): ActiveFaultRule | null {
  for (const rule of candidates) {
    if (rule.remaining === 0) continue
    if (rule.rate < 1 && draw() >= rule.rate) continue
    return rule
  }
  return null
}

/** What an answer rule's decision reads of the table besides the rules: scenario states, and whether a rule is still held. */
export interface RuleStates {
  stateOf(scenario: string): string
  /** False once the rule was removed (one by one or all at once): a match that waited does not bring it back. */
  isHeld(rule: HeldRule): boolean
}

/** A rule that can answer now: held, not used up, its scenario in the state it waits for. */
function isOpen(rule: HeldRule, states: RuleStates): boolean {
  const { view } = rule
  return view.remaining !== 0 && (view.whenState === undefined || states.stateOf(view.scenario as string) === view.whenState) && states.isHeld(rule)
}

/**
 * The answer rule a request meets, decided at once from the table as it is now and from the
 * matches known so far: the first of `candidates` (in the order rules are tried: priority, then
 * newest) that can answer now (held, not used up, its scenario in the state it waits for) and whose
 * pattern matches. A pattern that asks only for the operation needs no match: the candidates are
 * already the operation's. `{ unknown: i }` when the first open rule whose match is not known yet is
 * candidate `i`: match it (`decideAnswer` does), then decide again. Pure: it counts nothing.
 */
export function pickAnswer(candidates: readonly HeldRule[], states: RuleStates, known: ReadonlyMap<HeldRule, boolean>): { rule: HeldRule | null } | { unknown: number } {
  for (let i = 0; i < candidates.length; i++) {
    const rule = candidates[i] as HeldRule
    if (!isOpen(rule, states)) continue
    if (rule.pattern.operationOnly) return { rule }
    const matched = known.get(rule)
    if (matched === undefined) return { unknown: i }
    if (matched) return { rule }
  }
  return { rule: null }
}

/** What a decision asks of a pattern: whether it matches, not how far it is (no differences). */
const YES_OR_NO = { report: false } as const

/**
 * The answer rule a request meets, as work that may pause (pattern.ts's `Work`, run by `runSliced`
 * with one time budget for every rule it tries): the patterns of the open candidates are matched in
 * turn, from the first whose match is unknown to the first that matches, with a chance for the
 * slice to end between rules and inside a long match. Then `pickAnswer` decides over the table as it
 * is at that moment, and `take` counts the rule it picks, in the same step: nothing can run between
 * the decision and its count, so two requests can never both take a rule's last use, however long
 * their matches waited. A rule used up, removed or left by its scenario while the match waited is
 * passed over; one that opened meanwhile (its scenario moved to its state) is matched then.
 */
export function* decideAnswer<T>(candidates: readonly HeldRule[], subject: RequestSubject, states: RuleStates, take: (rule: HeldRule) => T): Work<T | null> {
  const known = new Map<HeldRule, boolean>()
  for (;;) {
    const picked = pickAnswer(candidates, states, known)
    if ('rule' in picked) return picked.rule === null ? null : take(picked.rule)
    for (let i = picked.unknown; i < candidates.length; i++) {
      const rule = candidates[i] as HeldRule
      if (known.has(rule) || !isOpen(rule, states)) continue
      if (rule.pattern.operationOnly) break
      const result = yield* rule.pattern.matchWork(subject, YES_OR_NO)
      known.set(rule, result.matched)
      // A match: decided now, before anything else runs.
      if (result.matched) break
      yield
    }
  }
}

/**
 * Two lists, each in the order rules are tried, as one list in that order: the rules of one
 * operation and the rules of every operation, without building a new array per request.
 */
export function* inTrialOrder(a: readonly HeldRule[], b: readonly HeldRule[], before: (x: HeldRule, y: HeldRule) => number): Generator<HeldRule> {
  let i = 0
  let j = 0
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && before(a[i] as HeldRule, b[j] as HeldRule) <= 0)) yield a[i++] as HeldRule
    else yield b[j++] as HeldRule
  }
}
