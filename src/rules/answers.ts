import type { Violation } from '../errors.ts'
import { isObject } from '../document/json.ts'
import { controlViolations, validationProblem } from '../document/control-body.ts'
import { DEFAULT_ANSWER_PRIORITY } from '../../spec/control-plane/constants.ts'
import { checkPatch, checkWholeAnswer, NOT_HTTP, type PreparedAnswer, type RuleCheckContext } from './answer-check.ts'
import { depthViolations, headerViolations } from './valid-http.ts'
import { isGatewayStatus } from '../wire/gateway-statuses.ts'
import { strictProblem, strictViolation } from './strict.ts'
import { compileRequestPatternWork, type CompiledRequestPattern, type RequestMatch } from './pattern.ts'
import { runAtOnce, type Work } from './work.ts'

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
  /** Why the answer is off the document; non-empty means the answer carries OFF_DOCUMENT_ANSWER. */
  offDocument: Violation[]
  /** A whole answer with a gateway status (500, 502, 503, 504): the answer carries INFRASTRUCTURE_ANSWER. */
  gateway: boolean
} & ({ kind: 'whole'; answer: PreparedAnswer } | { kind: 'patch'; patch: unknown } | { kind: 'own' })

/** An answer rule as the table holds it: what it lists, its compiled pattern, what it does. */
export interface HeldRule {
  view: ActiveAnswerRule
  pattern: CompiledRequestPattern
  decision: AnswerDecision
}

/**
 * Checks a rule and makes what the table holds: first what could hurt the steps after it (a body,
 * patch or pattern nested deeper than MAX_ANSWER_DEPTH, walked without recursion), then its
 * schema, then what the schema cannot say: an operation of the release, an answer that is valid
 * HTTP, an answer the document gives unless `offDocument` (and, in strict mode, not even then).
 * Throws the 400 problem listing every violation, pointers under `/body` (STRICT_MODE when strict
 * mode alone refuses it).
 */
export function holdAnswerRule(input: AnswerRuleInput, id: number, context: RuleCheckContext): HeldRule {
  return runAtOnce(holdAnswerRuleWork(input, id, context))
}

/**
 * `holdAnswerRule` as work that may pause (work.ts) while the rule's pattern is compiled: a pattern
 * may hold a thousand expressions. It throws the same problems, when it runs.
 */
export function* holdAnswerRuleWork(input: AnswerRuleInput, id: number, context: RuleCheckContext): Work<HeldRule> {
  const deep = tooDeep(input)
  if (deep.length > 0) throw validationProblem(deep)
  const schema = schemaViolations(input)
  if (schema.length > 0) throw validationProblem(schema)
  const { violations, offDocument, pattern, decision } = yield* checkRule(input, context)
  if (violations.length > 0) throw validationProblem(violations)
  if (context.strict && offDocument.length > 0) throw strictProblem([strictViolation('/body/offDocument'), ...offDocument])
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

/** The parts of a rule that may nest (its answer's body, its patch, its body pattern), each no deeper than MAX_ANSWER_DEPTH. */
function tooDeep(input: unknown): Violation[] {
  if (!isObject(input)) return []
  const answer: unknown = input.answer
  const match: unknown = input.match
  return [
    ...(isObject(answer) ? [...depthViolations(answer.body, '/body/answer/body'), ...depthViolations(answer.patch, '/body/answer/patch')] : []),
    ...(isObject(match) ? depthViolations(match.body, '/body/match/body') : []),
  ]
}

/**
 * The rule's violations of its schema (`AnswerRule`), with `operationId: "*"` said plainly: the
 * schema's pattern would only name a regular expression, when what the writer means (every
 * operation) is said by leaving the member out.
 */
function schemaViolations(input: unknown): Violation[] {
  const star = isObject(input) && input.operationId === '*'
  const violations = controlViolations('AnswerRule', input).filter((v) => !(star && v.pointer === '/body/operationId'))
  if (!star) return violations
  return [
    {
      pointer: '/body/operationId',
      keyword: 'everyOperation',
      message:
        'is not an operation: a rule for every operation leaves operationId out (with "offDocument": true, a gateway status such as 503, or answer {}); * is for fault rules',
    },
    ...violations,
  ]
}

/** The order rules are tried in: lower priority first, then the newest (WireMock's order). */
export function triedBefore(a: HeldRule, b: HeldRule): number {
  return a.view.priority - b.view.priority || b.view.id - a.view.id
}

/** Every violation of a rule the schema cannot see, the answer it gives, and its compiled pattern. */
function* checkRule(
  input: AnswerRuleInput,
  { document, operations }: RuleCheckContext,
): Work<{ violations: Violation[]; offDocument: Violation[]; pattern: CompiledRequestPattern; decision: AnswerDecision }> {
  const violations: Violation[] = []
  const offDocument: Violation[] = []
  // No operation (a rule for every operation) finds no entry.
  const entry = operations.get(input.operationId as string)
  if (input.operationId !== undefined && entry === undefined) {
    violations.push({
      pointer: '/body/operationId',
      keyword: 'operationId',
      message: `is not an operation of this release; use one of ${[...operations.keys()].sort().join(', ')}`,
    })
  }
  const answer = input.answer
  // A whole answer with a gateway status; `answer: {}` (no status: the operation's own answer) is none.
  const gateway = !('patch' in answer) && isGatewayStatus((answer as WholeAnswerInput).status ?? 200)
  // The operation's own answer (`answer: {}`) needs no operation to be checked against, nor does a gateway status (any operation may get one).
  if (input.operationId === undefined && input.offDocument !== true && Object.keys(answer).length > 0 && !gateway) {
    violations.push({
      pointer: '/body/operationId',
      keyword: 'required',
      message: 'is required: an answer is checked against the operation it answers; name it, or add "offDocument": true for a rule on every operation',
    })
  }
  const compiled = yield* compileRequestPatternWork({ operationId: input.operationId, match: input.match }, '/body/match')
  if (!compiled.ok) violations.push(...compiled.violations)
  let decision: AnswerDecision
  if (Object.keys(answer).length === 0) {
    // `answer: {}` leaves the operation's own answer: a rule for a delay or a scenario step alone.
    decision = { ruleId: 0, delayMs: input.delayMs ?? 0, offDocument, gateway: false, kind: 'own' }
  } else if ('patch' in answer) {
    const others = (['status', 'headers', 'body'] as const).filter((name) => Object.hasOwn(answer, name))
    if (others.length > 0)
      violations.push({
        pointer: '/body/answer/patch',
        keyword: 'oneAnswer',
        message: `cannot go with ${others.join(', ')}: an answer is either whole (status, headers, body) or a patch`,
      })
    if (entry !== undefined) offDocument.push(...checkPatch(document, entry, answer.patch, '/body/answer'))
    decision = { ruleId: 0, delayMs: input.delayMs ?? 0, offDocument, gateway: false, kind: 'patch', patch: answer.patch }
  } else {
    // What is not valid HTTP is refused even off the document: headers, a body a media type cannot carry, a body a status cannot have.
    violations.push(...headerViolations(answer.headers, '/body/answer/headers'))
    const checked = checkWholeAnswer(document, entry, answer, '/body/answer')
    for (const violation of checked.violations) (NOT_HTTP.has(violation.keyword) ? violations : offDocument).push(violation)
    decision = { ruleId: 0, delayMs: input.delayMs ?? 0, offDocument, gateway: checked.gateway, kind: 'whole', answer: checked.prepared }
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
