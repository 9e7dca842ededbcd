/** clearRequests: empty the request journal. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'

export const path = `${CONTROL_PREFIX}/requests`
export const method = 'delete'

export const operation: OperationObject = {
  operationId: 'clearRequests',
  summary: 'Empty the request journal',
  description: 'Removes every journal entry; `recorded` and `evicted` start again from zero.',
  tags: ['Observation'],
  responses: {
    '200': jsonResponse('Emptied.', schemaRef('Cleared'), { cleared: { summary: 'All removed', value: { cleared: 42 } } }),
    ...errorResponses(401),
  },
}
