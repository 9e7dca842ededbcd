/** clearEmails: empty the e-mail outbox. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'

export const path = `${CONTROL_PREFIX}/emails`
export const method = 'delete'

export const operation: OperationObject = {
  operationId: 'clearEmails',
  summary: 'Empty the e-mail outbox',
  description: 'Removes every queued e-mail.',
  tags: ['Observation'],
  responses: {
    '200': jsonResponse('Emptied.', schemaRef('Cleared'), { cleared: { summary: 'Two removed', value: { cleared: 2 } } }),
    ...errorResponses(401),
  },
}
