import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { ProblemError } from '../../errors.ts'
import { describeViolations } from '../../document/violations.ts'
import { noteWarning, warnOrRefuse } from '../../http/warn.ts'
import { changeAnswer } from '../../http/ready-answer.ts'
import type { RouteStep } from '../../http/steps.ts'
import { createRuleTable, type RuleTable } from '../../rules/table.ts'
import { effectOf, type FaultDecision, type FaultEffect } from '../../rules/faults.ts'
import type { AnswerDecision } from '../../rules/answers.ts'
import type { Decision } from '../../rules/decide.ts'
import { mergePatch } from '../../rules/answer-check.ts'
import { endUnanswered } from './journal.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The mock's fault and answer rules (src/rules/). */
    rules: RuleTable
  }
  interface FastifyRequest {
    /**
     * What the rules did to this request, for its journal entry (decorated null: no rule took it).
     * Written by `applyDecision` alone, each member once, at the point that decided it; read by the
     * journal alone (plugins/journal.ts), when it records the exchange. Nothing else reads it: what
     * a decision still asks of the answer is handed to the answer itself (`changeAnswer`).
     */
    ruleOutcome: RuleOutcome | null
  }
}

/** What the rules did to one request, as the journal records it. */
export interface RuleOutcome {
  /** The fault rule's effect on arrival; null for none. */
  fault: FaultEffect | null
  /** The answer rule that took this request (a whole answer, a patch, its own answer after a delay); null for none. */
  answerRule: number | null
}

/**
 * The problem a `status` fault answers with: code INJECTED_FAULT, with the rule's status
 * instead of the catalog's 503, so a test can fail a call with the status it asks for.
 */
export class InjectedFault extends ProblemError {
  override readonly status: number

  constructor(status: number, detail: string, ruleId: number) {
    super('INJECTED_FAULT', detail, { rule: ruleId })
    this.status = status
  }
}

/**
 * Closes the connection with no answer, and hands the journal that ending: Fastify runs no
 * onResponse for an answer it never finished writing, so this is the exchange's one entry.
 */
function cut(request: FastifyRequest, reply: FastifyReply): void {
  request.raw.socket?.destroy()
  endUnanswered(request, reply, 'cut')
}

/**
 * The one adapter between the rules (src/rules/, no Fastify) and the mock: it decorates
 * `app.rules` and asks the table at the request's two points, then applies what the table decided
 * in one place, `applyDecision`. docs/request-path.md, "Answer rules in the request path", tells
 * the whole decision; in short:
 * - on arrival (onRequest), the fault rules, by operation only;
 * - in `applyAnswerRules` (`answerRuleStep`), the route step the routes run last before the handler, the answer rules.
 * Register before the routes.
 */
export function registerRules(app: FastifyInstance, options: { randomSeed: () => number; document: OpenAPIObject; strict: boolean }): void {
  const table = createRuleTable(options)
  app.decorate('rules', table)
  app.decorateRequest('ruleOutcome', null)

  // Callback style, not async: with no rules this hook costs one call.
  app.addHook('onRequest', (request, reply, done) => {
    // No rule: nothing to look up (Fastify builds a new routeOptions object at each read).
    if (!table.faults.hasRules()) return done()
    const operationId = request.routeOptions.config?.operationId
    if (operationId === undefined) return done()
    const decision = table.faults.decide(operationId)
    if (decision.kind === 'pass') return done()
    // Answered, cut or released, the request goes on as far as its reply lets it (a hijacked one no further).
    applyDecision(request, reply, decision).then(() => done(), done)
  })
}

/**
 * The answer-rule step of `table` (a `RouteStep`, `applyAnswerRules`), which the routes run after
 * authentication, the request check and authorization, last before the handler: so a rule never
 * answers a request the mock refuses anyway, sees the signed-in user and a body that fits the
 * document, and a whole answer performs nothing. A call and a boolean while no answer rule is set
 * for the request's operation or for every operation (the table is held, not read from the request):
 * no decision, no promise, no turn of the event loop.
 */
export function answerRuleStep(table: RuleTable): RouteStep {
  return function applyAnswerRules(request, reply) {
    const operationId = request.routeOptions.config?.operationId ?? null
    if (!table.answers.hasRules(operationId)) return
    // A fault that cuts the answer (commitThenDrop) has taken the request: the infrastructure lost
    // the answer, whatever the installation would have said. (One that failed or dropped it never
    // comes this far; one that only delayed it leaves the answer rules their turn.)
    if (reply.answerChange !== null) return
    const subject = { operationId, body: request.sentBody ?? request.body, headers: request.headers, user: request.principal?.user.email ?? null }
    // Matched in slices: the step waits for the decision, and other clients are answered meanwhile.
    return table.answers.decide(subject).then((decision) => applyDecision(request, reply, decision))
  }
}

/**
 * Applies a decision of the rules to its request, at either point, and hands its outcome to the
 * journal (`request.ruleOutcome`): the one place that does what a decision says. Resolves when the
 * request may go on, or with 'answered' when nothing more is to be done (a whole answer sent, the
 * connection cut, a hold's client gone, the mock closing); rejects with the problem to answer (an
 * INJECTED_FAULT, 503 DATA_REPLACED when a reset ended a hold, STRICT_MODE for an off-document
 * answer in strict mode).
 */
