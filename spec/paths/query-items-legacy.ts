/** queryItemsLegacy: the GET form of Get Items and Get Items Count, as releases below 3.0 take it. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { RANGES } from '../versions.ts'
import { MOCK_DEFINED, PRODUCT_VERSIONS } from '../extensions.ts'
import { parameterRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { FILTER_GRAMMAR, GRAMMAR_CHOICE } from '../descriptions.ts'
import { SESSION_SECURITY, rowsOrCountResponse } from './common.ts'

export const path = '/ExplorerApi/api/items'
export const method = 'get'

export const operation: OperationObject = {
  operationId: 'queryItemsLegacy',
  summary: 'Get items, or count them (before 3.0)',
  description:
    'Reads or counts master rows on releases below 3.0. The published description shows this call with the headers and no body, and ' +
    'does not say where the query options go; the mock takes them as ordinary URL query parameters, with the meanings they ' +
    'have in `queryItems` (`x-mock-defined`). These releases query master rows only, so there is no ' +
    '`relationKey`. A URL parameter other than the five below is refused (400 `BAD_QUERY`), in both modes: the URL form is ' +
    `the mock's own reading of the call, and it takes exactly what it lists.\n\n${FILTER_GRAMMAR}`,
  [MOCK_DEFINED]: 'the query options as URL parameters, and no others',
  tags: ['Items'],
  [PRODUCT_VERSIONS]: RANGES.legacy,
  security: SESSION_SECURITY,
  parameters: [
    parameterRef('ApplicationId'),
    parameterRef('SessionToken'),
    parameterRef('WorkspaceIdOptional'),
    {
      name: '$top',
      in: 'query',
      description: 'Return at most this many rows.',
      schema: { type: 'integer', minimum: 0 },
      examples: { firstPage: { value: 2 } },
    },
    {
      name: '$skip',
      in: 'query',
      description: 'Leave out this many rows, counted after ordering.',
      schema: { type: 'integer', minimum: 0 },
      examples: { firstPage: { value: 0 } },
    },
    {
      name: '$orderby',
      in: 'query',
      description: 'Sort order: `Field asc` or `Field desc`, several joined by commas.',
      schema: { type: 'string' },
      [MOCK_DEFINED]: GRAMMAR_CHOICE,
      examples: { firstPage: { value: 'Id asc' } },
    },
    {
      name: '$filter',
      in: 'query',
      description: 'Filter expression (see the operation description).',
      schema: { type: 'string' },
      examples: { countQuery: { value: "Status eq 'Open'" } },
      [MOCK_DEFINED]: GRAMMAR_CHOICE,
    },
    {
      name: '$inlinecount',
      in: 'query',
      description: 'With `allpages`, answer with the number of matching rows instead of the rows.',
      schema: { type: 'string', const: 'allpages' },
      examples: { countQuery: { value: 'allpages' } },
    },
  ],
  responses: {
    '200': rowsOrCountResponse(false),
    ...errorResponses(400, 401, 403, 404, 414),
  },
}
