/** runAction: run a custom action (a stored procedure with parameters). */
import type { OperationObject } from 'openapi3-ts/oas31'
import { RANGES } from '../versions.ts'
import { PRODUCT_VERSIONS, REQUEST_EXAMPLE } from '../extensions.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { actionFailedResult, actionFailingRequest, actionRequest, actionResult } from '../examples.ts'
import { DATA_HEADERS, SESSION_SECURITY, jsonBody, jsonResponse, labelChosenByMock } from './common.ts'

export const path = '/ExplorerApi/api/action/run'
export const method = 'post'

export const operation: OperationObject = {
  operationId: 'runAction',
  summary: 'Run a custom action',
  description:
    'Runs a custom action defined for the application. `parametersMap` names the stored procedure to run and the ' +
    'parameters it gets. An action that ran but failed still answers 200, with `IsSuccessful` false. The real service ' +
    'labels this response as XML although its body is JSON; this document states the media type the body actually has, ' +
    "`application/json`, which is what the mock sends. That label is the mock's choice: a client should read the body as JSON " +
    'whatever the label says.',
  tags: ['Actions'],
  [PRODUCT_VERSIONS]: RANGES.all,
  security: SESSION_SECURITY,
  parameters: DATA_HEADERS,
  requestBody: jsonBody('The action and its parameters.', schemaRef('ActionRequest'), {
    recalculate: { summary: 'Recalculate orders 1 and 2', value: actionRequest },
    failing: { summary: 'An action that reports failure', value: actionFailingRequest },
  }),
  responses: {
    '200': labelChosenByMock(
      jsonResponse('What the action reported.', schemaRef('ActionResult'), {
        succeeded: { summary: 'The action succeeded', value: actionResult, [REQUEST_EXAMPLE]: 'recalculate' },
        failed: { summary: 'The action ran and reported failure', value: actionFailedResult, [REQUEST_EXAMPLE]: 'failing' },
      }),
    ),
    ...errorResponses(400, 401, 403, 404, 409, 413, 414),
  },
}
