/** sendEmail: queue an e-mail for sending through a configured provider. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { RANGES } from '../versions.ts'
import { PRODUCT_VERSIONS } from '../extensions.ts'
import { parameterRef, schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { EMAIL_PROVIDER_ID } from '../examples.ts'
import { BEARER_SECURITY, jsonBody } from './common.ts'

export const path = '/webaggregator/api/v1/email/queue'
export const method = 'post'

export const operation: OperationObject = {
  operationId: 'sendEmail',
  summary: 'Queue an e-mail',
  description:
    'Puts an e-mail in the sending queue of the workspace. Unlike data operations this call takes the session token as a ' +
    "bearer token in `Authorization` and needs no `ApplicationId`. Without `providerId` the installation's default " +
    'e-mail provider sends it. The answer has no body.',
  tags: ['E-mail'],
  [PRODUCT_VERSIONS]: RANGES.all,
  security: BEARER_SECURITY,
  parameters: [parameterRef('WorkspaceId')],
  requestBody: jsonBody('The e-mail.', schemaRef('EmailRequest'), {
    withProvider: {
      summary: 'Through a chosen provider',
      value: {
        providerId: EMAIL_PROVIDER_ID,
        to: ['buyer@northwind.example', 'accounts@northwind.example'],
        subject: 'Order 1 has shipped',
        body: 'Your order 1 left our warehouse today.',
      },
    },
    defaultProvider: {
      summary: 'Through the default provider',
      value: { to: ['ops@acme.test'], subject: 'Daily totals', body: '25 open orders.' },
    },
  }),
  responses: {
    '200': { description: 'Queued. The body is empty.' },
    ...errorResponses(400, 401, 403, 404, 413, 414),
  },
}
