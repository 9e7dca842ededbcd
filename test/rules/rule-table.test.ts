/**
 * The rule table (src/rules/table.ts) and fault rules' checks (src/rules/faults.ts), without HTTP:
 * what a table holds, lists, removes and clears, how rules of one operation and of every operation
 * take turns, what a use counts, and what a fault rule may be.
 */
import { describe, expect, it } from 'vitest'
import { faultOf, ruleIdOf } from '../helpers/decisions.ts'
import { createRuleTable } from '../../src/rules/table.ts'
import { activeFaultRules, effectOf, faultDecision, faultRuleViolations, statusStanding, type FaultRuleInput } from '../../src/rules/faults.ts'
import type { RequestSubject } from '../../src/rules/pattern.ts'
import { listOperations, releaseDocument } from '../../src/document/reader.ts'
import type { ProblemError } from '../../src/errors.ts'
import { LATEST_VERSION } from '../../spec/versions.ts'
import { refusal } from '../helpers/refusal.ts'
import { MAX_ANSWER_RULE_BYTES, MAX_ANSWER_RULES, MAX_ANSWER_RULES_BYTES } from '../../spec/control-plane/constants.ts'

const document = releaseDocument(LATEST_VERSION)
const context = { document, operations: new Map(listOperations(document).map((entry) => [entry.operationId, entry])), strict: false }
const table = (strict = false) => createRuleTable({ document, randomSeed: () => 77, strict })
const subject = (operationId: string | null, query = '$top=1'): RequestSubject => ({ operationId, body: { query }, headers: {}, user: 'admin@acme.test' })

/** The id of the rule that answered; null for none. */
const answered = ruleIdOf

