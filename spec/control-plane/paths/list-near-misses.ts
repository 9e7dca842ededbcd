/** listNearMisses: the journal's requests closest to a pattern that did not match it. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { parameterRef, schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'

export const path = `${CONTROL_PREFIX}/requests/near-misses`
export const method = 'get'

export const operation: OperationObject = {
  operationId: 'listNearMisses',
  summary: 'Name the requests closest to a pattern',
  description:
    'What `mock.assertRequested()` says when it fails, for tests that are not in JavaScript: how many journaled requests match ' +
    '`operationId` and `match` (the parameters of `GET /__mock/requests`), and the closest of those that do not, each with ' +
    "its distance (0 exact, 1 nothing in common) and the members that differ (WireMock's near misses). Secrets are shown as `[redacted]`.",
  tags: ['Observation'],
  parameters: [parameterRef('JournalOperationId'), parameterRef('NearMissMatch'), parameterRef('NearMissLimit')],
  responses: {
    '200': jsonResponse('How many matched, and the closest others.', schemaRef('NearMissList'), {
      oneOff: {
        summary: 'A save of another customer',
        value: {
          matched: 0,
          total: 3,
          nearMisses: [
            {
              seq: 3,
              method: 'POST',
              path: '/ExplorerApi/api/items/save',
              operationId: 'saveItems',
              status: 200,
              user: 'admin@acme.test',
              distance: 0.5,
              differences: [{ pointer: '/body/Rows/0/Row/Customer', expected: '"Initech"', actual: '"Initek"' }],
            },
          ],
        },
      },
    }),
    ...errorResponses(400, 401),
  },
}
