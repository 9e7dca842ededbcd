/**
 * Which rule takes a request (src/rules/decide.ts) and scenario states (src/rules/scenarios.ts), as
 * functions over held rules: used-up and removed rules, rates, scenario states, patterns, the order of
 * two lists, and matches that pause (in slices) while the table changes.
 */
import { describe, expect, it } from 'vitest'
import { decideAnswer, inTrialOrder, pickAnswer, pickFault, type RuleStates } from '../../src/rules/decide.ts'
import { createScenarios, STARTED } from '../../src/rules/scenarios.ts'
import { holdAnswerRule, triedBefore, type AnswerRuleInput, type HeldRule } from '../../src/rules/answers.ts'
import type { ActiveFaultRule } from '../../src/rules/faults.ts'
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
/** The rule `decideAnswer` takes, run at once; `taken` lists every rule it counted. */
function decided(candidates: HeldRule[], query: string, at: RuleStates = states(), taken: HeldRule[] = []): HeldRule | null {
  return runAtOnce(decideAnswer(candidates, subject(query), at, (rule) => (taken.push(rule), rule)))
}

describe('pickAnswer', () => {
  const known = (...pairs: Array<[HeldRule, boolean]>) => new Map(pairs)

  it('the first open rule known to match; one known not to is passed over', () => {
    const other = held({ match: { body: { query: 'other' } }, name: 'other' })
    const mine = held({ match: { body: { query: 'mine' } }, name: 'mine' })
    expect(pickAnswer([other, mine], states(), known([other, false], [mine, true]))).toEqual({ rule: mine })
    expect(pickAnswer([other, mine], states(), known([other, false], [mine, false]))).toEqual({ rule: null })
  })

  it('names the first open rule whose match is not known yet, and matches nothing itself', () => {
    const other = held({ match: { body: { query: 'other' } } })
    const mine = held({ match: { body: { query: 'mine' } } })
    expect(pickAnswer([other, mine], states(), known())).toEqual({ unknown: 0 })
    expect(pickAnswer([other, mine], states(), known([other, false]))).toEqual({ unknown: 1 })
    // A rule known to match before it wins, whatever the later rules would say.
    expect(pickAnswer([other, mine], states(), known([other, true]))).toEqual({ rule: other })
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
    expect(pickAnswer([gone, live], states(started, (rule) => rule !== gone), known([gone, true]))).toEqual({ rule: live })
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
    expect(pickAnswer([plain], states(() => 'anything'), known())).toEqual({ rule: plain })
  })

  it('a used-up rule waiting for the state it is in still does not answer', () => {
    const used = held({ scenario: 's', whenState: STARTED, remaining: 0 })
    expect(pickAnswer([used], states(), known())).toEqual({ rule: null })
  })
})

describe('decideAnswer', () => {
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
    any.pattern = { ...any.pattern, matchWork: () => { throw new Error('an operation-only rule is matched') } }
    expect(decided([rule, any], 'x')).toBe(rule)
    expect(asked).toEqual([{ report: false }])
    expect(decided([any], 'x')).toBe(any)
  })

  it('stops matching at the first rule that matches: the rules after it are not matched', () => {
    const first = held({ match: { body: { query: 'x' } } })
    const later = held({ match: { body: { query: 'x' } } })
    later.pattern = { ...later.pattern, matchWork: () => { throw new Error('a rule after the one that answers is matched') } }
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
    const pending = runSliced(decideAnswer([...misses, hit], subject('x'), states(), (rule) => rule), 0)
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
      expect(await sliced(decideAnswer([rule, next], subject('x'), states(), (r) => r))).toBe(next)
    })

    it('a rule removed meanwhile is passed over', async () => {
      let held_ = true
      const rule = pausing(true, () => (held_ = false))
      expect(await sliced(decideAnswer([rule], subject('x'), states(started, () => held_), (r) => r))).toBeNull()
    })

    it('a rule whose scenario moved meanwhile is passed over', async () => {
      let state = 'ready'
      const rule = pausing(true, () => (state = 'moved'), { scenario: 's', whenState: 'ready' })
      expect(await sliced(decideAnswer([rule], subject('x'), states(() => state), (r) => r))).toBeNull()
    })

    it('an earlier rule that opened meanwhile (its scenario moved to its state) is matched then, and answers', async () => {
      let state = STARTED
      const waiting = held({ match: { body: { query: 'x' } }, scenario: 's', whenState: 'open', name: 'waiting' })
      const rule = pausing(true, () => (state = 'open'), { name: 'pausing' })
      const taken: HeldRule[] = []
      expect(await sliced(decideAnswer([waiting, rule], subject('x'), states(() => state), (r) => (taken.push(r), r)))).toBe(waiting)
      expect(taken).toEqual([waiting])
    })

    it('two requests matched at once for a rule of one use: exactly one takes it, the other gets the next rule', async () => {
      const once = pausing(true, () => {}, { times: 1, name: 'once' })
      const fallback = held({ name: 'fallback' })
      const take = (rule: HeldRule) => {
        if (rule.view.remaining !== null) rule.view.remaining -= 1
        return rule
      }
      const both = await Promise.all([sliced(decideAnswer([once, fallback], subject('x'), states(), take)), sliced(decideAnswer([once, fallback], subject('x'), states(), take))])
      expect(both.map((rule) => rule?.view.name)).toEqual(['once', 'fallback'])
      expect(once.view.remaining).toBe(0)
    })
  })
})

describe('pickFault', () => {
  const fault = (over: Partial<ActiveFaultRule>): ActiveFaultRule => ({ operationId: 'queryItems', id: 1, rate: 1, remaining: null, applied: 0, ...over }) as ActiveFaultRule

  it('the first rule not used up; a rule that always applies draws nothing', () => {
    const used = fault({ remaining: 0 })
    const live = fault({ remaining: 2 })
    let draws = 0
    expect(pickFault([used, live], () => (draws++, 0))).toBe(live)
    expect(draws).toBe(0)
    expect(pickFault([used], () => 0)).toBeNull()
  })

  it('a rule with a rate applies when the draw is below it, and is passed over at or above it', () => {
    const half = fault({ rate: 0.5 })
    const after = fault({})
    expect(pickFault([half, after], () => 0.49)).toBe(half)
    expect(pickFault([half, after], () => 0.5)).toBe(after)
    expect(pickFault([half, after], () => 0.9)).toBe(after)
  })

  it('a rate of 1 applies even when the draw would be 1 or more', () => {
    const always = fault({ rate: 1 })
    expect(pickFault([always], () => 1)).toBe(always)
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