describe('the answer-rule table', () => {
  it('numbers rules from 1 and answers a copy of what it holds', async () => {
    const { answers } = table()
    const first = answers.add({ operationId: 'queryItems', answer: {} })
    const second = answers.add({ operationId: 'queryItems', answer: {} })
    expect([first.id, second.id]).toEqual([1, 2])
    first.hits = 50
    expect(answers.list().rules.map((r) => r.hits)).toEqual([0, 0])
  })

  it('a rule of one operation answers only that operation; a rule of every operation answers all, and none for a request of no operation', async () => {
    const { answers } = table()
    answers.add({ operationId: 'queryItems', answer: {}, name: 'q' })
    expect(await answered(answers.decide(subject('queryItems')))).toBe(1)
    expect(await answered(answers.decide(subject('saveItems')))).toBeNull()
    expect(await answered(answers.decide(subject(null)))).toBeNull()
    answers.add({ answer: { status: 503 }, name: 'every' })
    expect(await answered(answers.decide(subject('saveItems')))).toBe(2)
    expect(await answered(answers.decide(subject(null)))).toBe(2)
  })

  it('rules of the operation and of every operation take turns in priority order, the newest first between equals', async () => {
    const { answers } = table()
    answers.add({ operationId: 'queryItems', answer: {}, priority: 5 }) // 1
    answers.add({ answer: { status: 503 }, priority: 3 }) // 2
    expect(await answered(answers.decide(subject('queryItems')))).toBe(2)
    answers.add({ operationId: 'queryItems', answer: {}, priority: 1 }) // 3
    expect(await answered(answers.decide(subject('queryItems')))).toBe(3)
    answers.add({ answer: { status: 503 }, priority: 1 }) // 4, newer than 3
    expect(await answered(answers.decide(subject('queryItems')))).toBe(4)
    expect(answers.list().rules.map((r) => r.id)).toEqual([4, 3, 2, 1])
  })

  it('several rules of one operation: the one tried first whose pattern matches', async () => {
    const { answers } = table()
    answers.add({ operationId: 'queryItems', match: { body: { query: 'a' } }, answer: {}, priority: 1 })
    answers.add({ operationId: 'queryItems', answer: {}, priority: 9 })
    expect(await answered(answers.decide(subject('queryItems', 'a')))).toBe(1)
    expect(await answered(answers.decide(subject('queryItems', 'b')))).toBe(2)
  })

  it('a use counts a hit and one of its times; a used-up rule stays listed and answers no more', async () => {
    const { answers } = table()
    answers.add({ operationId: 'queryItems', answer: {}, times: 2 })
    await answers.decide(subject('queryItems'))
    expect(answers.list().rules[0]).toMatchObject({ hits: 1, remaining: 1 })
    await answers.decide(subject('queryItems'))
    expect(answers.list().rules[0]).toMatchObject({ hits: 2, remaining: 0 })
    expect(answers.hasRules()).toBe(false)
    expect(await answered(answers.decide(subject('queryItems')))).toBeNull()
    expect(answers.list().rules).toHaveLength(1)
  })

  it('says whether a request of an operation has a rule to look up: one of its own operation or of every one', () => {
    const { answers } = table()
    answers.add({ operationId: 'saveItems', answer: {} })
    expect([answers.hasRules(), answers.hasRules('saveItems'), answers.hasRules('queryItems'), answers.hasRules(null)]).toEqual([true, true, false, false])
    answers.add({ answer: { status: 503 } })
    expect([answers.hasRules('queryItems'), answers.hasRules(null)]).toEqual([true, true])
    answers.clear()
    expect(answers.hasRules('saveItems')).toBe(false)
  })

  it('a rule without times counts hits and stays live', async () => {
    const { answers } = table()
    answers.add({ operationId: 'queryItems', answer: {} })
    for (let i = 0; i < 3; i++) await answers.decide(subject('queryItems'))
    expect(answers.list().rules[0]).toMatchObject({ hits: 3, remaining: null })
    expect(answers.hasRules()).toBe(true)
  })

  it('a rule that answers moves its scenario, which the list shows, and a clear forgets it', async () => {
    const { answers } = table()
    answers.add({ operationId: 'queryItems', answer: {}, scenario: 'login', whenState: 'expired', priority: 1, name: 'expired' })
    answers.add({ operationId: 'queryItems', answer: {}, scenario: 'login', setState: 'expired', name: 'first' })
    expect(answers.list().scenarios).toEqual({ login: 'Started' })
    expect(await answered(answers.decide(subject('queryItems')))).toBe(2)
    expect(answers.list().scenarios).toEqual({ login: 'expired' })
    expect(await answered(answers.decide(subject('queryItems')))).toBe(1)
    expect(answers.clear()).toBe(2)
    expect(answers.list()).toEqual({ rules: [], scenarios: {} })
    answers.add({ operationId: 'queryItems', answer: {}, scenario: 'login', whenState: 'expired' })
    expect(await answered(answers.decide(subject('queryItems')))).toBeNull()
  })

  it('a rule with no scenario lists none, before and after it answers', async () => {
    const { answers } = table()
    answers.add({ operationId: 'queryItems', answer: {} })
    expect(answers.list().scenarios).toStrictEqual({})
    await answers.decide(subject('queryItems'))
    expect(answers.list().scenarios).toStrictEqual({})
  })

  it('a rule with a scenario but no step to take leaves it where it is', async () => {
    const { answers } = table()
    answers.add({ operationId: 'queryItems', answer: {}, scenario: 'login' })
    await answers.decide(subject('queryItems'))
    expect(answers.list().scenarios).toStrictEqual({ login: 'Started' })
  })

  it('removing one rule of every operation leaves the others of every operation', async () => {
    const { answers } = table()
    answers.add({ answer: { status: 503 }, name: 'a' })
    answers.add({ answer: { status: 502 }, name: 'b' })
    answers.remove(2)
    expect(await answered(answers.decide(subject('saveItems')))).toBe(1)
  })

  it("remove takes one rule out of the list and out of the operation's turn; an unknown id is a 404 naming it", async () => {
    const { answers } = table()
    answers.add({ operationId: 'queryItems', answer: {}, name: 'a' })
    answers.add({ operationId: 'queryItems', answer: {}, name: 'b', priority: 9 })
    answers.add({ answer: { status: 503 }, name: 'every', priority: 9 })
    expect(answers.remove(1).name).toBe('a')
    expect(answers.list().rules.map((r) => r.name)).toEqual(['every', 'b'])
    expect(await answered(answers.decide(subject('queryItems')))).toBe(3)
    answers.remove(3)
    expect(await answered(answers.decide(subject('queryItems')))).toBe(2)
    expect(await answered(answers.decide(subject('saveItems')))).toBeNull()
    const missing = refusal(() => answers.remove(42))
    expect(missing.code).toBe('NOT_FOUND')
    expect(missing.status).toBe(404)
    expect(missing.message).toBe('There is no answer rule 42; GET /__mock/stubs lists the rules.')
  })

  it('removing a live rule makes room under the cap; removing a used-up one does not count it twice', async () => {
    const { answers } = table()
    answers.add({ operationId: 'queryItems', answer: {}, times: 1 })
    await answers.decide(subject('queryItems'))
    answers.remove(1)
    for (let i = 0; i < MAX_ANSWER_RULES; i++) answers.add({ operationId: 'saveItems', answer: {} })
    expect(refusal(() => answers.add({ operationId: 'saveItems', answer: {} })).extra.violations).toEqual([
      {
        pointer: '/body',
        keyword: 'maxRules',
        message: `would be live rule ${MAX_ANSWER_RULES + 1}: a mock holds at most ${MAX_ANSWER_RULES} rules that can still answer; remove some first`,
      },
    ])
    answers.remove(2)
    expect(answers.add({ operationId: 'saveItems', answer: {} }).id).toBe(MAX_ANSWER_RULES + 2)
  })

  it('a clear answers how many rules there were and leaves none to decide', async () => {
    const { answers } = table()
    answers.add({ operationId: 'queryItems', answer: {} })
    answers.add({ answer: { status: 503 } })
    expect(answers.hasRules()).toBe(true)
    expect(answers.clear()).toBe(2)
    expect(answers.hasRules()).toBe(false)
    expect(await answered(answers.decide(subject('queryItems')))).toBeNull()
    // Room again for the largest rules: the sizes were forgotten too.
    const each = MAX_ANSWER_RULE_BYTES - 1024
    for (let i = 0; i < Math.floor(MAX_ANSWER_RULES_BYTES / (each + 400)); i++)
      answers.add({ operationId: 'queryItems', answer: { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'x'.repeat(each) }, offDocument: true })
  })

  it('a rule too large is refused naming its size and the limit', async () => {
    const { answers } = table()
    const problem = refusal(() =>
      answers.add({
        operationId: 'queryItems',
        answer: { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'x'.repeat(MAX_ANSWER_RULE_BYTES) },
        offDocument: true,
      }),
    )
    const [violation] = problem.extra.violations as Array<{ message: string }>
    expect(violation?.message).toMatch(
      new RegExp(`^is \\d+ bytes as JSON, more than the ${MAX_ANSWER_RULE_BYTES} an answer rule may be; answer a large page from the fixture's rows instead$`),
    )
    expect(answers.list().rules).toEqual([])
  })

  it('rules too large together: refused naming the total, and the ids of refused rules are not used up', async () => {
    const { answers } = table()
    const each = MAX_ANSWER_RULE_BYTES - 1024
    const rule = () => ({
      operationId: 'queryItems',
      answer: { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'x'.repeat(each) },
      offDocument: true,
    })
    let added = 0
    let problem: ProblemError | undefined
    for (; added < 100 && problem === undefined; added++) {
      try {
        answers.add(rule())
      } catch (error) {
        problem = error as ProblemError
      }
    }
    const [violation] = problem?.extra.violations as Array<{ message: string }>
    expect(violation?.message).toMatch(
      new RegExp(`^would make the rules held \\d+ bytes as JSON, more than the ${MAX_ANSWER_RULES_BYTES} a mock holds; remove some first$`),
    )
    const held = answers.list().rules
    answers.remove(held[0]?.id as number)
    expect(answers.add({ operationId: 'queryItems', answer: {} }).id).toBe(held.length + 1)
  })

  it('a used-up rule makes room for size, the oldest used-up first, and live rules are never dropped', async () => {
    const { answers } = table()
    const each = MAX_ANSWER_RULE_BYTES - 1024
    const rule = (times?: number) => ({
      operationId: 'queryItems',
      answer: { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'x'.repeat(each) },
      offDocument: true,
      ...(times === undefined ? {} : { times, priority: 1 }),
    })
    const fit = Math.floor(MAX_ANSWER_RULES_BYTES / (each + 400))
    answers.add(rule(1))
    for (let i = 1; i < fit; i++) answers.add(rule())
    expect(refusal(() => answers.add(rule())).extra.violations).toEqual([expect.objectContaining({ keyword: 'maxRulesSize' })])
    await answers.decide(subject('queryItems'))
    answers.add(rule())
    const ids = answers.list().rules.map((r) => r.id)
    expect(ids).not.toContain(1)
    expect(ids).toHaveLength(fit)
  })

  it('a rule of exactly the largest size is taken; a byte more is refused', async () => {
    const rule = (length: number) => ({
      operationId: 'queryItems',
      answer: { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'x'.repeat(length) },
      offDocument: true,
    })
    const probe = table().answers
    const size = Buffer.byteLength(JSON.stringify(probe.add(rule(1_000))))
    const exact = 1_000 + MAX_ANSWER_RULE_BYTES - size
    expect(table().answers.add(rule(exact)).id).toBe(1)
    expect(refusal(() => table().answers.add(rule(exact + 1))).extra.violations).toEqual([
      {
        pointer: '/body',
        keyword: 'maxRuleSize',
        message: `is ${MAX_ANSWER_RULE_BYTES + 1} bytes as JSON, more than the ${MAX_ANSWER_RULE_BYTES} an answer rule may be; answer a large page from the fixture's rows instead`,
      },
    ])
  })

  it('rules of exactly the total a mock holds are taken; a byte more is refused, naming the total it would make', async () => {
    const { answers } = table()
    const rule = (length: number) => ({
      operationId: 'queryItems',
      answer: { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'x'.repeat(length) },
      offDocument: true,
    })
    const sizeOf = (view: unknown) => Buffer.byteLength(JSON.stringify(view))
    let total = 0
    const each = MAX_ANSWER_RULE_BYTES - 2_048
    while (MAX_ANSWER_RULES_BYTES - total > MAX_ANSWER_RULE_BYTES) total += sizeOf(answers.add(rule(each)))
    // The last rule fills what is left exactly (its id has as many digits as the one before).
    const probe = sizeOf(table().answers.add(rule(1_000)))
    const exact = 1_000 + (MAX_ANSWER_RULES_BYTES - total) - probe - (String(answers.list().rules.length + 1).length - 1)
    total += sizeOf(answers.add(rule(exact)))
    expect(total).toBe(MAX_ANSWER_RULES_BYTES)
    const small = { operationId: 'queryItems', answer: {} }
    const problem = refusal(() => answers.add(small))
    const [violation] = problem.extra.violations as Array<{ message: string }>
    const smallSize = sizeOf(table().answers.add(small)) + String(answers.list().rules.length + 1).length - 1
    expect(violation?.message).toBe(
      `would make the rules held ${MAX_ANSWER_RULES_BYTES + smallSize} bytes as JSON, more than the ${MAX_ANSWER_RULES_BYTES} a mock holds; remove some first`,
    )
  })

  it('room for a large rule may take several used-up ones, the oldest first', async () => {
    const { answers } = table()
    const third = Math.floor(MAX_ANSWER_RULE_BYTES / 3)
    const rule = (length: number, times?: number) => ({
      operationId: 'queryItems',
      answer: { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'x'.repeat(length) },
      offDocument: true,
      ...(times === undefined ? {} : { times, priority: 1 }),
    })
    const sizeOf = (view: unknown) => Buffer.byteLength(JSON.stringify(view))
    let bytes = 0
    for (let i = 0; i < 2; i++) {
      bytes += sizeOf(answers.add(rule(third, 1)))
      await answers.decide(subject('queryItems'))
    }
    const each = MAX_ANSWER_RULE_BYTES - 2_048
    while (MAX_ANSWER_RULES_BYTES - bytes - Math.floor(third / 2) > MAX_ANSWER_RULE_BYTES - 4_096) bytes += sizeOf(answers.add(rule(each)))
    // Leave about half a third free: a rule of two thirds then needs both used-up rules gone.
    bytes += sizeOf(answers.add(rule(Math.max(0, MAX_ANSWER_RULES_BYTES - bytes - Math.floor(third / 2) - 400))))
    expect(MAX_ANSWER_RULES_BYTES - bytes).toBeLessThan(third)
    const big = answers.add(rule(2 * third))
    const ids = answers.list().rules.map((r) => r.id)
    expect(ids).toContain(big.id)
    expect(ids).not.toContain(1)
    expect(ids).not.toContain(2)
  })

  it('past the count, used-up rules go oldest first and live rules stay', async () => {
    const { answers } = table()
    answers.add({ operationId: 'queryItems', answer: {}, times: 1, priority: 1, name: 'used-1' })
    await answers.decide(subject('queryItems'))
    answers.add({ operationId: 'queryItems', answer: {}, times: 1, priority: 1, name: 'used-2' })
    await answers.decide(subject('queryItems'))
    for (let i = 0; i < MAX_ANSWER_RULES - 1; i++) answers.add({ operationId: 'saveItems', answer: {} })
    expect(answers.list().rules).toHaveLength(MAX_ANSWER_RULES + 1 - 1)
    answers.add({ operationId: 'saveItems', answer: {}, name: 'live-last' })
    const names = answers.list().rules.map((r) => r.name)
    expect(names).toHaveLength(MAX_ANSWER_RULES)
    expect(names).not.toContain('used-1')
    expect(names).not.toContain('used-2')
    expect(names).toContain('live-last')
  })

  it('strict mode refuses an off-document rule when it is added', async () => {
    const { answers } = table(true)
    expect(refusal(() => answers.add({ operationId: 'queryItems', answer: { status: 418 }, offDocument: true })).code).toBe('STRICT_MODE')
    expect(answers.list().rules).toEqual([])
  })
})

