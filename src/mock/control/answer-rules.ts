import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { ProblemError, type Violation } from '../../errors.ts'
import { listOperations, type OperationEntry } from '../../document/reader.ts'
import { DEFAULT_ANSWER_PRIORITY, MAX_ANSWER_RULES } from '../../../spec/control-plane/constants.ts'
import { checkPatch, checkWholeAnswer, type PreparedAnswer } from './answer-check.ts'
import { checkControlBody, validationProblem } from './document.ts'
import { compileRequestPattern, type CompiledRequestPattern, type RequestMatch, type RequestSubject } from './request-pattern.ts'
import { createRuleList, type RuleList } from './rule-table.ts'

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

/** The state every scenario starts in (as in WireMock). */
export const STARTED = 'Started'

/** The answer rules of one mock. */
export interface AnswerRuleTable {
  /** Checks and adds a rule (400 problem listing the violations, pointers under `/body`). */
  add(input: AnswerRuleInput): ActiveAnswerRule
  list(): AnswerRuleList
  /** Removes one rule; 404 problem for an unknown id. */
  remove(id: number): ActiveAnswerRule
  /** Removes every rule and every scenario state; returns how many rules there were. */
  clear(): number
  /** Whether any rule can still match: with none, a request needs no look-up at all. */
  hasRules(): boolean
  /** The rule that answers this request, counted as a hit (and its scenario moved); null for none. */
  decide(subject: RequestSubject): AnswerDecision | null
}

/** An answer rule as the table holds it: what it lists, its compiled pattern, what it does. */
export interface HeldRule {
  view: ActiveAnswerRule
  pattern: CompiledRequestPattern
  decision: AnswerDecision
}

/**
 * An empty table for the release `document` describes (the document the routes are made from):
 * a rule's operation must be one of its operations and its answer one it documents. The rules
 * live in `list`, the mock's one table of rules, after its fault rules (rule-table.ts).
 */
export function createAnswerRuleTable(document: OpenAPIObject, list: RuleList<unknown, HeldRule> = createRuleList()): AnswerRuleTable {
  let operations: Map<string, OperationEntry> | undefined
  const operationsOf = (): Map<string, OperationEntry> => (operations ??= new Map(listOperations(document).map((entry) => [entry.operationId, entry])))
  // In the order rules are tried: priority, then newest first.
  const rules = (): HeldRule[] => list.entries.flatMap((entry) => (entry.kind === 'answer' ? [entry.rule] : []))
  // Rules that can still match (not used up): with none, a request looks nothing up.
  let live = 0
  let nextId = 1
  const scenarios = new Map<string, string>()
  const stateOf = (scenario: string): string => scenarios.get(scenario) ?? STARTED

  const listed = (): AnswerRuleList => {
    const states: Record<string, string> = {}
    for (const { view } of rules()) if (view.scenario !== undefined) states[view.scenario] = stateOf(view.scenario)
    for (const [scenario, state] of scenarios) states[scenario] = state
    return { rules: rules().map(({ view }) => copyView(view)), scenarios: states }
  }

  return {
    add(input) {
      checkControlBody('AnswerRule', input)
      if (list.count('answer') >= MAX_ANSWER_RULES) {
        throw validationProblem([{ pointer: '/body', keyword: 'maxRules', message: `would be rule ${MAX_ANSWER_RULES + 1}: a mock holds at most ${MAX_ANSWER_RULES} answer rules; remove some first` }])
      }
      const { violations, offDocument, pattern, decision } = checkRule(input, document, operationsOf())
      if (violations.length > 0) throw validationProblem(violations)
      const id = nextId++
      const view: ActiveAnswerRule = {
        id,
        ...copyInput(input),
        priority: input.priority ?? DEFAULT_ANSWER_PRIORITY,
        hits: 0,
        remaining: input.times ?? null,
        offDocument: input.offDocument === true,
        violations: offDocument,
      }
      list.addAnswer({ view, pattern, decision: { ...decision, ruleId: id } }, (a, b) => a.view.priority - b.view.priority || b.view.id - a.view.id)
      live += 1
      return copyView(view)
    },
    list: listed,
    remove(id) {
      const held = rules().find((rule) => rule.view.id === id)
      if (held === undefined) throw new ProblemError('NOT_FOUND', `There is no answer rule ${id}; GET /__mock/stubs lists the rules.`)
      list.remove(held)
      if (held.view.remaining !== 0) live -= 1
      return copyView(held.view)
    },
    clear() {
      const count = list.clear('answer')
      live = 0
      scenarios.clear()
      return count
    },
    hasRules: () => live > 0,
    decide(subject) {
      // The hot path: no rules, no work.
      if (live === 0) return null
      for (const entry of list.entries) {
        if (entry.kind !== 'answer') continue
        const held = entry.rule
        const { view, pattern } = held
        if (view.remaining === 0) continue
        if (view.operationId !== undefined && view.operationId !== subject.operationId) continue
        if (view.whenState !== undefined && stateOf(view.scenario as string) !== view.whenState) continue
        if (!pattern.operationOnly && !pattern.match(subject).matched) continue
        view.hits += 1
        if (view.remaining !== null) {
          view.remaining -= 1
          if (view.remaining === 0) live -= 1
        }
        if (view.setState !== undefined) scenarios.set(view.scenario as string, view.setState)
        return held.decision
      }
      return null
    },
  }
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

function copyView(view: ActiveAnswerRule): ActiveAnswerRule {
  return structuredClone(view)
}
