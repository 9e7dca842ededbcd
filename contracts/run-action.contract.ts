/** Run Action: the actions named by --action-id answer an action result. */
import type { Contract, ContractContext } from './types.ts'

export const result: Contract = {
  id: 'action.result',
  title: 'Each action named by --action-id answers an action result (Message, IsSuccessful, Result, IsAsync)',
  severity: 'medium',
  holdsTo: 'description',
  writes: true,
  needs: ['writes', 'action'],
  statements: ['action.run', 'resources.action-result'],
  data: 'each action --action-id names, run with no parameters',
  async run(ctx: ContractContext) {
    for (const actionId of ctx.target.actionIds) {
      const answer = await ctx.client.runAction(actionId)
      ctx.check(typeof answer.IsSuccessful === 'boolean' && typeof answer.Message === 'string', {
        expected: `an action result for ${actionId}`,
        received: ctx.show(answer),
      })
    }
  },
}

export const contracts = [result]
