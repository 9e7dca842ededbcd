import type { OpenAPIObject } from 'openapi3-ts/oas31'
import type { Violation } from '../errors.ts'
import type { OperationEntry } from '../document/reader.ts'
import { DEFAULT_ANSWER_PRIORITY } from '../../spec/control-plane/constants.ts'
import { checkPatch, checkWholeAnswer, type PreparedAnswer } from './answer-check.ts'
import { checkControlBody, validationProblem } from '../document/control-body.ts'
import { compileRequestPattern, type CompiledRequestPattern, type RequestMatch } from './pattern.ts'

/**
 * Answer rules (`POST /__mock/stubs`): the installation's answer to a request that matches a
 * pattern, after it is authenticated, checked and authorized. This module is what a rule is and
 * what makes one acceptable (its pattern compiles, its answer is one the served document gives);
 * the table (table.ts) holds them and decide.ts picks the one that answers.
 */

/** A whole answer: the operation is not performed. `{}` (none of the members) leaves the operation's own answer. */
export interface WholeAnswerInput {
  status?: number
  headers?: Record<string, string>
  body?: unknown
}

/** A merge patch (RFC 7386) of the operation's own JSON answer: the operation is performed. */
export interface PatchAnswerInput {
  patch: unknown
}

/** An answer rule as a test writes it (the `AnswerRule` schema of spec/control-plane/). */
export interface AnswerRuleInput {
  name?: string
  /** An operation of the served release; without it (only with `offDocument: true`) every API operation. */
  operationId?: string
  match?: RequestMatch
  answer: WholeAnswerInput | PatchAnswerInput
  /** Wait this long before answering (at most 60 000). */
  delayMs?: number
  /** Answer this many requests, then stop matching (the rule stays listed with `remaining` 0). */
  times?: number
  /** Lower first (default 5); among equal priorities, the newest rule first. */
  priority?: number
  scenario?: string
  whenState?: string
  setState?: string
  /** Accept an answer the served document cannot give; its answers then carry the `OFF_DOCUMENT_ANSWER` warning. */
  offDocument?: boolean
}

/** A rule as the mock holds it, with its use so far (the `ActiveAnswerRule` schema). */
export interface ActiveAnswerRule extends AnswerRuleInput {
  id: number
  priority: number
  hits: number
  remaining: number | null
  offDocument: boolean
  /** Why the document cannot give this answer; empty unless the rule was added with `offDocument: true`. */
  violations: Violation[]
}

/** The rules in the order they are tried, and every scenario's state (the `AnswerRuleList` schema). */
export interface AnswerRuleList {
  rules: ActiveAnswerRule[]
  scenarios: Record<string, string>
}

/** What the answer-rule step does to one request. */
export type AnswerDecision = {
  ruleId: number
  delayMs: number
  /** Why the answer is off the document; non-empty means the answer carries a warning. */
  offDocument: Violation[]
} & ({ kind: 'whole'; answer: PreparedAnswer } | { kind: 'patch'; patch: unknown } | { kind: 'own' })

/** An answer rule as the table holds it: what it lists, its compiled pattern, what it does. */
export interface HeldRule {
  view: ActiveAnswerRule
  pattern: CompiledRequestPattern
  decision: AnswerDecision
}

/**
 * Checks a rule against the release `document` describes (its operation one of the document's,
 * its answer one the document gives, unless `offDocument`) and makes what the table holds. Throws
 * the 400 problem listing every violation, pointers under `/body`.
 */
export function holdAnswerRule(input: AnswerRuleInput, id: number, document: OpenAPIObject, operations: ReadonlyMap<string, OperationEntry>): HeldRule {
  checkControlBody('AnswerRule', input)
  const { violations, offDocument, pattern, decision } = checkRule(input, document, operations)
  if (violations.length > 0) throw validationProblem(violations)
  const view: ActiveAnswerRule = {
    id,
    ...copyInput(input),
    priority: input.priority ?? DEFAULT_ANSWER_PRIORITY,
    hits: 0,
    remaining: input.times ?? null,
    offDocument: input.offDocument === true,
    violations: offDocument,
  }
  return { view, pattern, decision: { ...decision, ruleId: id } }
}

/** The order rules are tried in: lower priority first, then the newest (WireMock's order). */
export function triedBefore(a: HeldRule, b: HeldRule): number {
  return a.view.priority - b.view.priority || b.view.id - a.view.id
}

/** Every violation of a rule the schema cannot see, the answer it gives, and its compiled pattern. */
function checkRule(
  input: AnswerRuleInput,
  document: OpenAPIObject,
  operations: ReadonlyMap<string, OperationEntry>,
): { violations: Violation[]; offDocument: Violation[]; pattern: CompiledRequestPattern; decision: AnswerDecision } {
  const violations: Violation[] = []
  const offDocument: Violation[] = []
  const entry = input.operationId === undefined ? undefined : operations.get(input.operationId)
  if (input.operationId !== undefined && entry === undefined) {
    violations.push({ pointer: '/body/operationId', keyword: 'operationId', message: `is not an operation of this release; use one of ${[...operations.keys()].sort().join(', ')}` })
  }
  // The operation's own answer (`answer: {}`) needs no operation to be checked against.
  if (input.operationId === undefined && input.offDocument !== true && Object.keys(input.answer).length > 0) {
    violations.push({
      pointer: '/body/operationId',
      keyword: 'required',
      message: 'is required: an answer is checked against the operation it answers; name it, or add "offDocument": true for a rule on every operation',
    })
  }
  const compiled = compileRequestPattern({ operationId: input.operationId, match: input.match }, '/body/match')
  if (!compiled.ok) violations.push(...compiled.violations)
  const answer = input.answer
  let decision: AnswerDecision
  if (Object.keys(answer).length === 0) {
    // `answer: {}` leaves the operation's own answer: a rule for a delay or a scenario step alone.
    decision = { ruleId: 0, delayMs: input.delayMs ?? 0, offDocument, kind: 'own' }
  } else if ('patch' in answer) {
    const others = (['status', 'headers', 'body'] as const).filter((name) => Object.hasOwn(answer, name))
    if (others.length > 0) violations.push({ pointer: '/body/answer/patch', keyword: 'oneAnswer', message: `cannot go with ${others.join(', ')}: an answer is either whole (status, headers, body) or a patch` })
    if (entry !== undefined) offDocument.push(...checkPatch(document, entry, answer.patch, '/body/answer'))
    decision = { ruleId: 0, delayMs: input.delayMs ?? 0, offDocument, kind: 'patch', patch: answer.patch }
  } else {
    const checked = checkWholeAnswer(document, entry, answer, '/body/answer')
    // A body a media type cannot carry (an object for text/plain) is refused even off the document.
    for (const violation of checked.violations) (violation.keyword === 'textBody' ? violations : offDocument).push(violation)
    decision = { ruleId: 0, delayMs: input.delayMs ?? 0, offDocument, kind: 'whole', answer: checked.prepared }
  }
  if (input.offDocument !== true) violations.push(...offDocument)
  if (violations.length > 0 || !compiled.ok) return { violations, offDocument, pattern: undefined as never, decision }
  return { violations, offDocument, pattern: compiled.pattern, decision }
}

/** Only the members the schema knows, so a caller's object is never shared with the table. */
function copyInput(input: AnswerRuleInput): AnswerRuleInput {
  const copy = structuredClone(input)
  delete (copy as { offDocument?: boolean }).offDocument
  return copy
}

/** A copy of what the table lists of a rule, so a caller cannot change the table's. */
export function copyView(view: ActiveAnswerRule): ActiveAnswerRule {
  return structuredClone(view)
}
