/**
 * What makes an answer rule acceptable and what the table holds of it (src/rules/answers.ts), and
 * strict mode's refusal (src/rules/strict.ts), without HTTP: each refusal names the member it is
 * about, and an accepted rule's view and decision say what the rule will do.
 */
import { describe, expect, it } from 'vitest'
import { copyView, holdAnswerRule, triedBefore, type AnswerRuleInput, type HeldRule } from '../../src/rules/answers.ts'
import { strictProblem, strictViolation } from '../../src/rules/strict.ts'
import { listOperations, releaseDocument } from '../../src/document/reader.ts'
import type { ProblemError } from '../../src/errors.ts'
import { LATEST_VERSION } from '../../spec/versions.ts'
import { refusal as refusalOf } from '../helpers/refusal.ts'
import { DEFAULT_ANSWER_PRIORITY } from '../../spec/control-plane/constants.ts'

const document = releaseDocument(LATEST_VERSION)
const operations = new Map(listOperations(document).map((entry) => [entry.operationId, entry]))
const context = { document, operations, strict: false }
const strict = { ...context, strict: true }

function hold(input: unknown, id = 7, ctx = context): HeldRule {
  return holdAnswerRule(input as AnswerRuleInput, id, ctx)
}

function refusal(input: unknown, ctx = context): ProblemError {
  return refusalOf(() => hold(input, 7, ctx))
}

const violationsOf = (problem: ProblemError) => (problem.extra as { violations: Array<{ pointer: string; keyword: string; message: string }> }).violations

