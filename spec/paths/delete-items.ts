/** deleteItems: delete master and detail rows by Id and row version. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { RANGES } from '../versions.ts'
import { PRODUCT_VERSIONS, REQUEST_EXAMPLE } from '../extensions.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { deleteCurrent, deleteLegacy, deleteLegacyResult, deleteResult } from '../examples.ts'
import { DATA_HEADERS, SESSION_SECURITY, jsonBody, jsonResponse } from './common.ts'

export const path = '/ExplorerApi/api/items/delete'
export const method = 'post'

export const operation: OperationObject = {
  operationId: 'deleteItems',
  summary: 'Delete items',
  description:
    'Deletes rows named by `Id` and the `TIMESTAMP` integer read last. The body groups rows by table: `RelationKey` null ' +
    'for master rows, a Detail Relation Key for detail rows, and one call may hold both. The older body has master rows ' +
    "only, each with an empty `Details` array; the mock takes either body on every release (the other era's with a " +
    'warning). Releases below 3.0 spell the result flag `IsSaveSuccesfully`. As with saving, the call is all or nothing, ' +
    'and a refused delete (stale or null `TIMESTAMP`, unknown `Id`, a row named twice) answers 200 with the flag false.',
  tags: ['Items'],
  [PRODUCT_VERSIONS]: RANGES.all,
  security: SESSION_SECURITY,
  parameters: DATA_HEADERS,
  requestBody: jsonBody(
    'Rows to delete, in the shape of the emulated release.',
    { anyOf: [schemaRef('DeleteRequest'), schemaRef('DeleteRequestLegacy')] },
    {
      current: { summary: 'A master row and a detail row', value: deleteCurrent, [PRODUCT_VERSIONS]: RANGES.current },
      legacy: { summary: 'A master row, in the older body (before 3.0)', value: deleteLegacy, [PRODUCT_VERSIONS]: RANGES.legacy },
    },
  ),
  responses: {
    '200': jsonResponse(
      'The outcome of the delete, in the spelling of the emulated release.',
      { oneOf: [schemaRef('DeleteResult'), schemaRef('DeleteResultLegacy')] },
      {
        current: { summary: 'Two rows deleted', value: deleteResult, [REQUEST_EXAMPLE]: 'current', [PRODUCT_VERSIONS]: RANGES.current },
        legacy: { summary: 'Deleted, as releases below 3.0 answer', value: deleteLegacyResult, [REQUEST_EXAMPLE]: 'legacy', [PRODUCT_VERSIONS]: RANGES.legacy },
      },
    ),
    ...errorResponses(400, 401, 403, 404, 413, 414),
  },
}
