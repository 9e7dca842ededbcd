import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { ProblemError } from '../errors.ts'
import { listOperations, type OperationEntry } from '../document/reader.ts'
import { checkControlBody, validationProblem } from '../document/control-body.ts'
import { MAX_ANSWER_RULE_BYTES, MAX_ANSWER_RULES, MAX_ANSWER_RULES_BYTES } from '../../spec/control-plane/constants.ts'
import {
  activeFaultRules,
  faultDecision,
  faultRuleViolations,
  statusStanding,
  type ActiveFaultRule,
  type FaultDecision,
  type FaultList,
  type FaultRuleInput,
} from './faults.ts'
import { strictProblem } from './strict.ts'
import type { RuleCheckContext } from './answer-check.ts'
import {
  copyView,
  holdAnswerRule,
  holdAnswerRuleWork,
  triedBefore,
  type ActiveAnswerRule,
  type AnswerRuleInput,
  type AnswerRuleList,
  type HeldRule,
} from './answers.ts'
import { createScenarios } from './scenarios.ts'
import { decide, inTrialOrder, matchForDecision, type Decision, type RuleStates, type RuleTableState } from './decide.ts'
import type { RequestSubject } from './pattern.ts'
import { runSliced, type Work } from './work.ts'

/**
 * The one table of a mock's rules: fault rules (the infrastructure's answers, `/__mock/faults`)
 * and answer rules (the installation's, `/__mock/stubs`), with the scenario states, indexed by
 * operation so rules of other operations cost a request nothing. Which rule takes a request is
 * decide.ts's `decide`; the table hands it its state and commits the updates it answers in the same
 * step. Where in the request path each kind is asked, and how a decision is applied:
 * docs/request-path.md, "Answer rules in the request path".
 */
export interface RuleTable {
  readonly faults: FaultTable
  readonly answers: AnswerRuleTable
}

/** The fault rules of one mock. */
export interface FaultTable {
  /**
   * Replaces every rule after checking them (400 problem naming the field). An operationId the
   * release lacks is refused, so a misspelt one cannot silently never match.
   */
  set(input: { rules: FaultRuleInput[]; seed?: number }): FaultList
  list(): FaultList
  /** Removes every rule; returns how many there were. */
  clear(): number
  /** Whether any rule is set: with none, a request needs no look-up at all. */
  hasRules(): boolean
  /**
   * What an arriving request of this operation meets (decide.ts's `decide` at the arrival point:
   * `pass`, `fault` or `delay`), its updates committed in the same step: the rule counted as
   * applied, a use taken (a rule used up goes), the `rate` draws moved on.
   */
  decide(operationId: string): Decision
}

/** The answer rules of one mock. */
export interface AnswerRuleTable {
  /** Checks and adds a rule (400 problem listing the violations, pointers under `/body`). */
  add(input: AnswerRuleInput): ActiveAnswerRule
  /**
   * The same, its pattern compiled in slices with turns of the event loop between them (a pattern
   * may hold a thousand expressions, most of a second to compile): `POST /__mock/stubs`.
   */
  addSliced(input: AnswerRuleInput): Promise<ActiveAnswerRule>
  list(): AnswerRuleList
  /**
   * The same list as JSON text in UTF-8 (what `JSON.stringify(list())` writes), written a rule at a
   * time in slices with turns of the event loop between them: a table of 500 rules of 32 KB each is
   * 16 MB of text. It lists the rules as they were when it was asked (their hits and uses then).
   */
  listText(): Promise<Uint8Array>
  /** Removes one rule; 404 problem for an unknown id. */
  remove(id: number): ActiveAnswerRule
  /** Removes every rule and every scenario state; returns how many rules there were. */
  clear(): number
  /**
   * Whether any rule can still match (with `operationId`, a request of that operation: a rule of it
   * or of every operation): with none, a request needs no look-up at all, and takes no turn of the
   * event loop for one (500 rules held on another operation cost a read a quarter of its rate).
   */
  hasRules(operationId?: string | null): boolean
  /**
   * What this request meets at the answer point (`pass`, `answer`, `patch` or `delay`). The patterns
   * are matched first, in slices of MATCH_SLICE_MS with turns of the event loop between them
   * (decide.ts's `matchForDecision`); then, in the slice that ends the matching, `decide` and the
   * commit of its updates (the hit, one of the rule's `times`, its scenario's move) in one step.
   * Always a promise: matching may pause.
   */
  decide(subject: RequestSubject): Promise<Decision>
}