async function applyDecision(request: FastifyRequest, reply: FastifyReply, decision: Decision): Promise<undefined | 'answered'> {
  switch (decision.kind) {
    case 'pass':
      return
    case 'delay':
      if (decision.fault !== null) noteFault(request, decision.fault)
      if (decision.rule !== null) noteAnswerRule(request, decision.rule)
      return decision.ms > 0 && !(await waitOut(request, reply, decision.ms)) ? 'answered' : undefined
    case 'fault': {
      const { fault } = decision
      noteFault(request, fault)
      if (fault.latencyMs > 0 && !(await waitOut(request, reply, fault.latencyMs))) return 'answered'
      const operationId = request.routeOptions.config?.operationId as string
      if (fault.action.kind === 'status') throw faultAnswer(request, reply, fault.action, fault.ruleId, operationId)
      if (fault.action.kind === 'drop') {
        // Hijacked, Fastify sends nothing more; the request is never handled.
        reply.hijack()
        cut(request, reply)
        return 'answered'
      }
      // The handler runs and its write is applied; only the answer is lost, as when a network
      // fails between server and client. Clients must then re-read, not blindly retry.
      changeAnswer(reply, (changed, changedReply, payload) => {
        cut(changed, changedReply)
        return payload
      })
      return
    }
    case 'answer': {
      const { rule } = decision
      noteAnswerRule(request, rule)
      if (rule.delayMs > 0 && !(await waitOut(request, reply, rule.delayMs))) return 'answered'
      sendWhole(reply, rule)
      return 'answered'
    }
    case 'patch': {
      const { rule } = decision
      noteAnswerRule(request, rule)
      changeAnswer(reply, (_request, patchedReply, payload) => patched(patchedReply, payload, rule.patch))
      return rule.delayMs > 0 && !(await waitOut(request, reply, rule.delayMs)) ? 'answered' : undefined
    }
  }
}

/** The arrival point's part of the outcome: it comes first, so it makes the record. */
function noteFault(request: FastifyRequest, fault: FaultDecision): void {
  request.ruleOutcome = { fault: effectOf(fault), answerRule: null }
}

/** The answer rule's part of the outcome, and the warnings its answer carries. */
function noteAnswerRule(request: FastifyRequest, rule: AnswerDecision): void {
  if (rule.offDocument.length > 0) {
    warnOrRefuse(
      request,
      'OFF_DOCUMENT_ANSWER',
      `Answer rule ${rule.ruleId} gave an answer the served document cannot: ${describeViolations(rule.offDocument)}.`,
    )
  }
  if (rule.gateway && rule.kind === 'whole') {
    noteWarning(request, 'INFRASTRUCTURE_ANSWER', `Answer rule ${rule.ruleId} answered ${rule.answer.status}, a gateway status.`)
  }
  // The answer point's part: the record a fault's delay made on arrival, or a new one.
  if (request.ruleOutcome === null) request.ruleOutcome = { fault: null, answerRule: rule.ruleId }
  else request.ruleOutcome.answerRule = rule.ruleId
}

/**
 * A rule's wait (a fault's latency, an answer rule's delay) as a hold (holds.ts): true when it is
 * over and the request goes on; false when the client left or the mock closes (the reply is
 * hijacked then); a rejection with 503 DATA_REPLACED when a reset or fixture load ended it.
 */
function waitOut(request: FastifyRequest, reply: FastifyReply, ms: number): Promise<boolean> {
  return new Promise((resolve, reject) =>
    request.server.holds.hold(request, reply, ms, { release: () => resolve(true), refuse: reject, stop: () => resolve(false) }),
  )
}

/**
 * The answer of a `status` fault: its headers on the reply, its warning recorded (a gateway
 * status's INFRASTRUCTURE_ANSWER, which strict mode never refuses; an off-document status's
 * OFF_DOCUMENT_ANSWER, which a request in strict mode gets as STRICT_MODE instead), and the
 * INJECTED_FAULT problem for the error handler to send.
 */
function faultAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  action: FaultDecision['action'] & { kind: 'status' },
  ruleId: number,
  operationId: string,
): ProblemError {
  const said = `Fault rule ${ruleId} answers ${request.method} ${operationId} with ${action.status}`
  try {
    if (action.standing === 'gateway') noteWarning(request, 'INFRASTRUCTURE_ANSWER', `${said}, a gateway status.`)
    else if (action.standing === 'offDocument') warnOrRefuse(request, 'OFF_DOCUMENT_ANSWER', `${said}, a status its document does not list.`)
  } catch (error) {
    return error as ProblemError
  }
  for (const [name, value] of Object.entries(action.headers)) reply.header(name, value)
  return new InjectedFault(action.status, `${said}.`, ruleId)
}

function sendWhole(reply: FastifyReply, decision: AnswerDecision & { kind: 'whole' }): void {
  const { status, headers, payload } = decision.answer
  reply.code(status)
  for (const [name, value] of Object.entries(headers)) reply.header(name, value)
  if (payload === null) reply.send()
  else reply.send(payload)
}

/** The answer with the merge patch applied, when it is a 2xx JSON answer; any other answer as it was. */
function patched(reply: FastifyReply, payload: unknown, patch: unknown): unknown {
  if (reply.statusCode < 200 || reply.statusCode > 299) return payload
  const type = String(reply.getHeader('content-type') ?? '')
  if (!/json/i.test(type)) return payload
  const text = typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : undefined
  if (text === undefined) return payload
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return payload
  }
  return JSON.stringify(mergePatch(parsed, patch))
}
