/** queryItems: Get Items and Get Items Count, which share one method and path (3.0 and later). */
import type { OperationObject } from 'openapi3-ts/oas31'
import { RANGES } from '../versions.ts'
import { PRODUCT_VERSIONS } from '../extensions.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { QUERY_GRAMMAR } from '../descriptions.ts'
import { DATA_HEADERS, SESSION_SECURITY, jsonBody, rowsOrCountResponse } from './common.ts'

export const path = '/ExplorerApi/api/items'
export const method = 'post'

export const operation: OperationObject = {
  operationId: 'queryItems',
  summary: 'Get items, or count them',
  description:
    'Reads rows of an application: the master table, or with `relationKey` one of its detail tables. The options travel ' +
    "in the body's `query` text. With `$inlinecount=allpages` among them the call counts the matching rows instead of " +
    'returning them (Get Items Count); without it the call returns them (Get Items). Fields the user may not see are left ' +
    `out of every row.\n\n${QUERY_GRAMMAR}`,
  tags: ['Items'],
  [PRODUCT_VERSIONS]: RANGES.current,
  security: SESSION_SECURITY,
  parameters: DATA_HEADERS,
  requestBody: jsonBody(
    'Query options; a count query contains `$inlinecount=allpages`.',
    { oneOf: [schemaRef('ItemsQuery'), schemaRef('CountQuery')] },
    {
      firstPage: { summary: 'The first two master rows', value: { query: '$top=2&$skip=0&$orderby=Id asc' } },
      masterQuery: {
        summary: 'A page of filtered master rows',
        value: { query: "$top=200&$skip=0&$orderby=DT_CREATION desc,Id asc&$filter=Status eq 'Open' and Amount gt 1000" },
      },
      detailQuery: { summary: 'Detail rows of master row 1', value: { query: '$filter=MasterId eq 1&$orderby=Id&relationKey=OrderLines' } },
      encodedQuery: { summary: 'Percent-encoded options', value: { query: '%24top=10&%24filter=startswith(Customer%2C%27North%27)' } },
      countQuery: { summary: 'Count open orders', value: { query: "$inlinecount=allpages&$filter=Status eq 'Open'" } },
      detailCountQuery: { summary: 'Count all order lines', value: { query: '$inlinecount=allpages&relationKey=OrderLines' } },
    },
  ),
  responses: {
    '200': rowsOrCountResponse(true),
    ...errorResponses(400, 401, 403, 404, 413, 414),
  },
}
