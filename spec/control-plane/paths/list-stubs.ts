/** listStubs: the answer rules with their hit counts. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'

export const path = `${CONTROL_PREFIX}/stubs`
export const method = 'get'

export const operation: OperationObject = {
  operationId: 'listStubs',
  summary: 'Read the answer rules',
  description:
    'The answer rules in the order they are tried, each with how many requests it answered and how many answers it has left, and the state of every scenario.',
  tags: ['Answer rules'],
  responses: {
    '200': jsonResponse('The rules.', schemaRef('AnswerRuleList'), {
      one: {
        summary: 'A patch used twice',
        value: {
          rules: [
            {
              id: 1,
              operationId: 'saveItems',
              answer: { patch: { LockedItems: 1 } },
              priority: 5,
              hits: 2,
              remaining: null,
              offDocument: false,
              violations: [],
            },
          ],
          scenarios: {},
        },
      },
    }),
    ...errorResponses(401),
  },
}
