/**
 * Which rule takes a request (src/rules/decide.ts's pure `decide`, after `matchForDecision`) and
 * scenario states (src/rules/scenarios.ts), as functions over held rules: used-up and removed rules,
 * rates, scenario states, patterns, the updates a decision carries, the order of two lists, and
 * matches that pause (in slices) while the table changes.
 */
import { describe, expect, it } from 'vitest'
import { decide, inTrialOrder, matchForDecision, type Decision, type RuleStates, type RuleTableState } from '../../src/rules/decide.ts'
import { drawAt } from '../../src/wire/prng.ts'
import { createScenarios, STARTED } from '../../src/rules/scenarios.ts'
import { holdAnswerRule, triedBefore, type AnswerRuleInput, type HeldRule } from '../../src/rules/answers.ts'
import { faultDecision, type ActiveFaultRule } from '../../src/rules/faults.ts'
import type { MatchResult, RequestSubject } from '../../src/rules/pattern.ts'
import { runAtOnce, runSliced, type Work } from '../../src/rules/work.ts'
import { listOperations, releaseDocument } from '../../src/document/reader.ts'
import { LATEST_VERSION } from '../../spec/versions.ts'

const document = releaseDocument(LATEST_VERSION)
const context = { document, operations: new Map(listOperations(document).map((entry) => [entry.operationId, entry])), strict: false }

let nextId = 1
function held(input: Partial<AnswerRuleInput> & { remaining?: number }): HeldRule {
  const { remaining, ...rule } = input
  const out = holdAnswerRule({ operationId: 'queryItems', answer: {}, ...rule } as AnswerRuleInput, nextId++, context)
  if (remaining !== undefined) out.view.remaining = remaining
  return out
}

const subject = (query: string): RequestSubject => ({ operationId: 'queryItems', body: { query }, headers: {}, user: 'admin@acme.test' })
const started = () => STARTED
/** Every rule held, every scenario in `stateOf`'s state. */
const states = (stateOf: (scenario: string) => string = started, isHeld: (rule: HeldRule) => boolean = () => true): RuleStates => ({ stateOf, isHeld })
/** A table's state over `states` for answer rules (no fault rules). */
const tableOf = (at: RuleStates): RuleTableState => ({
  ...at,
  faultsFor: () => [],
  faultDecisionOf: () => {
    throw new Error('no fault rules')
  },
  drawState: 0,
})
/** The answer rule a decision names (the one its updates count); null for a pass. */
const ruleOf = (decision: Decision): HeldRule | null => decision.updates.answer?.rule ?? null
/**
 * What the table does (src/rules/table.ts): match as work that may pause, then, in the same step,
 * decide and hand the decision's rule to `take` (the table's commit).
 */
function* decideAnswer<T>(candidates: readonly HeldRule[], at: RuleStates, query: string, take: (rule: HeldRule) => T): Work<T | null> {
  const matched = new Map<HeldRule, boolean>()
  yield* matchForDecision(at, candidates, matched, subject(query))
  const rule = ruleOf(decide(tableOf(at), { point: 'answer', candidates, matched }))
  return rule === null ? null : take(rule)
}
/** The rule matching and deciding take, run at once; `taken` lists every rule counted. */
function decided(candidates: HeldRule[], query: string, at: RuleStates = states(), taken: HeldRule[] = []): HeldRule | null {
  return runAtOnce(decideAnswer(candidates, at, query, (rule) => (taken.push(rule), rule)))
}

