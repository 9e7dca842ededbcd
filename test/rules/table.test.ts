/**
 * The rule table's bounds, without HTTP (src/rules/table.ts): the cap counts live rules, used-up
 * rules stay listed until room is needed (the oldest go first), and a rule's size and all rules'
 * size are bounded when a rule is added.
 */
import { describe, expect, test } from 'vitest'
import { ruleIdOf } from '../helpers/decisions.ts'
import { createRuleTable } from '../../src/rules/table.ts'
import { releaseDocument } from '../../src/document/reader.ts'
import { LATEST_VERSION } from '../../spec/versions.ts'
import { refusal } from '../helpers/refusal.ts'
import { MAX_ANSWER_RULE_BYTES, MAX_ANSWER_RULES, MAX_ANSWER_RULES_BYTES } from '../../spec/control-plane/constants.ts'

const DOCUMENT = releaseDocument(LATEST_VERSION)
const answers = () => createRuleTable({ document: DOCUMENT, randomSeed: () => 1 }).answers
const subject = (operationId: string) => ({ operationId, body: { query: '$top=1' }, headers: {}, user: 'admin@acme.test' })
/** A rule whose JSON is about `size` bytes: an off-document text answer. */
const sized = (size: number, times?: number) => ({
  operationId: 'queryItems',
  answer: { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'x'.repeat(size) },
  offDocument: true,
  ...(times === undefined ? {} : { times, priority: 1 }),
})

describe('the answer rules held', () => {
  test('the cap counts rules that can still answer; used-up ones stay listed, the oldest dropped past the cap', async () => {
    const table = answers()
    table.add({ operationId: 'queryItems', answer: {}, times: 1, name: 'used' })
    expect(await ruleIdOf(table.decide(subject('queryItems')))).not.toBeNull()
    for (let i = 1; i < MAX_ANSWER_RULES; i++) table.add({ operationId: 'saveItems', answer: {} })
    // 499 live and one used up: one more live rule fits, and the used-up one makes room.
    table.add({ operationId: 'saveItems', answer: {}, name: 'last' })
    const listed = table.list().rules
    expect(listed).toHaveLength(MAX_ANSWER_RULES)
    expect(listed.map((rule) => rule.name)).not.toContain('used')
    expect(listed.map((rule) => rule.name)).toContain('last')
    const full = refusal(() => table.add({ operationId: 'saveItems', answer: {} }))
    expect(full.status).toBe(400)
    expect(full.message).toMatch(new RegExp(`at most ${MAX_ANSWER_RULES} rules that can still answer`))
  })

  test('keeps a used-up rule listed beside live ones while there is room', async () => {
    const table = answers()
    table.add({ operationId: 'queryItems', answer: {}, times: 1, name: 'once' })
    table.add({ operationId: 'saveItems', answer: {}, name: 'always' })
    await table.decide(subject('queryItems'))
    expect(table.list().rules.map((rule) => [rule.name, rule.remaining])).toEqual([
      ['always', null],
      ['once', 0],
    ])
    expect(table.hasRules()).toBe(true)
  })

  test('refuses a rule larger than a rule may be, and rules larger together than a mock holds', async () => {
    const table = answers()
    const large = refusal(() => table.add(sized(MAX_ANSWER_RULE_BYTES)))
    expect(large.extra.violations).toEqual([expect.objectContaining({ pointer: '/body', keyword: 'maxRuleSize' })])
    const each = MAX_ANSWER_RULE_BYTES - 1024
    const fit = Math.floor(MAX_ANSWER_RULES_BYTES / (each + 400))
    for (let i = 0; i < fit; i++) table.add(sized(each, i === 0 ? 1 : undefined))
    // The first rule (tried first: priority 1) is used up: it makes room for one more.
    expect(await ruleIdOf(table.decide(subject('queryItems')))).not.toBeNull()
    table.add(sized(each))
    const total = refusal(() => table.add(sized(each)))
    expect(total.extra.violations).toEqual([expect.objectContaining({ pointer: '/body', keyword: 'maxRulesSize' })])
    expect(table.clear()).toBe(fit)
    table.add(sized(each))
  })
})

