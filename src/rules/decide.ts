import type { ActiveFaultRule } from './faults.ts'
import type { HeldRule } from './answers.ts'
import type { RequestSubject } from './pattern.ts'

/**
 * Which rule takes a request, as pure functions over the rules a table hands them: nothing here
 * counts a use or moves a scenario (the table does, for the rule picked), so what a request meets
 * is decided from the rules and states alone.
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

/**
 * The answer rule a request meets: the first of `candidates` (in the order rules are tried:
 * priority, then newest) that is not used up, whose scenario is in the state it waits for, and
 * whose pattern matches. A pattern that asks only for the operation costs nothing more: the
 * candidates are already the operation's. A match over a large request is done in slices (the
 * pattern's `matchSliced`), and then the answer is a promise; a rule that was used up or whose
 * scenario moved while its match waited is passed over.
 */
export function pickAnswer(candidates: Iterable<HeldRule>, stateOf: (scenario: string) => string, subject: RequestSubject): HeldRule | null | Promise<HeldRule | null> {
  const open = (held: HeldRule): boolean => held.view.remaining !== 0 && (held.view.whenState === undefined || stateOf(held.view.scenario as string) === held.view.whenState)
  const iterator = candidates[Symbol.iterator]()
  const next = (): HeldRule | null | Promise<HeldRule | null> => {
    for (let step = iterator.next(); step.done !== true; step = iterator.next()) {
      const held = step.value
      if (!open(held)) continue
      if (held.pattern.operationOnly) return held
      const result = held.pattern.matchSliced(subject, { report: false })
      if (result instanceof Promise) return result.then((settled) => (settled.matched && open(held) ? held : next()))
      if (result.matched) return held
    }
    return null
  }
  return next()
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