describe('decide at the answer point, over the matches known', () => {
  const known = (...pairs: Array<[HeldRule, boolean]>) => new Map(pairs)
  /** The rule `decide` picks, as `{ rule }`. */
  const pickAnswer = (candidates: HeldRule[], at: RuleStates, matched: Map<HeldRule, boolean>) => ({
    rule: ruleOf(decide(tableOf(at), { point: 'answer', candidates, matched })),
  })

  it('the first open rule known to match; one known not to is passed over', () => {
    const other = held({ match: { body: { query: 'other' } }, name: 'other' })
    const mine = held({ match: { body: { query: 'mine' } }, name: 'mine' })
    expect(pickAnswer([other, mine], states(), known([other, false], [mine, true]))).toEqual({ rule: mine })
    expect(pickAnswer([other, mine], states(), known([other, false], [mine, false]))).toEqual({ rule: null })
  })

  it('matches nothing itself: a rule whose match is not known counts as not matching (matchForDecision comes first)', () => {
    const other = held({ match: { body: { query: 'other' } } })
    const mine = held({ match: { body: { query: 'mine' } } })
    for (const rule of [other, mine])
      rule.pattern = {
        ...rule.pattern,
        matchWork: () => {
          throw new Error('decide matched a pattern')
        },
      }
    expect(pickAnswer([other, mine], states(), known())).toEqual({ rule: null })
    expect(pickAnswer([other, mine], states(), known([other, false]))).toEqual({ rule: null })
    // A rule known to match before it wins, whatever the later rules would say.
    expect(pickAnswer([other, mine], states(), known([other, true]))).toEqual({ rule: other })
  })

  it('is pure: it changes neither the rules nor the table, and carries the updates it implies', () => {
    const once = held({ scenario: 'login', setState: 'in', times: 1, name: 'once' })
    const before = structuredClone(once.view)
    const table = tableOf(states())
    const first = decide(table, { point: 'answer', candidates: [once], matched: known() })
    const second = decide(table, { point: 'answer', candidates: [once], matched: known() })
    expect(once.view).toEqual(before)
    expect(second).toEqual(first)
    expect(first).toMatchObject({ kind: 'delay', ms: 0, fault: null, rule: { ruleId: once.view.id, kind: 'own' } })
    expect(first.updates).toEqual({ drawState: null, fault: null, answer: { rule: once, hits: 1, remaining: 0, scenario: { name: 'login', state: 'in' } } })
  })

  it('answers the kind of what the rule does: a whole answer, a patch, its own answer after a delay, or a pass', () => {
    const kinds = [held({ answer: { status: 503 } }), held({ answer: { patch: { ItemCount: 1 } }, offDocument: true }), held({ delayMs: 20 })]
    const decisions = kinds.map((rule) => decide(tableOf(states()), { point: 'answer', candidates: [rule], matched: known() }))
    expect(decisions.map((decision) => decision.kind)).toEqual(['answer', 'patch', 'delay'])
    expect(decisions[2]).toMatchObject({ ms: 20 })
    expect(decide(tableOf(states()), { point: 'answer', candidates: [], matched: known() })).toEqual({
      kind: 'pass',
      updates: { drawState: null, fault: null, answer: null },
    })
  })

  it('a rule that asks only for the operation takes the request with no match known', () => {
    const any = held({})
    expect(pickAnswer([any], states(), known())).toEqual({ rule: any })
  })

  it('a used-up rule beside a live one: the live one answers', () => {
    const used = held({ remaining: 0, name: 'used' })
    const live = held({ name: 'live' })
    expect(pickAnswer([used, live], states(), known())).toEqual({ rule: live })
    expect(pickAnswer([used], states(), known())).toEqual({ rule: null })
  })

  it('a rule with uses left answers', () => {
    const once = held({ remaining: 1 })
    expect(pickAnswer([once], states(), known())).toEqual({ rule: once })
  })

  it('a rule no longer held is passed over, even known to match', () => {
    const gone = held({ match: { body: { query: 'x' } } })
    const live = held({})
    expect(
      pickAnswer(
        [gone, live],
        states(started, (rule) => rule !== gone),
        known([gone, true]),
      ),
    ).toEqual({ rule: live })
  })

  it('a rule waiting for a scenario state answers only in that state, reading its own scenario', () => {
    const waiting = held({ scenario: 'login', whenState: 'expired' })
    const fallback = held({})
    const asked: string[] = []
    const stateOf = (state: string) => (scenario: string) => {
      asked.push(scenario)
      return state
    }
    expect(pickAnswer([waiting, fallback], states(stateOf(STARTED)), known())).toEqual({ rule: fallback })
    expect(pickAnswer([waiting, fallback], states(stateOf('expired')), known())).toEqual({ rule: waiting })
    expect(asked).toContain('login')
  })

  it('a rule that waits for no state answers in any state', () => {
    const plain = held({ scenario: 'login' })
    expect(
      pickAnswer(
        [plain],
        states(() => 'anything'),
        known(),
      ),
    ).toEqual({ rule: plain })
  })

  it('a used-up rule waiting for the state it is in still does not answer', () => {
    const used = held({ scenario: 's', whenState: STARTED, remaining: 0 })
    expect(pickAnswer([used], states(), known())).toEqual({ rule: null })
  })
})

