/** generateRowLink: a URL that opens a master row in the product. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { RANGES } from '../versions.ts'
import { PRODUCT_VERSIONS, REQUEST_EXAMPLE } from '../extensions.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { rowLink } from '../examples.ts'
import { DATA_HEADERS, SESSION_SECURITY, jsonBody, jsonResponse } from './common.ts'

export const path = '/ExplorerApi/api/metadata/generaterowlink'
export const method = 'post'

export const operation: OperationObject = {
  operationId: 'generateRowLink',
  summary: 'Generate a row link',
  description:
    'Builds a URL that opens master rows of the application in the product, for example to put in an e-mail. Detail ' +
    'rows have no link of their own, so `relationKey` is always null. The answer is the URL as a JSON string; the form ' +
    "of the URL is the service's business. The mock's links open the rows on the mock itself (`GET /rowlink/...`, for a " +
    'signed-in session).',
  tags: ['Metadata'],
  [PRODUCT_VERSIONS]: RANGES.all,
  security: SESSION_SECURITY,
  parameters: DATA_HEADERS,
  requestBody: jsonBody('The master rows to link to.', schemaRef('RowLinkRequest'), {
    oneRow: { summary: 'Master row 1', value: { relationKey: null, values: 1, valueType: 1 } },
    severalRows: { summary: 'Master rows 1 to 3', value: { relationKey: null, values: [1, 2, 3], valueType: 1 } },
  }),
  responses: {
    '200': jsonResponse(
      'The link, as a JSON string.',
      { type: 'string', format: 'uri' },
      {
        link: { summary: 'Link to master row 1', value: rowLink(1), [REQUEST_EXAMPLE]: 'oneRow' },
        links: { summary: 'Link to master rows 1 to 3', value: rowLink(1, 2, 3), [REQUEST_EXAMPLE]: 'severalRows' },
      },
    ),
    ...errorResponses(400, 401, 403, 404, 413, 414),
  },
}
