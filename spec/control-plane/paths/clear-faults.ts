/** clearFaults: remove every fault rule. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'

export const path = `${CONTROL_PREFIX}/faults`
export const method = 'delete'

export const operation: OperationObject = {
  operationId: 'clearFaults',
  summary: 'Remove the fault rules',
  description: 'Removes every fault rule; requests are handled normally again.',
  tags: ['Faults'],
  responses: {
    '200': jsonResponse('Removed.', schemaRef('Cleared'), { cleared: { summary: 'One removed', value: { cleared: 1 } } }),
    ...errorResponses(401),
  },
}