describe('matchForDecision, then decide in the same step', () => {
  it('matches the candidates in turn and takes the first that matches, once', () => {
    const other = held({ match: { body: { query: 'other' } }, name: 'other' })
    const mine = held({ match: { body: { query: 'mine' } }, name: 'mine' })
    const taken: HeldRule[] = []
    expect(decided([other, mine], 'mine', states(), taken)).toBe(mine)
    expect(taken).toEqual([mine])
    expect(decided([other, mine], 'neither', states(), taken)).toBeNull()
    expect(taken).toEqual([mine])
  })

  it('asks a pattern for a yes or no, not a report; an operation-only rule is not matched at all', () => {
    const rule = held({ match: { body: { query: 'x' } } })
    const any = held({})
    const asked: unknown[] = []
    const work = rule.pattern.matchWork
    rule.pattern = { ...rule.pattern, matchWork: (s, options) => (asked.push(options), work(s, options)) }
    any.pattern = {
      ...any.pattern,
      matchWork: () => {
        throw new Error('an operation-only rule is matched')
      },
    }
    expect(decided([rule, any], 'x')).toBe(rule)
    expect(asked).toEqual([{ report: false }])
    expect(decided([any], 'x')).toBe(any)
  })

  it('stops matching at the first rule that matches: the rules after it are not matched', () => {
    const first = held({ match: { body: { query: 'x' } } })
    const later = held({ match: { body: { query: 'x' } } })
    later.pattern = {
      ...later.pattern,
      matchWork: () => {
        throw new Error('a rule after the one that answers is matched')
      },
    }
    expect(decided([first, later], 'x')).toBe(first)
  })

  it('gives the slice a chance to end between rules: a slice of 0 ms pauses after each rule that does not match', async () => {
    const misses = Array.from({ length: 5 }, (_, i) => held({ match: { body: { query: `miss ${i}` } } }))
    const hit = held({ match: { body: { query: 'x' } } })
    let turns = 0
    const count = (): void => {
      turns += 1
      if (turns < 100) setImmediate(count)
    }
    setImmediate(count)
    const pending = runSliced(
      decideAnswer([...misses, hit], states(), 'x', (rule) => rule),
      0,
    )
    expect(pending).toBeInstanceOf(Promise)
    expect(await pending).toBe(hit)
    expect(turns).toBeGreaterThanOrEqual(5)
  })

  describe('while a match waits (in slices), the table may change: the decision is made over the table as it is at the end', () => {
    /** A rule whose match pauses once, running `meanwhile` during the pause. */
    const pausing = (matched: boolean, meanwhile: () => void, input: Partial<AnswerRuleInput> = {}): HeldRule => {
      const rule = held({ match: { body: { query: 'x' } }, ...input })
      rule.pattern = {
        ...rule.pattern,
        operationOnly: false,
        *matchWork(): Work<MatchResult> {
          yield
          meanwhile()
          return { matched, distance: matched ? 0 : 1, differences: [] }
        },
      }
      return rule
    }
    const sliced = <T>(work: Work<T>) => runSliced(work, 0)

    it('a rule used up meanwhile is passed over for the next that matches', async () => {
      const next = held({ name: 'next' })
      const rule: HeldRule = pausing(true, () => (rule.view.remaining = 0), { times: 1 })
      expect(await sliced(decideAnswer([rule, next], states(), 'x', (r) => r))).toBe(next)
    })

    it('a rule removed meanwhile is passed over', async () => {
      let held_ = true
      const rule = pausing(true, () => (held_ = false))
      expect(
        await sliced(
          decideAnswer(
            [rule],
            states(started, () => held_),
            'x',
            (r) => r,
          ),
        ),
      ).toBeNull()
    })

    it('a rule whose scenario moved meanwhile is passed over', async () => {
      let state = 'ready'
      const rule = pausing(true, () => (state = 'moved'), { scenario: 's', whenState: 'ready' })
      expect(
        await sliced(
          decideAnswer(
            [rule],
            states(() => state),
            'x',
            (r) => r,
          ),
        ),
      ).toBeNull()
    })

    it('an earlier rule that opened meanwhile (its scenario moved to its state) is matched then, and answers', async () => {
      let state = STARTED
      const waiting = held({ match: { body: { query: 'x' } }, scenario: 's', whenState: 'open', name: 'waiting' })
      const rule = pausing(true, () => (state = 'open'), { name: 'pausing' })
      const taken: HeldRule[] = []
      expect(
        await sliced(
          decideAnswer(
            [waiting, rule],
            states(() => state),
            'x',
            (r) => (taken.push(r), r),
          ),
        ),
      ).toBe(waiting)
      expect(taken).toEqual([waiting])
    })

    it('two requests matched at once for a rule of one use: exactly one takes it, the other gets the next rule', async () => {
      const once = pausing(true, () => {}, { times: 1, name: 'once' })
      const fallback = held({ name: 'fallback' })
      const take = (rule: HeldRule) => {
        if (rule.view.remaining !== null) rule.view.remaining -= 1
        return rule
      }
      const both = await Promise.all([sliced(decideAnswer([once, fallback], states(), 'x', take)), sliced(decideAnswer([once, fallback], states(), 'x', take))])
      expect(both.map((rule) => rule?.view.name)).toEqual(['once', 'fallback'])
      expect(once.view.remaining).toBe(0)
    })
  })
})

