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
    'go back. A TIMESTAMP read before the reset is stale after it.',
  tags: ['State'],
  parameters: [parameterRef('ResetSessions')],
  responses: {
    '200': jsonResponse('Reset.', schemaRef('ResetResult'), {
      reset: { summary: 'Reset', value: { reset: true, fixture: summaryExample, cleared: { emails: 1, faults: 0, stubs: 0, requests: 42, sessions: 0 }, kept: ['sessions', 'clock'] } },
      withSessions: {
        summary: 'Reset with sessions=true',
        value: { reset: true, fixture: summaryExample, cleared: { emails: 0, faults: 0, stubs: 0, requests: 3, sessions: 1000 }, kept: ['clock'] },
      },
    }),
    ...errorResponses(401, 507),
  },
}
