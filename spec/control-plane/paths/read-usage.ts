/** readUsage: what clients used of the API, recorded with --record-usage. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'

export const path = `${CONTROL_PREFIX}/usage`
export const method = 'get'

const example = {
  appdataKitUsage: 1,
  interactions: [
    {
      operation: 'queryItems',
      release: '3.0.19',
      request: {
        auth: 'session-token',
        contentType: 'application/json',
        headers: ['ApplicationId', 'SessionToken', 'WorkspaceId'],
        query: { filter: 'Status eq <string>', orderBy: 'Customer asc', top: 10 },
      },
      count: 3,
      answers: {
        '200': {
          count: 3,
          body: { type: 'array', items: { type: 'object', fields: { Customer: 'string', Id: 'integer', Status: 'string', TIMESTAMP: 'string' } } },
        },
      },
    },
  ],
}

export const operation: OperationObject = {
  operationId: 'readUsage',
  summary: 'Read the recorded usage',
  description:
    'What clients used of the API since the mock started, as the `--record-usage` file holds it (written at stop): shapes, never values or secrets. ' +
    'Answers 404 when the mock was started without `--record-usage` (`MOCK_RECORD_USAGE`, `startMock({ recordUsage })`). A reset keeps it.',
  tags: ['Observation'],
  responses: {
    '200': jsonResponse('The usage so far.', schemaRef('Usage'), { one: { summary: 'One read interaction', value: example } }),
    ...errorResponses(401, 404),
  },
}
