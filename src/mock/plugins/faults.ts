import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { ProblemError } from '../../errors.ts'
import { describeViolations } from '../../document/violations.ts'
import { warnOrRefuse } from '../../http/warn.ts'
import { createFaultTable, type ActiveFaultRule, type FaultDecision, type FaultTable } from '../control/fault-table.ts'
import { createAnswerRuleTable, type AnswerDecision, type AnswerRuleTable, type HeldRule } from '../control/answer-rules.ts'
import { createRuleList } from '../control/rule-table.ts'
import { mergePatch } from '../control/answer-check.ts'
import type { FaultEffect } from '../control/journal-store.ts'
import { recordExchange } from './journal.ts'

declare module 'fastify' {
  interface FastifyInstance {
    faults: FaultTable
    answerRules: AnswerRuleTable
  }
  interface FastifyRequest {
    /** The fault rule applied to this request; null for none (decorated null, set in onRequest). */
    mockFault: { effect: FaultEffect; ruleId: number; journaled: boolean } | null
    /** The answer rule that answered this request or patches its answer; null for none (decorated null). */
    mockAnswer: { ruleId: number; patch: { value: unknown } | null } | null
  }
}

/**
 * The problem a `status` fault answers with: code INJECTED_FAULT, with the rule's status
 * instead of the catalog's 503, so a test can fail a call with any 4xx or 5xx.
 */
export class InjectedFault extends ProblemError {
  override readonly status: number

  constructor(status: number, detail: string, ruleId: number) {
    super('INJECTED_FAULT', detail, { rule: ruleId })
    this.status = status
  }
}

function effectOf(decision: FaultDecision): FaultEffect {
  return decision.action === null ? 'latency' : decision.action.kind
}

/** Cuts the connection with no answer; the journal records the request with status null. */
function cut(request: FastifyRequest, reply: FastifyReply): void {
  if (request.mockFault !== null) request.mockFault.journaled = true
  recordExchange(request, reply, null)
  request.raw.socket?.destroy()
}

/**
 * Fault injection for the API routes (`POST /__mock/faults`), keyed by the route's operationId:
 * added latency, an error status, a dropped connection before handling, or a connection cut
 * after the handler has written (commitThenDrop). Control-plane routes have no operationId, so
 * no rule can lock a test out of clearing the rules. Register before the routes: the onRoute
 * hook collects the operationIds a rule may name. Also the answer rules (`POST /__mock/stubs`),
 * in the same table, checked against `document` (the release's, which the routes are made from)
 * and applied by the request path's answer step (`answerHook`).
 */
export function registerFaults(app: FastifyInstance, options: { randomSeed: () => number; document: OpenAPIObject }): void {
  const operationIds = new Set<string>()
  // One table holds both kinds of rules (rule-table.ts): fault rules first, then answer rules.
  const rules = createRuleList<ActiveFaultRule, HeldRule>()
  const table = createFaultTable(options.randomSeed, operationIds, rules)
  const answers = createAnswerRuleTable(options.document, rules)
  app.decorate('faults', table)
  app.decorate('answerRules', answers)
  app.decorate('answerHook', { hasRules: answers.hasRules, apply: (request: FastifyRequest, reply: FastifyReply) => applyAnswerRule(answers, request, reply) })
  app.decorateRequest('mockFault', null)
  app.decorateRequest('mockAnswer', null)
  app.addHook('onRoute', (route) => {
    const operationId = route.config?.operationId
    if (typeof operationId === 'string') operationIds.add(operationId)
  })

  // Callback style, not async: with no rules this hook costs one call.
  app.addHook('onRequest', (request, reply, done) => {
    // No rule: nothing to look up (Fastify builds a new routeOptions object at each read).
    if (!table.hasRules()) return done()
    const operationId = request.routeOptions.config?.operationId
    const decision = operationId === undefined ? null : table.decide(operationId)
    if (decision === null) return done()
    request.mockFault = { effect: effectOf(decision), ruleId: decision.ruleId, journaled: false }
    // A cut after the handler needs the onSend hook below, so no page skips it as a ready answer.
    request.answerThroughHooks = true
    const act = (): void => {
      const action = decision.action
      if (action?.kind === 'status') {
        return done(new InjectedFault(action.status, `Fault rule ${decision.ruleId} answers ${request.method} ${operationId} with ${action.status}.`, decision.ruleId))
      }
      if (action?.kind === 'drop') {
        // Hijacked, Fastify sends nothing more; the request is never handled.
        reply.hijack()
        cut(request, reply)
        return done()
      }
      done()
    }
    if (decision.latencyMs > 0) setTimeout(act, decision.latencyMs)
    else act()
  })
}

/**
 * The one onSend hook both kinds of rules need: the cut of a `commitThenDrop` fault, the merge
 * patch of an answer rule. Registered apart from `registerFaults`, before the journal: the journal
 * keeps the answer as patched, while its in-flight mark (onRequest) still comes before a fault's delay.
 */
export function registerRuleAnswers(app: FastifyInstance): void {
  app.addHook('onSend', (request, reply, payload, done) => {
    // The handler has run and its write is applied; only the answer is lost, as when a
    // network fails between server and client. Clients must then re-read, not blindly retry.
    if (request.mockFault?.effect === 'commitThenDrop') cut(request, reply)
    const patch = request.mockAnswer?.patch
    if (patch !== undefined && patch !== null) return done(null, patched(reply, payload, patch.value))
    done(null, payload)
  })
}

/**
 * The answer rule step (src/http/steps.ts, `consultAnswerRules`): after authentication and the
 * request check, before authorization and the handler. A whole answer is sent here and nothing
 * is performed; a patch marks the request so its answer goes through the onSend hook above.
 */
function applyAnswerRule(table: AnswerRuleTable, request: FastifyRequest, reply: FastifyReply): void | Promise<void | 'answered'> {
  // A fault that answers, cuts or drops the request has taken it; a delay alone has not.
  if (request.mockFault !== null && request.mockFault.effect !== 'latency') return
  const operationId = request.routeOptions.config?.operationId ?? null
  const decision = table.decide({ operationId, body: request.sentBody ?? request.body, headers: request.headers, user: request.principal?.user.email ?? null })
  if (decision === null) return
  if (decision.offDocument.length > 0) {
    warnOrRefuse(request, 'OFF_DOCUMENT_ANSWER', `Answer rule ${decision.ruleId} gave an answer the served document cannot: ${describeViolations(decision.offDocument)}.`)
  }
  if (decision.kind !== 'whole') {
    request.mockAnswer = { ruleId: decision.ruleId, patch: decision.kind === 'patch' ? { value: decision.patch } : null }
    // A page kept as ready bytes must go through the hook that patches it.
    if (decision.kind === 'patch') request.answerThroughHooks = true
    return decision.delayMs > 0 ? new Promise((resolve) => setTimeout(resolve, decision.delayMs)) : undefined
  }
  request.mockAnswer = { ruleId: decision.ruleId, patch: null }
  if (decision.delayMs === 0) {
    sendWhole(reply, decision)
    return Promise.resolve('answered')
  }
  return new Promise((resolve) =>
    setTimeout(() => {
      sendWhole(reply, decision)
      resolve('answered')
    }, decision.delayMs),
  )
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
