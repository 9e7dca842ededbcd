/** advanceClock: move the mock's time forward. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonBody, jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'

export const path = `${CONTROL_PREFIX}/clock`
export const method = 'post'

export const operation: OperationObject = {
  operationId: 'advanceClock',
  summary: 'Move the clock forward',
  description: "Moves the mock's time forward without waiting, for example past a token's `expires_in`. The clock never goes back.",
  tags: ['Clock'],
  requestBody: jsonBody('How far.', schemaRef('ClockAdvance'), {
    hour: { summary: 'One hour, in seconds', value: { advanceSeconds: 3600 } },
    minute: { summary: 'One minute, in milliseconds', value: { advanceMs: 60000 } },
  }),
  responses: {
    '200': jsonResponse('The clock after the move.', schemaRef('ClockState'), {
      moved: { summary: 'One hour later', value: { now: '2026-11-01T10:00:00.000Z', offsetMs: 3600000 } },
    }),
    ...errorResponses(400, 401),
  },
}
