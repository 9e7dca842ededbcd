/** signIn: current sign-in, with the organization in the path (3.0.19 and later). */
import type { OperationObject } from 'openapi3-ts/oas31'
import { RANGES } from '../versions.ts'
import { PRODUCT_VERSIONS } from '../extensions.ts'
import { parameterRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { passwordGrantForm, tokenResponse } from './common.ts'

export const path = '/identityprovider/{organizationphysicalname}/connect/token'
export const method = 'post'

export const operation: OperationObject = {
  operationId: 'signIn',
  summary: 'Sign in',
  description:
    "Exchanges a user's e-mail address and password for a session token, using the password grant. The organization is " +
    'named in the path. Releases 3.0.0 to 3.0.18 use the same call without the organization segment ' +
    '(`signInWithoutOrganization`); releases below 3.0 use `signInLegacy`.',
  tags: ['Sign-in'],
  [PRODUCT_VERSIONS]: RANGES.withOrganization,
  security: [],
  parameters: [parameterRef('OrganizationPhysicalName')],
  requestBody: passwordGrantForm,
  responses: { '200': tokenResponse, ...errorResponses(400, 401, 404, 413, 414, 503) },
}
