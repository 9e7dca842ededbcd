import type { ActiveFaultRule, FaultDecision } from './faults.ts'
import type { AnswerDecision, HeldRule } from './answers.ts'
import type { RequestSubject } from './pattern.ts'
import type { Work } from './work.ts'
import { drawAt } from '../wire/prng.ts'

/**
 * Which rule takes a request, and what that changes in the table, as one synchronous pure
 * function: `decide(table, request)` reads the table and the request and changes neither; the
 * `Decision` it answers carries the table's updates (a rule's hit, one of its `times`, its
 * scenario's next state, the `rate` draws made), which the table commits in the same step
 * (table.ts). Matching an answer rule's pattern may take long, so it comes first, as work that
 * may pause (`matchForDecision`); `decide` then needs no match it does not know.
 * docs/request-path.md, "Answer rules in the request path", tells where the mock asks and how it
 * applies what it is told.
 */

/** What a decision reads of a table: the rules a request may meet, and their states. Never changed by `decide`. */
export interface RuleTableState extends RuleStates {
  /** The fault rules a request of this operation meets, in the order set (its own and every operation's `*`). */
  faultsFor(operationId: string): readonly ActiveFaultRule[]
  /** What a fault rule does to a request it applies to (made when the rule was set). */
  faultDecisionOf(rule: ActiveFaultRule): FaultDecision
  /** Where the `rate` draws stand (the state of the seeded generator, wire/prng.ts). */
  readonly drawState: number
}

/** What an answer rule's decision reads of the table besides the rules: scenario states, and whether a rule is still held. */
export interface RuleStates {
  stateOf(scenario: string): string
  /** False once the rule was removed (one by one or all at once): a match that waited does not bring it back. */
  isHeld(rule: HeldRule): boolean
}

/**
 * A request at one of the two points where rules meet it: on arrival (fault rules, by operation
 * only), and once it is authenticated, checked and authorized (answer rules: `candidates`, in the
 * order they are tried, with the matches known so far).
 */
export type RuleRequest =
  | { point: 'arrival'; operationId: string }
  | { point: 'answer'; candidates: readonly HeldRule[]; matched: ReadonlyMap<HeldRule, boolean> }

/** What a decision changes in the table; the table commits it in the step that decided it. */
export interface TableUpdates {
  /** The state of the `rate` draws after this decision's draws; null for no draw. */
  drawState: number | null
  /** The fault rule applied: its count of applications and its uses left after this one (0: it goes). */
  fault: { rule: ActiveFaultRule; applied: number; remaining: number | null } | null
  /** The answer rule that took the request: its hits and uses left after this one, and its scenario's next state. */
  answer: { rule: HeldRule; hits: number; remaining: number | null; scenario: { name: string; state: string } | null } | null
}

/**
 * What the rules do to one request at one point:
 * - `pass`: no rule takes it (its draws may still move the table's `rate` state);
 * - `fault`: a fault rule fails it (`status`), drops it, or cuts its answer (`commitThenDrop`), after its `latencyMs`;
 * - `delay`: it goes on to its own answer after `ms` (0 for at once): a fault that only delays,
 *   or an answer rule that leaves the operation's own answer (`answer: {}`), counted as the rule's hit;
 * - `answer`: an answer rule answers it whole (after its `delayMs`): nothing is performed;
 * - `patch`: an answer rule's merge patch changes its own answer (after its `delayMs`).
 */
export type Decision = { updates: TableUpdates } & (
  | { kind: 'pass' }
  | { kind: 'fault'; fault: FaultDecision & { action: NonNullable<FaultDecision['action']> } }
  | { kind: 'delay'; ms: number; fault: FaultDecision | null; rule: AnswerDecision | null }
  | { kind: 'answer'; rule: AnswerDecision & { kind: 'whole' } }
  | { kind: 'patch'; rule: AnswerDecision & { kind: 'patch' } }
)

const NO_UPDATES: TableUpdates = { drawState: null, fault: null, answer: null }

/**
 * The one decision: which rule takes `request`, from the table as it is now and the request alone,
 * and the table's updates that implies. Pure and synchronous: it changes nothing, so the table
 * commits its updates in the same step (nothing runs between deciding and counting, and two
 * requests never both take a rule's last use). At the answer point, a candidate whose match is not
 * known counts as not matching: `matchForDecision` leaves none before the rule that takes it.
 */
export function decide(table: RuleTableState, request: RuleRequest): Decision {
  return request.point === 'arrival' ? decideFault(table, request.operationId) : decideAnswer(table, request.candidates, request.matched)
}