describe('the fault-rule table', () => {
  it('a rule of one operation applies to it alone; one of every operation (*) to all', async () => {
    const { faults } = table()
    faults.set({ rules: [{ operationId: 'saveItems', status: 503 }] })
    expect(faultOf(faults.decide('queryItems'))).toBeNull()
    expect(faultOf(faults.decide('saveItems'))).toMatchObject({ ruleId: 1, action: { kind: 'status', status: 503, standing: 'gateway' } })
    faults.set({ rules: [{ operationId: '*', drop: true }] })
    expect(faultOf(faults.decide('queryItems'))).toMatchObject({ ruleId: 1, action: { kind: 'drop' } })
    expect(faultOf(faults.decide('signIn'))).toMatchObject({ action: { kind: 'drop' } })
  })

  it('an unknown operation name decides nothing', async () => {
    const { faults } = table()
    faults.set({ rules: [{ operationId: 'saveItems', status: 503 }] })
    expect(faultOf(faults.decide('noSuchOperation'))).toBeNull()
  })

  it('lists the seed given, or one drawn; the list is a copy', async () => {
    const { faults } = table()
    expect(faults.set({ rules: [{ operationId: 'saveItems', latencyMs: 5 }], seed: 9 }).seed).toBe(9)
    expect(faults.set({ rules: [{ operationId: 'saveItems', latencyMs: 5 }] }).seed).toBe(77)
    const listed = faults.list()
    listed.rules[0]!.applied = 40
    expect(faults.list().rules[0]?.applied).toBe(0)
    expect(faults.list()).toEqual({ seed: 77, rules: [{ id: 1, operationId: 'saveItems', latencyMs: 5, rate: 1, remaining: null, applied: 0 }] })
  })

  it('a rule used up leaves the list, and the next rule of its operation takes over', async () => {
    const { faults } = table()
    faults.set({
      rules: [
        { operationId: 'saveItems', status: 503, times: 1 },
        { operationId: 'saveItems', latencyMs: 10 },
      ],
    })
    expect(faultOf(faults.decide('saveItems'))?.ruleId).toBe(1)
    expect(faults.list().rules.map((r) => r.id)).toEqual([2])
    expect(faultOf(faults.decide('saveItems'))).toEqual({ ruleId: 2, latencyMs: 10, action: null })
    expect(faults.list().rules[0]?.applied).toBe(1)
  })

  it('a rule without times stays unlimited however often it applies', async () => {
    const { faults } = table()
    faults.set({ rules: [{ operationId: 'saveItems', drop: true }] })
    faultOf(faults.decide('saveItems'))
    faultOf(faults.decide('saveItems'))
    expect(faults.list().rules[0]).toMatchObject({ remaining: null, applied: 2 })
  })

  it('a rule with uses left counts them down and stays', async () => {
    const { faults } = table()
    faults.set({ rules: [{ operationId: 'saveItems', drop: true, times: 3 }] })
    faultOf(faults.decide('saveItems'))
    expect(faults.list().rules[0]).toMatchObject({ remaining: 2, applied: 1 })
    expect(faults.hasRules()).toBe(true)
  })

  it('a clear answers how many rules there were, and then nothing applies', async () => {
    const { faults } = table()
    faults.set({
      rules: [
        { operationId: 'saveItems', drop: true },
        { operationId: '*', latencyMs: 1 },
      ],
    })
    expect(faults.hasRules()).toBe(true)
    expect(faults.clear()).toBe(2)
    expect(faults.hasRules()).toBe(false)
    expect(faultOf(faults.decide('saveItems'))).toBeNull()
    expect(faults.list().rules).toEqual([])
  })

  it('a set that is refused leaves the rules as they were', async () => {
    const { faults } = table()
    faults.set({ rules: [{ operationId: 'saveItems', drop: true }] })
    const problem = refusal(() => faults.set({ rules: [{ operationId: 'nope', drop: true }] }))
    expect(problem.code).toBe('VALIDATION')
    expect(faultOf(faults.decide('saveItems'))).toMatchObject({ action: { kind: 'drop' } })
  })

  it("a documented status stands as the installation's, another as off the document", async () => {
    const { faults } = table()
    faults.set({
      rules: [
        { operationId: 'saveItems', status: 409 },
        { operationId: 'queryItems', status: 418, offDocument: true },
      ],
    })
    expect(faultOf(faults.decide('saveItems'))).toMatchObject({ action: { standing: 'documented' } })
    expect(faultOf(faults.decide('queryItems'))).toMatchObject({ action: { standing: 'offDocument' } })
  })

  it('strict mode refuses an off-document status with offDocument as STRICT_MODE, and nothing is set', async () => {
    const { faults } = table(true)
    const problem = refusal(() => faults.set({ rules: [{ operationId: 'queryItems', status: 418, offDocument: true }] }))
    expect(problem.code).toBe('STRICT_MODE')
    expect(problem.violations.map((v) => v.pointer)).toEqual(['/body/rules/0/offDocument', '/body/rules/0/status'])
    expect(faults.hasRules()).toBe(false)
    // What else is wrong comes first, as VALIDATION.
    expect(
      refusal(() =>
        faults.set({
          rules: [
            { operationId: 'queryItems', status: 418, offDocument: true },
            { operationId: 'nope', drop: true },
          ],
        }),
      ).code,
    ).toBe('VALIDATION')
  })
})

