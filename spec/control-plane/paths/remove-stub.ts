/** removeStub: remove one answer rule. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'

export const path = `${CONTROL_PREFIX}/stubs/{id}`
export const method = 'delete'

export const operation: OperationObject = {
  operationId: 'removeStub',
  summary: 'Remove one answer rule',
  description: 'Removes the rule with this id; its scenario keeps its state.',
  tags: ['Answer rules'],
  parameters: [{ name: 'id', in: 'path', required: true, description: "The rule's `id`.", schema: { type: 'integer', minimum: 1 } }],
  responses: {
    '200': jsonResponse('The rule removed, with its use.', schemaRef('ActiveAnswerRule'), {
      removed: {
        summary: 'A rule used once',
        value: {
          id: 3,
          operationId: 'saveItems',
          answer: { patch: { LockedItems: 1 } },
          priority: 5,
          hits: 1,
          remaining: null,
          offDocument: false,
          violations: [],
        },
      },
    }),
    ...errorResponses(401, 404),
  },
}
