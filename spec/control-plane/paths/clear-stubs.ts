/** clearStubs: remove every answer rule. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'

export const path = `${CONTROL_PREFIX}/stubs`
export const method = 'delete'

export const operation: OperationObject = {
  operationId: 'clearStubs',
  summary: 'Remove the answer rules',
  description: 'Removes every answer rule and every scenario state (scenarios start again in `Started`); fault rules stay.',
  tags: ['Answer rules'],
  responses: {
    '200': jsonResponse('Removed.', schemaRef('Cleared'), { cleared: { summary: 'Two removed', value: { cleared: 2 } } }),
    ...errorResponses(401),
  },
}
