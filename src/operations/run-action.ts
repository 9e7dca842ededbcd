import type { FastifyRequest } from 'fastify'
import type { ApiBody, OperationHandler } from '../wire/operations.ts'
import type { ActionDef } from '../store/model/types.ts'
import { ProblemError } from '../errors.ts'
import { warnOrRefuse } from '../http/warn.ts'
import { guidKey } from '../store/guid.ts'
import { applicationOf, epochOf, principalOf, requireWriter, storeProblem } from '../http/context.ts'

type Parameter = ApiBody<'runAction'>['parametersMap'][number]
type ProcedureName = Extract<Parameter, { Name: 'ProcedureName' }>
type Parameters = Extract<Parameter, { Name: 'Parameters' }>

const isProcedureName = (p: Parameter): p is ProcedureName => p.Name === 'ProcedureName'
const isParameters = (p: Parameter): p is Parameters => p.Name === 'Parameters'

/**
 * A stored procedure's name as SQL Server resolves it: case-insensitive, brackets and the default
 * `dbo` schema left out, so `[dbo].[USP_RecalculateTotals]` names `usp_RecalculateTotals`.
 */
function procedureKey(name: string): string {
  return name
    .replace(/[[\]]/g, '')
    .trim()
    .toLowerCase()
    .replace(/^dbo\./, '')
}

/** The action the body names; 404 when the fixture has none of that Id. */
function actionOf(request: FastifyRequest<{ Body: ApiBody<'runAction'> }>): ActionDef {
  const actionId = guidKey(request.body.actionId)
  const action = request.server.store.fixture.actions.find((a) => a.id === actionId)
  if (action === undefined) throw new ProblemError('UNKNOWN_ACTION', `No custom action ${request.body.actionId}.`)
  return action
}

/**
 * What running an action needs: an application of the workspace, an action the installation has,
 * and, for an action that changes rows (a write), a user who may write; the read-only user may
 * run the others.
 */
export const authorizeAction = (request: FastifyRequest): void => {
  applicationOf(request)
  const action = actionOf(request as FastifyRequest<{ Body: ApiBody<'runAction'> }>)
  if (action.effect !== undefined) requireWriter(request)
}

/**
 * Runs a custom action of the fixture, the one `actionId` names. `ProcedureName` and
 * `Parameters` are the description's known entries: a different procedure name, other entries
 * and null parameter values are accepted with warnings. `Parameters` go to the action's effect,
 * which may change rows as a procedure would.
 */
export const runAction: OperationHandler<'runAction'> = async (request, reply) => {
  const application = applicationOf(request)
  const body = request.body
  const action = actionOf(request)
  const procedure = body.parametersMap.find(isProcedureName)
  if (procedure !== undefined && procedureKey(procedure.Value) !== procedureKey(action.procedureName)) {
    warnOrRefuse(request, 'PROCEDURE_NAME_MISMATCH', `Action ${action.id} runs "${action.procedureName}"; ProcedureName was "${procedure.Value}".`)
  }
  const others = body.parametersMap.filter((p) => p.Name !== 'ProcedureName' && p.Name !== 'Parameters').map((p) => p.Name)
  if (others.length > 0)
    warnOrRefuse(
      request,
      'UNKNOWN_ACTION_PARAMETER',
      `The parametersMap entr${others.length > 1 ? 'ies' : 'y'} ${others.join(', ')} ${others.length > 1 ? 'were' : 'was'} ignored.`,
    )
  const parameters = body.parametersMap.filter(isParameters).flatMap((p) => p.Value)
  const nulls = parameters.filter((p) => p.value === null).map((p) => p.key)
  if (nulls.length > 0) warnOrRefuse(request, 'NULL_PARAMETER_VALUE', `Parameter${nulls.length > 1 ? 's' : ''} ${nulls.join(', ')} had the value null.`)
  const { user } = principalOf(request)
  const outcome = request.server.store.runAction({
    epoch: epochOf(request),
    applicationId: application.id,
    actionId: action.id,
    userId: user.id,
    parameters: parameters.map(({ key, value }) => ({ key, value: value ?? '' })),
  })
  if ('error' in outcome) throw storeProblem(outcome)
  return reply.send({ Message: outcome.message, IsSuccessful: outcome.isSuccessful, Result: outcome.result, IsAsync: outcome.isAsync })
}
