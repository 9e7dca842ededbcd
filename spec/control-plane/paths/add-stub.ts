/** addStub: add one answer rule. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { saveRefusedResult } from '../../examples.ts'
import { jsonBody, jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'

export const path = `${CONTROL_PREFIX}/stubs`
export const method = 'post'

/** The request example `refusedSave`: the next save of an Initech order is refused (the tests of answer rules add it too). */
export const refusedSave = {
  operationId: 'saveItems',
  match: { body: { Rows: [{ Row: { Customer: 'Initech' } }] } },
  answer: { body: saveRefusedResult },
  times: 1,
}

export const operation: OperationObject = {
  operationId: 'addStub',
  summary: 'Add an answer rule',
  description:
    'Adds a rule that answers matching requests of an API operation: a whole answer (the operation is not performed) or a ' +
    "merge patch of the mock's own answer (the operation is performed). The answer is checked against the served document " +
    'when the rule is added; one the installation could never give is refused with the violations unless `offDocument` is true. ' +
    'docs/control-plane.md, "Answer rules", has the matching, priority, `times` and scenario rules.',
  tags: ['Answer rules'],
  requestBody: jsonBody('The rule.', schemaRef('AnswerRule'), {
    refusedSave: { summary: 'The next save of an Initech order is refused', value: refusedSave },
    patched: { summary: 'Every save answers one locked row', value: { operationId: 'saveItems', answer: { patch: { LockedItems: 1 } } } },
    secondSignInFails: {
      summary: 'The second sign-in fails',
      value: {
        operationId: 'signIn',
        scenario: 'session',
        whenState: 'signed in',
        answer: { status: 401, body: { type: 'urn:appdata-kit:problem:invalid-client', title: 'Unknown client', status: 401, detail: 'Sign-in refused.' } },
      },
    },
    slowQuery: {
      summary: 'One slow query',
      value: { operationId: 'queryItems', match: { body: { query: { $contains: "Status eq 'Open'" } } }, answer: {}, delayMs: 2000 },
    },
  }),
  responses: {
    '201': jsonResponse('The rule as added.', schemaRef('ActiveAnswerRule'), {
      added: { summary: 'A refused save', value: { id: 1, ...refusedSave, priority: 5, hits: 0, remaining: 1, offDocument: false, violations: [] } },
    }),
    ...errorResponses(400, 401),
  },
}
