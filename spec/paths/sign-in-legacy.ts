/** signInLegacy: the user management sign-in of releases below 3.0. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { RANGES } from '../versions.ts'
import { PRODUCT_VERSIONS, REQUEST_EXAMPLE } from '../extensions.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { ADMIN_PASSWORD, ADMIN_USER, LEGACY_CLIENT_ID, legacyTokenResult } from '../examples.ts'
import { jsonBody, jsonResponse } from './common.ts'

export const path = '/IntelligenceUserManagementService/UserManagementService.svc/Token'
export const method = 'post'

export const operation: OperationObject = {
  operationId: 'signInLegacy',
  summary: 'Sign in (before 3.0)',
  description:
    "Sign-in of releases below 3.0: a JSON body with the user's name, password and the legacy client constant. The result " +
    "names the user's workspace (then called domain) and carries the token in `SessionToken`, which later calls send in the " +
    'header of the same name. Scripts written for this form do not work against 3.0 and later.',
  tags: ['Sign-in'],
  [PRODUCT_VERSIONS]: RANGES.legacy,
  security: [],
  requestBody: jsonBody(
    'Credentials.',
    {
      type: 'object',
      title: 'Legacy credentials',
      required: ['userName', 'password', 'clientId'],
      properties: {
        userName: { type: 'string', minLength: 1, description: "The user's e-mail address." },
        password: { type: 'string', minLength: 1 },
        clientId: { type: 'string', minLength: 1, description: 'The legacy client constant of the installation.' },
      },
      additionalProperties: false,
    },
    { admin: { summary: 'Full-access user', value: { userName: ADMIN_USER, password: ADMIN_PASSWORD, clientId: LEGACY_CLIENT_ID } } },
  ),
  responses: {
    '200': jsonResponse('Signed in.', schemaRef('LegacyTokenResult'), {
      session: { summary: 'Administrator session', value: legacyTokenResult, [REQUEST_EXAMPLE]: 'admin' },
    }),
    ...errorResponses(400, 401, 413, 414, 503),
  },
}
