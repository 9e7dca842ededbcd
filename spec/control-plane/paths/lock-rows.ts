/** lockRows: lock rows as if another user had them open. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonBody, jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { LOCK_EXAMPLE, LOCKS_DESCRIPTION } from './list-locks.ts'

export const path = `${CONTROL_PREFIX}/locks`
export const method = 'post'

export const operation: OperationObject = {
  operationId: 'lockRows',
  summary: 'Lock rows',
  description: `Locks rows of one table, as if another user had them open. ${LOCKS_DESCRIPTION} Every Id must be a row of the table (404 \`UNKNOWN_ROW\` naming the others, and nothing is locked); locking a row already locked changes nothing.`,
  tags: ['Locks'],
  requestBody: jsonBody('The rows.', schemaRef('LockRequest'), {
    master: { summary: 'Lock master row 2', value: { applicationId: 'a1b2c3d4-0000-4000-8000-000000000001', ids: [2] } },
    detail: { summary: 'Lock two detail rows', value: { applicationId: 'a1b2c3d4-0000-4000-8000-000000000001', relationKey: 'OrderLines', ids: [3, 4] } },
  }),
  responses: {
    '200': jsonResponse('Locked; every locked row now.', schemaRef('LockList'), { locked: { summary: 'Master row 2 locked', value: LOCK_EXAMPLE } }),
    ...errorResponses(400, 401, 404, 507),
  },
}
