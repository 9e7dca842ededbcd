/**
 * Which rule takes a request (src/rules/decide.ts) and scenario states (src/rules/scenarios.ts), as
 * pure functions over held rules: used-up rules, rates, scenario states, patterns, the order of two
 * lists, and a match that finishes later (in slices).
 */
import { describe, expect, it } from 'vitest'
import { inTrialOrder, pickAnswer, pickFault } from '../../src/rules/decide.ts'
import { createScenarios, STARTED } from '../../src/rules/scenarios.ts'
import { holdAnswerRule, triedBefore, type AnswerRuleInput, type HeldRule } from '../../src/rules/answers.ts'
import type { ActiveFaultRule } from '../../src/rules/faults.ts'
import type { MatchResult, RequestSubject } from '../../src/rules/pattern.ts'
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

describe('pickAnswer', () => {
  it('the first open rule whose pattern matches; a rule that asks for another body is passed over', () => {
    const other = held({ match: { body: { query: 'other' } }, name: 'other' })
    const mine = held({ match: { body: { query: 'mine' } }, name: 'mine' })
    expect(pickAnswer([other, mine], started, subject('mine'))).toBe(mine)
    expect(pickAnswer([other, mine], started, subject('neither'))).toBeNull()
  })

  it('a rule that asks only for the operation takes the request whatever its body, and matches nothing more', () => {
    const any = held({})
    expect(pickAnswer([any], started, subject('anything'))).toBe(any)
    any.pattern = { ...any.pattern, matchSliced: () => { throw new Error('an operation-only rule is matched') } }
    expect(pickAnswer([any], started, subject('anything'))).toBe(any)
  })

  it('a decision asks the pattern for a yes or no, not for a report of differences', () => {
    const rule = held({ match: { body: { query: 'x' } } })
    const asked: unknown[] = []
    const match = rule.pattern.matchSliced
    rule.pattern = { ...rule.pattern, matchSliced: (s, options) => (asked.push(options), match(s, options)) }
    expect(pickAnswer([rule], started, subject('x'))).toBe(rule)
    expect(asked).toEqual([{ report: false }])
  })

  it('a used-up rule beside a live one: the live one answers', () => {
    const used = held({ remaining: 0, name: 'used' })
    const live = held({ name: 'live' })
    expect(pickAnswer([used, live], started, subject('x'))).toBe(live)
    expect(pickAnswer([used], started, subject('x'))).toBeNull()
  })

  it('a rule with uses left answers', () => {
    const once = held({ remaining: 1 })
    expect(pickAnswer([once], started, subject('x'))).toBe(once)
  })

  it('a rule waiting for a scenario state answers only in that state, reading its own scenario', () => {
    const waiting = held({ scenario: 'login', whenState: 'expired' })
    const fallback = held({})
    const asked: string[] = []
    const stateOf = (state: string) => (scenario: string) => {
      asked.push(scenario)
      return state
    }
    expect(pickAnswer([waiting, fallback], stateOf(STARTED), subject('x'))).toBe(fallback)
    expect(pickAnswer([waiting, fallback], stateOf('expired'), subject('x'))).toBe(waiting)
    expect(asked).toContain('login')
  })

  it('a rule that waits for no state answers in any state', () => {
    const plain = held({ scenario: 'login' })
    expect(pickAnswer([plain], () => 'anything', subject('x'))).toBe(plain)
  })

  it('a used-up rule waiting for the state it is in still does not answer', () => {
    const used = held({ scenario: 's', whenState: STARTED, remaining: 0 })
    expect(pickAnswer([used], started, subject('x'))).toBeNull()
  })

  describe('a match that finishes later (a large request, matched in slices)', () => {
    const later = (matched: boolean, before?: () => void): HeldRule => {
      const rule = held({ match: { body: { query: 'x' } } })
      const result: MatchResult = { matched, distance: matched ? 0 : 1, differences: [] }
      rule.pattern = { ...rule.pattern, operationOnly: false, matchSliced: () => Promise.resolve().then(() => (before?.(), result)) }
      return rule
    }

    it('answers a promise of the rule when it matched', async () => {
      const rule = later(true)
      const picked = pickAnswer([rule], started, subject('x'))
      expect(picked).toBeInstanceOf(Promise)
      expect(await picked).toBe(rule)
    })

    it('goes on to the next rule when it did not match', async () => {
      const miss = later(false)
      const next = held({})
      expect(await pickAnswer([miss, next], started, subject('x'))).toBe(next)
      expect(await pickAnswer([miss], started, subject('x'))).toBeNull()
    })

    it('a rule used up while its match waited is passed over', async () => {
      let rule: HeldRule | undefined
      rule = later(true, () => {
        if (rule) rule.view.remaining = 0
      })
      const next = held({ name: 'next' })
      expect(await pickAnswer([rule, next], started, subject('x'))).toBe(next)
    })

    it('a rule whose scenario moved while its match waited is passed over', async () => {
      let state = 'ready'
      const rule = later(true, () => (state = 'moved'))
      rule.view.scenario = 's'
      rule.view.whenState = 'ready'
      expect(await pickAnswer([rule], () => state, subject('x'))).toBeNull()
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
