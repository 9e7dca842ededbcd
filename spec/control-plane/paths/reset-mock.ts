/** resetMock: put the data back to the starting fixture and empty outbox, fault rules and journal. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { parameterRef, schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { summaryExample } from '../examples.ts'

export const path = `${CONTROL_PREFIX}/reset`
export const method = 'post'

export const operation: OperationObject = {
  operationId: 'resetMock',
  summary: 'Reset the mock',
  description:
    'Puts the data back to the fixture the mock started with (rows, row versions aside, and attachments), and empties the ' +
    'e-mail outbox, the fault rules and the request journal. Sessions stay valid, so a test keeps its token (those of users ' +
    'the start fixture lacks end), unless `sessions=true` ends them all; the clock keeps its offset because time does not ' +
    'go back. A TIMESTAMP read before the reset is stale after it. ' +
    "The reset is a clean cut (the mock's choice): nothing received before it writes into the data it puts in place. A request " +
    "still held by a fault's latency or an answer rule's `delayMs` is answered at once with 503 `DATA_REPLACED` (a gateway " +
    'status any operation may get), and a write received before it that reaches the store after it (a big save planned in ' +
    'slices, a body still arriving) is refused the same way; nothing of either is written.',
  tags: ['State'],
  parameters: [parameterRef('ResetSessions')],
  responses: {
    '200': jsonResponse('Reset.', schemaRef('ResetResult'), {
      reset: {
        summary: 'Reset',
        value: { reset: true, fixture: summaryExample, cleared: { emails: 1, faults: 0, stubs: 0, requests: 42, sessions: 0 }, kept: ['sessions', 'clock'] },
      },
      withSessions: {
        summary: 'Reset with sessions=true',
        value: { reset: true, fixture: summaryExample, cleared: { emails: 0, faults: 0, stubs: 0, requests: 3, sessions: 1000 }, kept: ['clock'] },
      },
    }),
    ...errorResponses(401, 507),
  },
}
