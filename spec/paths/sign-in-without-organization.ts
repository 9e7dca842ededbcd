/** signInWithoutOrganization: current sign-in as releases 3.0.0 to 3.0.18 take it. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { RANGES } from '../versions.ts'
import { PRODUCT_VERSIONS } from '../extensions.ts'
import { errorResponses } from '../responses.ts'
import { passwordGrantForm, tokenResponse } from './common.ts'

export const path = '/identityprovider/connect/token'
export const method = 'post'

export const operation: OperationObject = {
  operationId: 'signInWithoutOrganization',
  summary: 'Sign in (3.0.0 to 3.0.18)',
  description: 'The password-grant sign-in of releases 3.0.0 to 3.0.18, whose path has no organization segment. Form and result are ' + 'those of `signIn`.',
  tags: ['Sign-in'],
  [PRODUCT_VERSIONS]: RANGES.withoutOrganization,
  security: [],
  requestBody: passwordGrantForm,
  responses: { '200': tokenResponse, ...errorResponses(400, 401, 413, 414, 503) },
}