/**
 * An empty table for the release `document` describes (the document the routes are made from):
 * a rule's operation must be one of its operations and its answer one it documents. `randomSeed`
 * supplies the seed of fault rules' `rate` draws when a call gives none; it comes from the mock's
 * injected randomness, so fixed test dependencies give the same draws every run.
 */
export function createRuleTable(options: { document: OpenAPIObject; randomSeed: () => number; strict?: boolean }): RuleTable {
  const operations = new Map<string, OperationEntry>(listOperations(options.document).map((entry) => [entry.operationId, entry]))
  const context = { document: options.document, operations, strict: options.strict === true }
  return { faults: createFaultTable(context, options.randomSeed), answers: createAnswerRuleTable(context) }
}

function createFaultTable(context: RuleCheckContext, randomSeed: () => number): FaultTable {
  const known: ReadonlySet<string> = new Set(context.operations.keys())
  // Drawn only when rules are set without a seed, so a mock that never uses faults takes
  // nothing from the injected randomness that tokens come from.
  let seed = 0
  /** Where the `rate` draws stand: the seeded generator's state (wire/prng.ts's `drawAt`). */
  let drawState = 0
  let rules: ActiveFaultRule[] = []
  /** Per operation: its rules and those of every operation (`*`), in the order set. */
  let byOperation = new Map<string, ActiveFaultRule[]>()
  /** What each rule does, decided when the rules are set (its status's standing needs the document). */
  let decisions = new Map<ActiveFaultRule, FaultDecision>()
  const index = (): void => {
    byOperation = new Map([...known].map((id) => [id, rules.filter((rule) => rule.operationId === '*' || rule.operationId === id)]))
  }
  const listed = (): FaultList => ({ seed, rules: rules.map((rule) => ({ ...rule })) })
  const state: RuleTableState = {
    faultsFor: (operationId) => byOperation.get(operationId) ?? [],
    faultDecisionOf: (rule) => decisions.get(rule) as FaultDecision,
    get drawState() {
      return drawState
    },
    // Fault rules have no scenario and are never matched by pattern.
    stateOf: () => '',
    isHeld: () => true,
  }
  /** A decision's updates, committed in the step that decided it. */
  const commit = (decision: Decision): Decision => {
    const { drawState: drawn, fault } = decision.updates
    if (drawn !== null) drawState = drawn
    if (fault !== null) {
      fault.rule.applied = fault.applied
      fault.rule.remaining = fault.remaining
      // A fault rule used up is gone (it is the infrastructure's, and says so in the list no more).
      if (fault.remaining === 0) {
        rules = rules.filter((other) => other !== fault.rule)
        decisions.delete(fault.rule)
        index()
      }
    }
    return decision
  }
  return {
    set(input) {
      checkControlBody('FaultRuleSet', input)
      const checked = input.rules.map((rule, index) => faultRuleViolations(rule, index, context))
      const violations = checked.flatMap((found) => found.violations)
      if (violations.length > 0) throw validationProblem(violations)
      const strict = checked.flatMap((found) => found.strict)
      if (strict.length > 0) throw strictProblem(strict)
      seed = input.seed ?? randomSeed()
      drawState = seed >>> 0
      rules = activeFaultRules(input.rules)
      decisions = new Map(
        rules.map((rule) => [
          rule,
          faultDecision(
            rule,
            rule.status === undefined ? 'documented' : statusStanding(context.document, context.operations.get(rule.operationId), rule.status),
          ),
        ]),
      )
      index()
      return listed()
    },
    list: listed,
    clear() {
      const count = rules.length
      rules = []
      decisions = new Map()
      index()
      return count
    },
    hasRules: () => rules.length > 0,
    decide: (operationId) => commit(decide(state, { point: 'arrival', operationId })),
  }
}

