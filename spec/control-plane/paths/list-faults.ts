/** listFaults: the active fault rules with their counters. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'

export const path = `${CONTROL_PREFIX}/faults`
export const method = 'get'

export const operation: OperationObject = {
  operationId: 'listFaults',
  summary: 'Read the fault rules',
  description: 'The active fault rules with how often each has applied and how many applications it has left.',
  tags: ['Faults'],
  responses: {
    '200': jsonResponse('The rules.', schemaRef('FaultList'), {
      one: {
        summary: 'A failing save',
        value: { seed: 7, rules: [{ id: 1, operationId: 'saveItems', status: 503, rate: 1, times: 2, remaining: 1, applied: 1 }] },
      },
    }),
    ...errorResponses(401),
  },
}