describe('decide on arrival (fault rules)', () => {
  const fault = (over: Partial<ActiveFaultRule>): ActiveFaultRule =>
    ({ operationId: 'queryItems', id: 1, rate: 1, remaining: null, applied: 0, latencyMs: 0, status: 503, ...over }) as ActiveFaultRule
  /** A table holding `rules` for queryItems, its draws standing at `drawState`. */
  const faultTable = (rules: ActiveFaultRule[], drawState = 7): RuleTableState => ({
    ...states(),
    faultsFor: (operationId) => (operationId === 'queryItems' ? rules : []),
    faultDecisionOf: (rule) => faultDecision(rule, 'gateway'),
    drawState,
  })
  const arrive = (table: RuleTableState): Decision => decide(table, { point: 'arrival', operationId: 'queryItems' })
  const picked = (decision: Decision) => decision.updates.fault?.rule ?? null

  it('the first rule not used up, counted in its updates; a rule that always applies draws nothing', () => {
    const used = fault({ remaining: 0 })
    const live = fault({ remaining: 2, applied: 4, id: 2 })
    const decision = arrive(faultTable([used, live]))
    expect(picked(decision)).toBe(live)
    expect(decision).toMatchObject({ kind: 'fault', fault: { ruleId: 2, action: { kind: 'status', status: 503 } } })
    expect(decision.updates).toEqual({ drawState: null, fault: { rule: live, applied: 5, remaining: 1 }, answer: null })
    // Pure: the rule itself is not counted until the table commits the updates.
    expect(live).toMatchObject({ remaining: 2, applied: 4 })
    expect(arrive(faultTable([used]))).toEqual({ kind: 'pass', updates: { drawState: null, fault: null, answer: null } })
  })

  it('a rule that only delays is a delay; any other is a fault', () => {
    expect(arrive(faultTable([fault({ status: undefined, latencyMs: 30 })]))).toMatchObject({
      kind: 'delay',
      ms: 30,
      rule: null,
      fault: { latencyMs: 30, action: null },
    })
    expect(arrive(faultTable([fault({ status: undefined, drop: true })]))).toMatchObject({ kind: 'fault', fault: { action: { kind: 'drop' } } })
  })

  it('a rule with a rate applies when the seeded draw is below it, and is passed over at or above it; the draw moves the state on', () => {
    const draw = drawAt(7)
    const after = fault({ id: 2 })
    const below = fault({ rate: Math.min(1, draw.value + 1e-9) })
    expect(picked(arrive(faultTable([below, after])))).toBe(below)
    const at = fault({ rate: draw.value })
    const passed = arrive(faultTable([at, after]))
    expect(picked(passed)).toBe(after)
    expect(passed.updates.drawState).toBe(draw.state)
    // A second rate rule draws the next value, from the state the first left.
    const second = fault({ rate: 1e-12, id: 3 })
    expect(arrive(faultTable([at, second])).updates.drawState).toBe(drawAt(draw.state).state)
  })

  it('a pass still carries its draws, so the next request draws the next value', () => {
    const never = fault({ rate: 1e-12 })
    expect(arrive(faultTable([never]))).toEqual({ kind: 'pass', updates: { drawState: drawAt(7).state, fault: null, answer: null } })
  })
})

