import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ProblemError } from '../../errors.ts'
import { createFaultTable, type FaultDecision, type FaultTable } from '../control/fault-table.ts'
import type { FaultEffect } from '../control/journal-store.ts'
import { recordExchange } from './journal.ts'

declare module 'fastify' {
  interface FastifyInstance {
    faults: FaultTable
  }
  interface FastifyRequest {
    /** The fault rule applied to this request; null for none (decorated null, set in onRequest). */
    mockFault: { effect: FaultEffect; ruleId: number; journaled: boolean } | null
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
 * hook collects the operationIds a rule may name.
 */
export function registerFaults(app: FastifyInstance, options: { randomSeed: () => number }): void {
  const operationIds = new Set<string>()
  const table = createFaultTable(options.randomSeed, operationIds)
  app.decorate('faults', table)
  app.decorateRequest('mockFault', null)
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

  app.addHook('onSend', (request, reply, payload, done) => {
    // The handler has run and its write is applied; only the answer is lost, as when a
    // network fails between server and client. Clients must then re-read, not blindly retry.
    if (request.mockFault?.effect === 'commitThenDrop') cut(request, reply)
    done(null, payload)
  })
}
