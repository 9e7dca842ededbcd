/** unlockRows: unlock rows. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonBody, jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'

export const path = `${CONTROL_PREFIX}/locks`
export const method = 'delete'

export const operation: OperationObject = {
  operationId: 'unlockRows',
  summary: 'Unlock rows',
  description:
    "Unlocks rows of one table, fixture locks included, until the next reset or fixture load puts the fixture's back. Ids that " +
    'are not locked are passed over (`changed` counts the rows that were).',
  tags: ['Locks'],
  requestBody: jsonBody('The rows.', schemaRef('LockRequest'), {
    master: { summary: 'Unlock master row 2', value: { applicationId: 'a1b2c3d4-0000-4000-8000-000000000001', relationKey: null, ids: [2] } },
  }),
  responses: {
    '200': jsonResponse('Unlocked; every locked row now.', schemaRef('LockList'), {
      unlocked: { summary: 'Nothing locked any more', value: { changed: 1, locks: [] } },
    }),
    ...errorResponses(400, 401, 404, 507),
  },
}