describe('inTrialOrder', () => {
  const rule = (id: number, priority: number): HeldRule => ({ view: { id, priority } }) as HeldRule

  it('merges two lists, each in trial order, into one in trial order', () => {
    const a = [rule(9, 1), rule(4, 5), rule(1, 5)]
    const b = [rule(8, 1), rule(6, 3), rule(2, 5), rule(0, 9)]
    expect([...inTrialOrder(a, b, triedBefore)].map((r) => r.view.id)).toEqual([9, 8, 6, 4, 2, 1, 0])
  })

  it('on a tie the first list goes first', () => {
    const a = [rule(1, 5)]
    const b = [rule(1, 5)]
    const merged = [...inTrialOrder(a, b, triedBefore)]
    expect(merged[0]).toBe(a[0])
    expect(merged[1]).toBe(b[0])
  })

  it('either list may be empty, or both', () => {
    const a = [rule(2, 1), rule(1, 1)]
    expect([...inTrialOrder(a, [], triedBefore)]).toEqual(a)
    expect([...inTrialOrder([], a, triedBefore)]).toEqual(a)
    expect([...inTrialOrder([], [], triedBefore)]).toEqual([])
  })
})

describe('scenarios', () => {
  it('every scenario starts in Started, and moves when told', () => {
    const scenarios = createScenarios()
    expect(STARTED).toBe('Started')
    expect(scenarios.stateOf('login')).toBe('Started')
    scenarios.move('login', 'expired')
    expect(scenarios.stateOf('login')).toBe('expired')
    expect(scenarios.stateOf('other')).toBe('Started')
  })

  it('lists the named scenarios and every one moved; a clear forgets every state', () => {
    const scenarios = createScenarios()
    scenarios.move('moved', 'two')
    expect(scenarios.listed(['named', 'moved'])).toEqual({ named: 'Started', moved: 'two' })
    expect(scenarios.listed([])).toEqual({ moved: 'two' })
    scenarios.clear()
    expect(scenarios.stateOf('moved')).toBe('Started')
    expect(scenarios.listed([])).toEqual({})
  })
})