describe('the list as text (GET /__mock/stubs)', () => {
  test('is the JSON of the list, with the counts of each rule as they were when it was asked', async () => {
    const table = answers()
    table.add({ operationId: 'queryItems', answer: {}, times: 2, name: 'twice', scenario: 'login', setState: 'in' })
    table.add({
      operationId: 'saveItems',
      answer: { patch: { LockedItems: 1 } },
      name: 'patch',
      match: { body: { Rows: [{ Row: { Customer: { $regex: '^A' } } }] } },
    })
    await table.decide(subject('queryItems'))
    const asked = table.list()
    const text = table.listText()
    // Counted after it was asked: the text still shows the counts of then.
    await table.decide(subject('queryItems'))
    expect(JSON.parse(new TextDecoder().decode(await text))).toEqual(asked)
    expect(new TextDecoder().decode(await text)).toBe(JSON.stringify(asked))
    expect(new TextDecoder().decode(await table.listText())).toBe(JSON.stringify(table.list()))
    expect(JSON.parse(new TextDecoder().decode(await answers().listText()))).toEqual({ rules: [], scenarios: {} })
  })

  test('a table of 16 MB is written over many turns of the event loop, not in one', async () => {
    const table = answers()
    const each = MAX_ANSWER_RULE_BYTES - 1024
    for (let i = 0; i < Math.floor(MAX_ANSWER_RULES_BYTES / (each + 400)); i++) table.add(sized(each))
    let turns = 0
    let writing = true
    const count = (): void => {
      turns += 1
      if (writing) setImmediate(count)
    }
    setImmediate(count)
    const text = await table.listText()
    writing = false
    expect(text.length).toBeGreaterThan(MAX_ANSWER_RULES_BYTES * 0.9)
    // Turns of the event loop while it was written: it yields (every 64 KB, at most 2 ms apart). How
    // many depends on the machine's speed; written in one piece there would be none.
    expect(turns).toBeGreaterThan(2)
    expect(new TextDecoder().decode(text)).toBe(JSON.stringify(table.list()))
  })
})

describe('a rule added in slices (POST /__mock/stubs)', () => {
  const wide = (n: number) => ({
    operationId: 'queryItems',
    name: `wide ${n}`,
    answer: {},
    match: { body: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`m${i}`, { $regex: `a${'(?:)'.repeat(100)}${n}` }])) },
  })

  test('compiles over several turns of the event loop, and holds the same rule add() holds', async () => {
    const table = answers()
    let turns = 0
    let compiling = true
    const count = (): void => {
      turns += 1
      if (compiling) setImmediate(count)
    }
    setImmediate(count)
    const sliced = await table.addSliced(wide(1))
    compiling = false
    expect(turns).toBeGreaterThan(1)
    const whole = answers().add(wide(1))
    expect(sliced).toEqual(whole)
    expect(table.list().rules).toEqual([sliced])
  })

  test('two compiled side by side are numbered in the order they are held, and each answers its own requests', async () => {
    const table = answers()
    const [a, b] = await Promise.all([table.addSliced(wide(1)), table.addSliced({ ...wide(2), priority: 1 })])
    expect([a.id, b.id].sort()).toEqual([1, 2])
    expect(new Set(table.list().rules.map((rule) => rule.id))).toEqual(new Set([1, 2]))
    const decided = table.decide({
      operationId: 'queryItems',
      body: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`m${i}`, 'a2'])),
      headers: {},
      user: null,
    })
    expect(await ruleIdOf(decided)).toBe(b.id)
  })

  test('the cap is counted again when the rule is held: one of two compiled side by side for the last place is refused', async () => {
    const table = answers()
    for (let i = 1; i < MAX_ANSWER_RULES; i++) table.add({ operationId: 'saveItems', answer: {} })
    const both = await Promise.allSettled([table.addSliced(wide(1)), table.addSliced(wide(2))])
    expect(both.map((settled) => settled.status).sort()).toEqual(['fulfilled', 'rejected'])
    const refused = both.find((settled) => settled.status === 'rejected') as PromiseRejectedResult
    expect(refused.reason.extra.violations).toEqual([expect.objectContaining({ keyword: 'maxRules' })])
    expect(table.list().rules).toHaveLength(MAX_ANSWER_RULES)
  })

  test('refuses what add() refuses, with the same problem', async () => {
    const bad = { operationId: 'queryItems', answer: {}, match: { body: { q: { $regex: '(a' } } } }
    const expected = refusal(() => answers().add(bad))
    await expect(answers().addSliced(bad)).rejects.toMatchObject({ status: expected.status, extra: expected.extra })
  })
})
