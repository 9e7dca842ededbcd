/** readClock: the mock's time and how far it has been moved. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { ISO_NOW } from '../examples.ts'

export const path = `${CONTROL_PREFIX}/clock`
export const method = 'get'

export const operation: OperationObject = {
  operationId: 'readClock',
  summary: 'Read the clock',
  description: "The mock's time, by which tokens expire and rows, attachments and e-mails are dated.",
  tags: ['Clock'],
  responses: {
    '200': jsonResponse('The clock.', schemaRef('ClockState'), { now: { summary: 'Not moved', value: { now: ISO_NOW, offsetMs: 0 } } }),
    ...errorResponses(401),
  },
}