function nested(depth: number): unknown {
  let value: unknown = 1
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

describe('an answer rule accepted', () => {
  it('lists what it was given, its id, the default priority, no hits and no limit of uses', () => {
    const held = hold({ operationId: 'queryItems', answer: {} })
    expect(held.view).toEqual({
      id: 7,
      operationId: 'queryItems',
      answer: {},
      priority: DEFAULT_ANSWER_PRIORITY,
      hits: 0,
      remaining: null,
      offDocument: false,
      violations: [],
    })
    expect(held.decision).toEqual({ ruleId: 7, delayMs: 0, offDocument: [], gateway: false, kind: 'own' })
    expect(held.pattern.operationOnly).toBe(true)
  })

  it('keeps its delay, uses, priority and scenario steps, and a body pattern is more than the operation', () => {
    const held = hold({
      operationId: 'queryItems',
      match: { body: { query: 'x' } },
      answer: {},
      delayMs: 30,
      times: 2,
      priority: 1,
      scenario: 's',
      whenState: 'a',
      setState: 'b',
    })
    expect(held.view).toMatchObject({ priority: 1, remaining: 2, delayMs: 30, times: 2, scenario: 's', whenState: 'a', setState: 'b' })
    expect(held.decision).toMatchObject({ kind: 'own', delayMs: 30 })
    expect(held.pattern.operationOnly).toBe(false)
  })

  it("a whole answer is prepared with its status, and a gateway status is marked as the infrastructure's", () => {
    const held = hold({ operationId: 'queryItems', answer: { status: 503 }, delayMs: 5 })
    expect(held.decision).toEqual({ ruleId: 7, delayMs: 5, offDocument: [], gateway: true, kind: 'whole', answer: { status: 503, headers: {}, payload: null } })
    expect(
      hold({ operationId: 'queryItems', answer: { status: 401, body: { title: 'Unauthorized', status: 401, detail: 'expired' } } }).decision,
    ).toMatchObject({ kind: 'whole', gateway: false, answer: { status: 401 } })
  })

  it('a gateway status needs no operation and no offDocument: any operation may get one', () => {
    const held = hold({ answer: { status: 502 } })
    expect(held.view.operationId).toBeUndefined()
    expect(held.decision).toMatchObject({ kind: 'whole', gateway: true })
  })

  it('a patch is kept as the decision, with the time to wait', () => {
    const held = hold({ operationId: 'saveItems', answer: { patch: { LockedItems: 0 } }, delayMs: 12 })
    expect(held.decision).toEqual({ ruleId: 7, delayMs: 12, offDocument: [], gateway: false, kind: 'patch', patch: { LockedItems: 0 } })
  })

  it('an answer off the document is held with offDocument, its reasons listed and carried by the decision', () => {
    const held = hold({ operationId: 'queryItems', answer: { status: 418 }, offDocument: true })
    expect(held.view.offDocument).toBe(true)
    expect(held.view.violations).toEqual([expect.objectContaining({ pointer: '/body/answer/status', keyword: 'offDocument' })])
    expect(held.decision.offDocument).toEqual(held.view.violations)
    expect(held.decision).toMatchObject({ kind: 'whole', gateway: false, answer: { status: 418 } })
  })

  it('an off-document patch is held with its reasons when offDocument is said', () => {
    const held = hold({ operationId: 'saveItems', answer: { patch: { Unknown: 1 } }, offDocument: true })
    expect(held.decision.offDocument.map((v) => v.pointer)).toContain('/body/answer/patch/Unknown')
    expect(held.view.violations).toEqual(held.decision.offDocument)
  })

  it("the operation's own answer (`answer: {}`) for every operation needs neither an operation nor offDocument", () => {
    const held = hold({ answer: {}, delayMs: 40 })
    expect(held.view).toMatchObject({ offDocument: false, violations: [] })
    expect(held.decision).toMatchObject({ kind: 'own', delayMs: 40, gateway: false })
  })

  it('every operation, off the document: no operation to check against', () => {
    const held = hold({ answer: { status: 418 }, offDocument: true })
    expect(held.view).toMatchObject({ offDocument: true, violations: [] })
    expect(held.decision).toMatchObject({ kind: 'whole', answer: { status: 418 } })
  })

  it('the view is a copy: changing the input afterwards changes nothing held, and offDocument is listed once', () => {
    const input = { operationId: 'queryItems', match: { body: { query: 'x' } }, answer: {}, offDocument: false }
    const held = hold(input)
    input.match.body.query = 'changed'
    expect(held.view.match).toEqual({ body: { query: 'x' } })
    const copy = copyView(held.view)
    expect(copy).toEqual(held.view)
    copy.hits = 99
    ;(copy.match as { body: { query: string } }).body.query = 'other'
    expect(held.view.hits).toBe(0)
    expect(held.view.match).toEqual({ body: { query: 'x' } })
  })
})

describe('an answer rule refused', () => {
  it('an operation the release does not have: the operations it has are named, sorted', () => {
    const [violation] = violationsOf(refusal({ operationId: 'nope', answer: {} }))
    expect(violation).toMatchObject({ pointer: '/body/operationId', keyword: 'operationId' })
    expect(violation?.message).toContain('is not an operation of this release; use one of deleteItems, downloadAttachment,')
    const named = /use one of (.*)$/.exec(violation?.message ?? '')?.[1]?.split(', ') ?? []
    expect(named).toEqual([...named].sort())
    expect(named).toContain('queryItems')
  })

  it('`*` as the operation is said plainly, not as a regular expression', () => {
    const problem = refusal({ operationId: '*', answer: {} })
    expect(problem.code).toBe('VALIDATION')
    expect(violationsOf(problem)).toEqual([
      { pointer: '/body/operationId', keyword: 'everyOperation', message: expect.stringContaining('a rule for every operation leaves operationId out') },
    ])
  })

  it('`*` beside another schema violation lists both', () => {
    const violations = violationsOf(refusal({ operationId: '*', answer: {}, bogus: 1 }))
    expect(violations.map((v) => v.keyword)).toEqual(['everyOperation', 'additionalProperties'])
  })

  it("another operation name off the schema is the schema's violation, not the `*` one", () => {
    const violations = violationsOf(refusal({ operationId: 'has space', answer: {} }))
    expect(violations.map((v) => v.keyword)).not.toContain('everyOperation')
    expect(violations.map((v) => v.pointer)).toContain('/body/operationId')
  })

  it('a member the schema does not know', () => {
    expect(violationsOf(refusal({ operationId: 'queryItems', answer: {}, bogus: 1 }))).toEqual([
      expect.objectContaining({ pointer: '/body/bogus', keyword: 'additionalProperties' }),
    ])
  })

  it('an answer that is not a gateway status, on every operation, without offDocument: the operation is required', () => {
    const [violation] = violationsOf(refusal({ answer: { status: 418 } }))
    expect(violation).toMatchObject({ pointer: '/body/operationId', keyword: 'required' })
    expect(violation?.message).toContain('is required: an answer is checked against the operation it answers')
    // A patch too needs its operation's answer to be patched.
    expect(violationsOf(refusal({ answer: { patch: { a: 1 } } })).map((v) => v.keyword)).toContain('required')
  })

  it('a status the operation does not document, without offDocument', () => {
    const problem = refusal({ operationId: 'queryItems', answer: { status: 418 } })
    expect(problem.code).toBe('VALIDATION')
    expect(violationsOf(problem)).toEqual([expect.objectContaining({ pointer: '/body/answer/status', keyword: 'offDocument' })])
  })

  it("a patch beside a whole answer's members names them", () => {
    const [first] = violationsOf(refusal({ operationId: 'queryItems', answer: { patch: {}, status: 200, body: {} } }))
    expect(first).toEqual({
      pointer: '/body/answer/patch',
      keyword: 'oneAnswer',
      message: 'cannot go with status, body: an answer is either whole (status, headers, body) or a patch',
    })
  })

  it('a patch with headers alone is refused too', () => {
    expect(violationsOf(refusal({ operationId: 'queryItems', answer: { patch: {}, headers: { 'Retry-After': '1' } }, offDocument: true }))[0]).toMatchObject({
      keyword: 'oneAnswer',
      message: expect.stringContaining('cannot go with headers:'),
    })
  })

  it('a patch that adds an unknown member, without offDocument', () => {
    expect(violationsOf(refusal({ operationId: 'saveItems', answer: { patch: { Unknown: 1 } } })).map((v) => v.pointer)).toContain('/body/answer/patch/Unknown')
  })

  it('what is not valid HTTP is refused even with offDocument', () => {
    const problem = refusal({ operationId: 'queryItems', answer: { status: 200, headers: { 'Bad Name': 'x' } }, offDocument: true })
    expect(violationsOf(problem)).toEqual([expect.objectContaining({ pointer: '/body/answer/headers/Bad Name', keyword: 'headerName' })])
    const framing = refusal({ operationId: 'queryItems', answer: { status: 200, headers: { 'Transfer-Encoding': 'chunked' } }, offDocument: true })
    expect(violationsOf(framing).map((v) => v.pointer)).toEqual(['/body/answer/headers/Transfer-Encoding'])
  })

  it('a body a status cannot carry is refused even with offDocument', () => {
    const problem = refusal({ operationId: 'queryItems', answer: { status: 204, body: { a: 1 } }, offDocument: true })
    expect(violationsOf(problem).map((v) => v.pointer)).toContain('/body/answer/body')
  })

  it('a pattern that does not compile names its place under /body/match', () => {
    expect(violationsOf(refusal({ operationId: 'queryItems', match: { body: { $nope: 1 } }, answer: {} }))).toEqual([
      expect.objectContaining({ pointer: '/body/match/body', keyword: 'operator' }),
    ])
  })

  it('a bad pattern beside a good answer: refused, never held with no pattern', () => {
    expect(refusal({ operationId: 'queryItems', match: { body: { q: { $regex: '(a' } } }, answer: { status: 503 } }).code).toBe('VALIDATION')
  })

  it.each([
    ["the answer's body", (deep: unknown) => ({ operationId: 'queryItems', answer: { body: deep }, offDocument: true }), '/body/answer/body/0'],
    ['the patch', (deep: unknown) => ({ operationId: 'queryItems', answer: { patch: deep }, offDocument: true }), '/body/answer/patch/0'],
    ['the body pattern', (deep: unknown) => ({ operationId: 'queryItems', match: { body: deep }, answer: {} }), '/body/match/body/0'],
  ])('%s nested too deep is refused before anything else looks at it', (_part, rule, pointer) => {
    const violations = violationsOf(refusal(rule(nested(100))))
    expect(violations).toHaveLength(1)
    expect(violations[0]?.keyword).toBe('maxDepth')
    expect(violations[0]?.pointer.startsWith(pointer)).toBe(true)
  })

  it('a depth within the limit passes the depth check', () => {
    expect(hold({ operationId: 'queryItems', match: { body: { a: nested(20) } }, answer: {} }).pattern.operationOnly).toBe(false)
  })

  it("a rule that is not an object gets its schema's violation, not a crash", () => {
    for (const input of ['text', null, [1]]) expect(violationsOf(refusal(input)).map((v) => [v.pointer, v.keyword])).toEqual([['/body', 'type']])
    expect(violationsOf(refusal({ operationId: 'queryItems', answer: 'text' })).map((v) => [v.pointer, v.keyword])).toEqual([['/body/answer', 'type']])
    expect(violationsOf(refusal({ operationId: 'queryItems', answer: {}, match: 'text' })).map((v) => [v.pointer, v.keyword])).toEqual([
      ['/body/match', 'type'],
    ])
  })

  it('a patch with a gateway status beside it, for every operation: the operation is still required', () => {
    const keywords = violationsOf(refusal({ answer: { patch: {}, status: 503 } })).map((v) => v.keyword)
    expect(keywords).toContain('required')
    expect(keywords).toContain('oneAnswer')
  })
})

describe('strict mode and answer rules', () => {
  it('refuses an off-document rule even with offDocument: STRICT_MODE names offDocument first, then why', () => {
    const problem = refusal({ operationId: 'queryItems', answer: { status: 418 }, offDocument: true }, strict)
    expect(problem.code).toBe('STRICT_MODE')
    expect(problem.status).toBe(400)
    expect(problem.extra).toMatchObject({ warning: 'OFF_DOCUMENT_ANSWER' })
    expect(violationsOf(problem).map((v) => [v.pointer, v.keyword])).toEqual([
      ['/body/offDocument', 'strict'],
      ['/body/answer/status', 'offDocument'],
    ])
    expect(problem.message).toMatch(/^\/body\/offDocument is refused in strict mode \(--strict\).*\/body\/answer\/status 418 is not a status.*\.$/)
  })

  it('without offDocument the plain refusal comes first, as VALIDATION', () => {
    expect(refusal({ operationId: 'queryItems', answer: { status: 418 } }, strict).code).toBe('VALIDATION')
  })

  it('a rule the document gives is accepted in strict mode, a gateway status included', () => {
    expect(hold({ operationId: 'queryItems', answer: { status: 503 } }, 1, strict).decision.gateway).toBe(true)
    expect(hold({ operationId: 'queryItems', answer: {} }, 1, strict).decision.kind).toBe('own')
  })

  it('the strict violation points where it is told and says how to answer off the document', () => {
    expect(strictViolation('/body/0/offDocument')).toEqual({
      pointer: '/body/0/offDocument',
      keyword: 'strict',
      message:
        'is refused in strict mode (--strict): the mock gives only answers the served document can give; start it without --strict to answer off the document',
    })
    const problem = strictProblem([strictViolation('/x')])
    expect(problem.message).toBe(
      '/x is refused in strict mode (--strict): the mock gives only answers the served document can give; start it without --strict to answer off the document.',
    )
  })
})

describe('the order rules are tried in', () => {
  const rule = (id: number, priority: number): HeldRule => hold({ operationId: 'queryItems', answer: {}, priority }, id)

  it('lower priority first; between equal priorities the newest (highest id) first', () => {
    const rules = [rule(1, 5), rule(2, 1), rule(3, 5), rule(4, 1)]
    expect([...rules].sort(triedBefore).map((r) => r.view.id)).toEqual([4, 2, 3, 1])
    expect(triedBefore(rule(1, 5), rule(1, 5))).toBe(0)
  })
})
