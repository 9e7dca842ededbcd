import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { ProblemError } from '../../errors.ts'
import { describeViolations } from '../../document/violations.ts'
import { noteWarning, warnOrRefuse } from '../../http/warn.ts'
import { addPayloadChange } from '../../http/ready-answer.ts'
import type { RouteStep } from '../../http/steps.ts'
import { createRuleTable, type RuleTable } from '../../rules/table.ts'
import { effectOf, type FaultDecision, type FaultEffect } from '../../rules/faults.ts'
import type { AnswerDecision } from '../../rules/answers.ts'
import { mergePatch } from '../../rules/answer-check.ts'
import { recordExchange } from './journal.ts'
import type { Holds } from './holds.ts'

declare module 'fastify' {
  interface FastifyInstance {
    /** The mock's fault and answer rules (src/rules/). */
    rules: RuleTable
  }
  interface FastifyRequest {
    /** What the rules did to this request; null for nothing (decorated null, set by this plugin alone). */
    rule: RuleMark | null
  }
}

/** What the rules did to one request: what the journal records, and what its answer still needs. */
export interface RuleMark {
  /** The fault rule's effect on arrival; null for none. */
  fault: FaultEffect | null
  /** The answer rule that answered this request or patches its answer; null for none. */
  answerRule: number | null
  /** The merge patch an answer rule applies to the operation's own answer; null for none. */
  patch: { value: unknown } | null
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

/** Cuts the connection with no answer; the journal records the request with status null. */
function cut(request: FastifyRequest, reply: FastifyReply): void {
  recordExchange(request, reply, null)
  request.raw.socket?.destroy()
}

/**
 * The one adapter between the rules (src/rules/, no Fastify) and the mock. It decorates
 * `app.rules` and wires the table into the request path at its three points, each at most once
 * per request (a wait, a fault's latency or a rule's delay, is a hold of `app.holds`, which a
 * client that leaves, a reset or a close ends early: holds.ts):
 * - on arrival (onRequest), the fault rules, by operation only: a fault must be able to fail,
 *   drop or slow a request before it is authenticated or its body read, as an infrastructure does;
 * - the answer-rule step it returns, which the routes run after authentication, the request check
 *   and authorization (so a rule never answers a request the mock refuses anyway): a whole answer
 *   is sent there and nothing is performed; a patch is kept on the request's mark;
 * - a payload change (http/ready-answer.ts), which the answer's one onSend hook runs before the
 *   hooks that read answers: the cut of a `commitThenDrop` fault, the merge patch of an answer rule.
 * What it did to a request is the request's `rule` mark alone. Register before the routes.
 */
export function registerRules(app: FastifyInstance, options: { randomSeed: () => number; document: OpenAPIObject; strict: boolean; holds: Holds }): RouteStep {
  const { holds } = options
  const table = createRuleTable(options)
  app.decorate('rules', table)
  app.decorateRequest('rule', null)

  // Callback style, not async: with no rules this hook costs one call.
  app.addHook('onRequest', (request, reply, done) => {
    // No rule: nothing to look up (Fastify builds a new routeOptions object at each read).
    if (!table.faults.hasRules()) return done()
    const operationId = request.routeOptions.config?.operationId
    if (operationId === undefined) return done()
    const decision = table.faults.decide(operationId)
    if (decision === null) return done()
    request.rule = { fault: effectOf(decision), answerRule: null, patch: null }
    const act = (): void => {
      const action = decision.action
      if (action?.kind === 'status') return done(faultAnswer(request, reply, action, decision.ruleId, operationId))
      if (action?.kind === 'drop') {
        // Hijacked, Fastify sends nothing more; the request is never handled.
        reply.hijack()
        cut(request, reply)
        return done()
      }
      done()
    }
    if (decision.latencyMs > 0) holds.hold(request, reply, decision.latencyMs, { release: act, refuse: (error) => done(error), stop: () => done() })
    else act()
  })

  addPayloadChange(app, {
    applies: (request) => request.rule !== null && (request.rule.fault === 'commitThenDrop' || request.rule.patch !== null),
    change(request, reply, payload) {
      const mark = request.rule as RuleMark
      // The handler has run and its write is applied; only the answer is lost, as when a
      // network fails between server and client. Clients must then re-read, not blindly retry.
      if (mark.fault === 'commitThenDrop') cut(request, reply)
      return mark.patch === null ? payload : patched(reply, payload, mark.patch.value)
    },
  })

  return function answerRules(request, reply) {
    if (!table.answers.hasRules()) return
    // A fault that answers, cuts or drops the request has taken it; a delay alone has not.
    const mark = request.rule
    if (mark !== null && mark.fault !== 'latency') return
    const operationId = request.routeOptions.config?.operationId ?? null
    const decided = table.answers.decide({ operationId, body: request.sentBody ?? request.body, headers: request.headers, user: request.principal?.user.email ?? null })
    // A large request is matched in slices: the step waits for the match, and other clients are answered meanwhile.
    if (decided instanceof Promise) return decided.then((decision) => (decision === null ? undefined : apply(request, reply, decision, held)))
    return decided === null ? undefined : apply(request, reply, decided, held)
  } satisfies RouteStep

  /** The route step's wait: `then` when it is over; 'answered' (nothing more to do) when the client left or the mock closes. */
  function held(request: FastifyRequest, reply: FastifyReply, ms: number, then: () => void | 'answered'): Promise<void | 'answered'> {
    return new Promise((resolve, reject) => holds.hold(request, reply, ms, { release: () => resolve(then()), refuse: reject, stop: () => resolve('answered') }))
  }
}

/** What an answer rule does to the request it answers: a warning, a mark, a wait, a whole answer sent. */
function apply(request: FastifyRequest, reply: FastifyReply, decision: AnswerDecision, held: Held): void | Promise<void | 'answered'> {
  if (decision.offDocument.length > 0) {
    warnOrRefuse(request, 'OFF_DOCUMENT_ANSWER', `Answer rule ${decision.ruleId} gave an answer the served document cannot: ${describeViolations(decision.offDocument)}.`)
  }
  if (decision.gateway && decision.kind === 'whole') {
    noteWarning(request, 'INFRASTRUCTURE_ANSWER', `Answer rule ${decision.ruleId} answered ${decision.answer.status}, a gateway status.`)
  }
  request.rule = { fault: request.rule?.fault ?? null, answerRule: decision.ruleId, patch: decision.kind === 'patch' ? { value: decision.patch } : null }
  if (decision.kind !== 'whole') return decision.delayMs > 0 ? held(request, reply, decision.delayMs, () => undefined) : undefined
  if (decision.delayMs === 0) {
    sendWhole(reply, decision)
    return Promise.resolve('answered' as const)
  }
  return held(request, reply, decision.delayMs, () => {
    sendWhole(reply, decision)
    return 'answered'
  })
}

/** A wait of an answer rule's `delayMs`, as a hold (holds.ts): `then` runs when it ends in time. */
type Held = (request: FastifyRequest, reply: FastifyReply, ms: number, then: () => void | 'answered') => Promise<void | 'answered'>

/**
 * The answer of a `status` fault: its headers on the reply, its warning recorded (a gateway
 * status's INFRASTRUCTURE_ANSWER, which strict mode never refuses; an off-document status's
 * OFF_DOCUMENT_ANSWER, which a request in strict mode gets as STRICT_MODE instead), and the
 * INJECTED_FAULT problem for the error handler to send.
 */
function faultAnswer(request: FastifyRequest, reply: FastifyReply, action: FaultDecision['action'] & { kind: 'status' }, ruleId: number, operationId: string): ProblemError {
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
