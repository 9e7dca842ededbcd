/** getHealth: whether the mock is up, for scripts that wait for it. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'

export const path = `${CONTROL_PREFIX}/health`
export const method = 'get'

export const operation: OperationObject = {
  operationId: 'getHealth',
  summary: 'Health',
  description:
    'Answers 200 as soon as the mock serves requests: a script started the mock in the background waits for this. Served ' +
    'without a control token, and also with the control plane switched off.',
  tags: ['Documentation'],
  security: [{}],
  responses: {
    '200': jsonResponse('Up.', schemaRef('Health'), { up: { summary: 'Up', value: { status: 'ok', version: '0.2.0', productVersion: '3.0.19' } } }),
    ...errorResponses(414),
  },
}
