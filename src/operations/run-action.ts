import type { FastifyReply, FastifyRequest } from 'fastify'
import { ProblemError } from '../errors.ts'
import { applicationOf, principalOf, requireWriter } from './context.ts'

type Parameter = { Name: 'ProcedureName'; Value: string } | { Name: 'Parameters'; Value: Array<{ key: string; value: string }> }

/**
 * Runs a custom action of the fixture. `ProcedureName`, when sent, must be the action's stored
 * procedure; `Parameters` go to the action's effect, which may change rows as a procedure would.
 */
export async function runAction(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
  const application = applicationOf(request)
  const body = request.body as { actionId: string; parametersMap: Parameter[] }
  const action = request.server.store.fixture.actions.find((a) => a.id === body.actionId)
  if (action === undefined) throw new ProblemError('UNKNOWN_ACTION', `No custom action ${body.actionId}.`)
  const procedure = body.parametersMap.find((p) => p.Name === 'ProcedureName')
  if (procedure !== undefined && procedure.Value !== action.procedureName) {
    throw new ProblemError('BAD_ACTION_PARAMETERS', `Action ${action.id} runs "${action.procedureName}", not "${String(procedure.Value)}".`)
  }
  // An action that changes rows is a write: the read-only user may only run the others.
  const { user } = action.effect === undefined ? principalOf(request) : requireWriter(request)
  const parameters = body.parametersMap.flatMap((p) => (p.Name === 'Parameters' ? p.Value : []))
  const outcome = request.server.store.runAction({ applicationId: application.id, actionId: action.id, userId: user.id, parameters })
  if ('error' in outcome) throw new ProblemError('UNKNOWN_ACTION', outcome.message)
  return reply.send({ Message: outcome.message, IsSuccessful: outcome.isSuccessful, Result: outcome.result, IsAsync: outcome.isAsync })
}