describe('fault rules checked', () => {
  const check = (rule: Partial<FaultRuleInput>, strict = false) =>
    faultRuleViolations({ operationId: 'saveItems', ...rule } as FaultRuleInput, 2, { ...context, strict })

  it('an operation the release lacks names the ones it has, sorted, and *', async () => {
    const [violation] = check({ operationId: 'nope', drop: true }).violations
    expect(violation?.pointer).toBe('/body/rules/2/operationId')
    expect(violation?.keyword).toBe('operationId')
    expect(violation?.message).toMatch(
      /^is not an operation of this release; use \* or one of deleteItems, downloadAttachment, .*saveItems, sendEmail, signIn$/,
    )
  })

  it('two effects: the second is named, with the first', async () => {
    expect(check({ status: 503, drop: true }).violations).toEqual([
      { pointer: '/body/rules/2/drop', keyword: 'oneEffect', message: 'cannot go with status: a rule has at most one of status, drop and commitThenDrop' },
    ])
    expect(check({ drop: true, commitThenDrop: true }).violations[0]?.pointer).toBe('/body/rules/2/commitThenDrop')
  })

  it('no effect and no latency does nothing; a latency alone is an effect; drop: false is none', async () => {
    expect(check({}).violations).toEqual([
      { pointer: '/body/rules/2', keyword: 'effect', message: 'does nothing: give latencyMs, status, drop or commitThenDrop' },
    ])
    expect(check({ latencyMs: 0, drop: false }).violations.map((v) => v.keyword)).toEqual(['effect'])
    expect(check({ latencyMs: 5 }).violations).toEqual([])
    expect(check({ commitThenDrop: true }).violations).toEqual([])
  })

  it('headers go only with a status, and are held to HTTP with Content-Type refused', async () => {
    expect(check({ drop: true, headers: { 'Retry-After': '1' } }).violations).toEqual([
      {
        pointer: '/body/rules/2/headers',
        keyword: 'headersWithStatus',
        message:
          'go only with status: they are headers of the answer a status fault gives (drop and commitThenDrop answer nothing, latencyMs leaves the answer as it is)',
      },
    ])
    expect(check({ status: 503, headers: { 'Retry-After': '1' } }).violations).toEqual([])
    expect(check({ status: 503, headers: { 'Content-Type': 'text/plain' } }).violations).toEqual([
      expect.objectContaining({ pointer: '/body/rules/2/headers/Content-Type', keyword: 'faultHeader' }),
    ])
  })

  it('an operation the release lacks, with a status: only the operation is said', async () => {
    expect(check({ operationId: 'nope', status: 418 }).violations.map((v) => v.keyword)).toEqual(['operationId'])
  })

  it('every operation (*) takes gateway statuses only', async () => {
    const [violation] = check({ operationId: '*', status: 418 }).violations
    expect(violation).toEqual({
      pointer: '/body/rules/2/status',
      keyword: 'everyOperation',
      message:
        '418 is not a gateway status: a fault for every operation (*) takes a gateway status (500, 502, 503, 504), drop, commitThenDrop and latencyMs only; name the operation that answers 418',
    })
    expect(check({ operationId: '*', status: 504 }).violations).toEqual([])
  })

  it("a status off the operation's document needs offDocument; strict mode then refuses it apart", async () => {
    const [violation] = check({ operationId: 'queryItems', status: 418 }).violations
    expect(violation?.keyword).toBe('offDocument')
    expect(violation?.message).toMatch(
      /^418 is not a status queryItems answers with \(the document lists 200, .*; a gateway status, 500, 502, 503, 504, goes anywhere\); add "offDocument": true to answer it anyway$/,
    )
    expect(check({ operationId: 'queryItems', status: 418, offDocument: true })).toEqual({ violations: [], strict: [] })
    const strict = check({ operationId: 'queryItems', status: 418, offDocument: true }, true)
    expect(strict.violations).toEqual([])
    expect(strict.strict.map((v) => v.pointer)).toEqual(['/body/rules/2/offDocument', '/body/rules/2/status'])
    expect(check({ operationId: 'saveItems', status: 409 }, true)).toEqual({ violations: [], strict: [] })
  })
})

