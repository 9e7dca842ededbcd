/** listEmails: the e-mails clients queued. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { emailExample } from '../examples.ts'

export const path = `${CONTROL_PREFIX}/emails`
export const method = 'get'

export const operation: OperationObject = {
  operationId: 'listEmails',
  summary: 'Read the e-mail outbox',
  description: 'The e-mails clients queued through Send Email, oldest first. The mock sends none of them.',
  tags: ['Observation'],
  responses: {
    '200': jsonResponse('The outbox.', schemaRef('EmailList'), { one: { summary: 'One e-mail', value: { count: 1, emails: [emailExample] } } }),
    ...errorResponses(401),
  },
}
