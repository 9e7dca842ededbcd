/** setFaults: replace all fault rules. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonBody, jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'

export const path = `${CONTROL_PREFIX}/faults`
export const method = 'post'

export const operation: OperationObject = {
  operationId: 'setFaults',
  summary: 'Set the fault rules',
  description:
    'Replaces all fault rules. A rule slows down, fails, or cuts the connection of requests to one API operation (or all ' +
    'of them with `*`), always or with a probability, for ever or a number of times. An `operationId` the emulated release ' +
    'does not have is refused.',
  tags: ['Faults'],
  requestBody: jsonBody('The rules.', schemaRef('FaultRuleSet'), {
    failTwice: { summary: 'Two failing saves', value: { rules: [{ operationId: 'saveItems', status: 503, times: 2 }] } },
    slowAndFlaky: {
      summary: 'Every call slow, a third of reads cut',
      value: {
        seed: 7,
        rules: [
          { operationId: 'queryItems', drop: true, rate: 0.33 },
          { operationId: '*', latencyMs: 250 },
        ],
      },
    },
    lostAnswer: { summary: 'Save applied, answer lost', value: { rules: [{ operationId: 'saveItems', commitThenDrop: true, times: 1 }] } },
  }),
  responses: {
    '200': jsonResponse('The rules now active.', schemaRef('FaultList'), {
      set: {
        summary: 'Two failing saves',
        value: { seed: 7, rules: [{ id: 1, operationId: 'saveItems', status: 503, rate: 1, times: 2, remaining: 2, applied: 0 }] },
      },
    }),
    ...errorResponses(400, 401),
  },
}