describe('fault rules held', () => {
  it('numbered in order with their defaults, copies of the members the schema knows', async () => {
    const input: FaultRuleInput[] = [
      { operationId: 'saveItems', status: 503, headers: { 'Retry-After': '1' }, latencyMs: 3, times: 2, rate: 0.5 },
      { operationId: '*', drop: true, offDocument: true },
      { operationId: 'queryItems', commitThenDrop: true },
    ]
    const rules = activeFaultRules(input)
    // Strictly: a member the rule did not give is not there at all, not there as undefined.
    expect(rules).toStrictEqual([
      { id: 1, operationId: 'saveItems', status: 503, headers: { 'Retry-After': '1' }, latencyMs: 3, times: 2, rate: 0.5, remaining: 2, applied: 0 },
      { id: 2, operationId: '*', drop: true, offDocument: true, rate: 1, remaining: null, applied: 0 },
      { id: 3, operationId: 'queryItems', commitThenDrop: true, rate: 1, remaining: null, applied: 0 },
    ])
    input[0]!.headers!['Retry-After'] = '9'
    expect(rules[0]?.headers).toEqual({ 'Retry-After': '1' })
  })

  it('a decision says what the rule does, header names in lower case', async () => {
    const [status, drop, cut, slow] = activeFaultRules([
      { operationId: 'saveItems', status: 503, headers: { 'Retry-After': '1' }, latencyMs: 3 },
      { operationId: 'saveItems', drop: true },
      { operationId: 'saveItems', commitThenDrop: true },
      { operationId: 'saveItems', latencyMs: 9 },
    ])
    expect(faultDecision(status!, 'gateway')).toEqual({
      ruleId: 1,
      latencyMs: 3,
      action: { kind: 'status', status: 503, headers: { 'retry-after': '1' }, standing: 'gateway' },
    })
    expect(faultDecision(drop!, 'documented')).toEqual({ ruleId: 2, latencyMs: 0, action: { kind: 'drop' } })
    expect(faultDecision(cut!, 'documented').action).toEqual({ kind: 'commitThenDrop' })
    expect(faultDecision(slow!, 'documented')).toEqual({ ruleId: 4, latencyMs: 9, action: null })
    expect([status, drop, cut, slow].map((rule) => effectOf(faultDecision(rule!, 'documented')))).toEqual(['status', 'drop', 'commitThenDrop', 'latency'])
  })

  it('where a status stands: a gateway status anywhere, a listed one documented, others off, and none listed for every operation', async () => {
    const entry = context.operations.get('saveItems')
    expect(statusStanding(document, entry, 503)).toBe('gateway')
    expect(statusStanding(document, entry, 409)).toBe('documented')
    expect(statusStanding(document, entry, 418)).toBe('offDocument')
    expect(statusStanding(document, undefined, 409)).toBe('offDocument')
    expect(statusStanding(document, undefined, 500)).toBe('gateway')
  })
})