/**
 * The fault rule an arriving request meets: the first of the rules for its operation and for every
 * operation, in the order set, that is not used up and passes its `rate` draw. A rule that always
 * applies draws nothing, so adding one does not shift the draws of the others.
 */
function decideFault(table: RuleTableState, operationId: string): Decision {
  let drawState: number | null = null
  for (const rule of table.faultsFor(operationId)) {
    if (rule.remaining === 0) continue
    if (rule.rate < 1) {
      const draw = drawAt(drawState ?? table.drawState)
      drawState = draw.state
      if (draw.value >= rule.rate) continue
    }
    const fault = table.faultDecisionOf(rule)
    const updates: TableUpdates = {
      drawState,
      fault: { rule, applied: rule.applied + 1, remaining: rule.remaining === null ? null : rule.remaining - 1 },
      answer: null,
    }
    if (fault.action === null) return { kind: 'delay', ms: fault.latencyMs, fault, rule: null, updates }
    return { kind: 'fault', fault: { ...fault, action: fault.action }, updates }
  }
  return { kind: 'pass', updates: drawState === null ? NO_UPDATES : { ...NO_UPDATES, drawState } }
}

function decideAnswer(table: RuleStates, candidates: readonly HeldRule[], matched: ReadonlyMap<HeldRule, boolean>): Decision {
  const found = firstTaking(table, candidates, matched)
  if (!('rule' in found) || found.rule === null) return { kind: 'pass', updates: NO_UPDATES }
  const { view, decision: rule } = found.rule
  const updates: TableUpdates = {
    drawState: null,
    fault: null,
    answer: {
      rule: found.rule,
      hits: view.hits + 1,
      remaining: view.remaining === null ? null : view.remaining - 1,
      scenario: view.setState === undefined ? null : { name: view.scenario as string, state: view.setState },
    },
  }
  if (rule.kind === 'whole') return { kind: 'answer', rule, updates }
  if (rule.kind === 'patch') return { kind: 'patch', rule, updates }
  return { kind: 'delay', ms: rule.delayMs, fault: null, rule, updates }
}

/** A rule that can answer now: held, not used up, its scenario in the state it waits for. */
function isOpen(rule: HeldRule, states: RuleStates): boolean {
  const { view } = rule
  return view.remaining !== 0 && (view.whenState === undefined || states.stateOf(view.scenario as string) === view.whenState) && states.isHeld(rule)
}

/**
 * The first of `candidates` (in the order rules are tried: priority, then newest) that can answer
 * now and whose pattern matches (a pattern that asks only for the operation needs no match: the
 * candidates are already the operation's); `{ unknown: i }` when an open candidate before it has a
 * match not known yet.
 */
function firstTaking(
  states: RuleStates,
  candidates: readonly HeldRule[],
  matched: ReadonlyMap<HeldRule, boolean>,
): { rule: HeldRule | null } | { unknown: number } {
  for (let i = 0; i < candidates.length; i++) {
    const rule = candidates[i] as HeldRule
    if (!isOpen(rule, states)) continue
    if (rule.pattern.operationOnly) return { rule }
    const known = matched.get(rule)
    if (known === undefined) return { unknown: i }
    if (known) return { rule }
  }
  return { rule: null }
}

/** What a decision asks of a pattern: whether it matches, not how far it is (no differences). */
const YES_OR_NO = { report: false } as const

/**
 * Matches the patterns an answer-point decision needs, as work that may pause (work.ts: run in
 * slices by the table, with one time budget for every rule it tries): from the first open
 * candidate whose match is unknown to the first that matches, with a chance for the slice to end
 * between rules and inside a long match. It ends, in the slice that found the last match it needed,
 * when `decide` over the table as it is then needs no other: a rule used up, removed or left by
 * its scenario while the match waited is passed over; one that opened meanwhile is matched then.
 * The caller decides in that same step (table.ts), so nothing changes between.
 */
export function* matchForDecision(table: RuleStates, candidates: readonly HeldRule[], matched: Map<HeldRule, boolean>, subject: RequestSubject): Work<void> {
  for (;;) {
    const found = firstTaking(table, candidates, matched)
    if (!('unknown' in found)) return
    for (let i = found.unknown; i < candidates.length; i++) {
      const rule = candidates[i] as HeldRule
      if (matched.has(rule) || !isOpen(rule, table)) continue
      if (rule.pattern.operationOnly) break
      const result = yield* rule.pattern.matchWork(subject, YES_OR_NO)
      matched.set(rule, result.matched)
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