/**
 * The longest stretch of matching one request against the rules, across all its rules, between two
 * turns of the event loop: as short as the journal's queries' (journal.ts), since a request beside a
 * long match waits about two slices. Each rule that does not match, and every long text or wide
 * array inside one, is a chance for the slice to end.
 */
export const MATCH_SLICE_MS = 2

/** Characters of a rule list's text encoded at a time (`listText`): a slice may end after each piece. */
const LIST_PIECE = 64 * 1024

function createAnswerRuleTable(context: RuleCheckContext): AnswerRuleTable {
  /** Every rule held, oldest first (used-up ones too, until the cap drops them). */
  let held: HeldRule[] = []
  /** The same rules as a set: a match that waited asks whether its rule is still held. */
  const holding = new Set<HeldRule>()
  /** In the order they are tried: the rules of each operation, and those of every operation. */
  const byOperation = new Map<string, HeldRule[]>()
  let everyOperation: HeldRule[] = []
  // Rules that can still match (not used up): the cap counts these, and with none a request looks nothing up.
  let live = 0
  let nextId = 1
  /** The size of every rule held, as JSON, by rule. */
  const sizes = new WeakMap<HeldRule, number>()
  let bytes = 0
  const scenarios = createScenarios()
  const states: RuleStates = { stateOf: scenarios.stateOf, isHeld: (rule) => holding.has(rule) }
  const state: RuleTableState = {
    ...states,
    faultsFor: () => [],
    faultDecisionOf: () => {
      throw new Error('an answer rule table holds no fault rules')
    },
    drawState: 0,
  }

  const unindex = (rule: HeldRule): void => {
    const operationId = rule.view.operationId
    if (operationId === undefined) everyOperation = everyOperation.filter((other) => other !== rule)
    else
      byOperation.set(
        operationId,
        (byOperation.get(operationId) ?? []).filter((other) => other !== rule),
      )
  }
  const drop = (rule: HeldRule): void => {
    bytes -= sizes.get(rule) ?? 0
    held = held.filter((other) => other !== rule)
    holding.delete(rule)
    unindex(rule)
    if (rule.view.remaining !== 0) live -= 1
  }
  const inOrder = (): HeldRule[] => [...held].sort(triedBefore)
  /** A decision's updates (a hit, one of its `times`, its scenario's move), committed in the step that decided it. */
  const commit = (decision: Decision): Decision => {
    const use = decision.updates.answer
    if (use === null) return decision
    const { view } = use.rule
    view.hits = use.hits
    if (view.remaining !== use.remaining && use.remaining === 0) live -= 1
    view.remaining = use.remaining
    if (use.scenario !== null) scenarios.move(use.scenario.name, use.scenario.state)
    return decision
  }

  const roomForOneMore = (): void => {
    if (live >= MAX_ANSWER_RULES) {
      throw validationProblem([
        {
          pointer: '/body',
          keyword: 'maxRules',
          message: `would be live rule ${MAX_ANSWER_RULES + 1}: a mock holds at most ${MAX_ANSWER_RULES} rules that can still answer; remove some first`,
        },
      ])
    }
  }
  /** Numbers a rule made by holdAnswerRule and holds it, within the bounds, in one step. */
  const admit = (rule: HeldRule): ActiveAnswerRule => {
    // Numbered when held: rules compiled side by side (addSliced) are numbered in the order they are held.
    rule.view.id = nextId
    rule.decision.ruleId = nextId
    const size = Buffer.byteLength(JSON.stringify(rule.view))
    if (size > MAX_ANSWER_RULE_BYTES) {
      throw validationProblem([
        {
          pointer: '/body',
          keyword: 'maxRuleSize',
          message: `is ${size} bytes as JSON, more than the ${MAX_ANSWER_RULE_BYTES} an answer rule may be; answer a large page from the fixture's rows instead`,
        },
      ])
    }
    // Used-up rules make room first, the oldest first, as they do past the count.
    for (
      let oldest = held.find((other) => other.view.remaining === 0);
      bytes + size > MAX_ANSWER_RULES_BYTES && oldest !== undefined;
      oldest = held.find((other) => other.view.remaining === 0)
    )
      drop(oldest)
    if (bytes + size > MAX_ANSWER_RULES_BYTES) {
      throw validationProblem([
        {
          pointer: '/body',
          keyword: 'maxRulesSize',
          message: `would make the rules held ${bytes + size} bytes as JSON, more than the ${MAX_ANSWER_RULES_BYTES} a mock holds; remove some first`,
        },
      ])
    }
    sizes.set(rule, size)
    bytes += size
    nextId += 1
    held.push(rule)
    holding.add(rule)
    live += 1
    const operationId = rule.view.operationId
    if (operationId === undefined) everyOperation = [...everyOperation, rule].sort(triedBefore)
    else byOperation.set(operationId, [...(byOperation.get(operationId) ?? []), rule].sort(triedBefore))
    // Used-up rules stay listed (their hits are what a test reads), the oldest dropped past the cap.
    while (held.length > MAX_ANSWER_RULES) {
      const oldest = held.find((other) => other.view.remaining === 0)
      if (oldest === undefined) break
      drop(oldest)
    }
    return copyView(rule.view)
  }

  return {
    add(input) {
      roomForOneMore()
      return admit(holdAnswerRule(input, nextId, context))
    },
    async addSliced(input) {
      roomForOneMore()
      const rule = await runSliced(holdAnswerRuleWork(input, nextId, context), MATCH_SLICE_MS)
      // Other rules may have been added while this one compiled.
      roomForOneMore()
      return admit(rule)
    },
    list(): AnswerRuleList {
      const rules = inOrder()
      const named = rules.flatMap(({ view }) => (view.scenario === undefined ? [] : [view.scenario]))
      return { rules: rules.map(({ view }) => copyView(view)), scenarios: scenarios.listed(named) }
    },
    async listText() {
      const rules = inOrder()
      const named = rules.flatMap(({ view }) => (view.scenario === undefined ? [] : [view.scenario]))
      // What changes in a rule once held is its count of hits and uses: taken now, for the whole list.
      const counts = rules.map(({ view }) => ({ hits: view.hits, remaining: view.remaining }))
      const scenarioText = JSON.stringify(scenarios.listed(named))
      function* write(): Work<Buffer> {
        const pieces: Buffer[] = []
        let text = '{"rules":['
        for (let i = 0; i < rules.length; i++) {
          // The rest of a view is never changed once held: written as it is, with its counts of then.
          text += `${i === 0 ? '' : ','}${JSON.stringify({ ...(rules[i] as HeldRule).view, ...counts[i] })}`
          if (text.length >= LIST_PIECE) {
            pieces.push(Buffer.from(text))
            text = ''
            yield
          }
        }
        pieces.push(Buffer.from(`${text}],"scenarios":${scenarioText}}`))
        return Buffer.concat(pieces)
      }
      return runSliced(write(), MATCH_SLICE_MS)
    },
    remove(id) {
      const rule = held.find((other) => other.view.id === id)
      if (rule === undefined) throw new ProblemError('NOT_FOUND', `There is no answer rule ${id}; GET /__mock/stubs lists the rules.`)
      drop(rule)
      return copyView(rule.view)
    },
    clear() {
      const count = held.length
      held = []
      holding.clear()
      bytes = 0
      byOperation.clear()
      everyOperation = []
      live = 0
      scenarios.clear()
      return count
    },
    hasRules: (operationId) =>
      live > 0 && (operationId === undefined || everyOperation.length > 0 || (operationId !== null && (byOperation.get(operationId)?.length ?? 0) > 0)),
    async decide(subject) {
      const own = subject.operationId === null ? [] : (byOperation.get(subject.operationId) ?? [])
      // Each list is replaced, never changed, when rules come and go: the request keeps the one it began with.
      const candidates = own.length === 0 ? everyOperation : everyOperation.length === 0 ? own : [...inTrialOrder(own, everyOperation, triedBefore)]
      const matched = new Map<HeldRule, boolean>()
      function* matchThenDecide(): Work<Decision> {
        yield* matchForDecision(states, candidates, matched, subject)
        // In the slice that ended the matching: nothing runs between the decision and its commit.
        return commit(decide(state, { point: 'answer', candidates, matched }))
      }
      return runSliced(matchThenDecide(), MATCH_SLICE_MS)
    },
  }
}
