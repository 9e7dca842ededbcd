/** saveItems: create and update master rows with their detail rows, all or nothing. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { RANGES } from '../versions.ts'
import { PRODUCT_VERSIONS, REQUEST_EXAMPLE } from '../extensions.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { saveCreate, saveCreateResult, saveLegacyResult, saveStale, saveStaleResult, saveUpdate, saveUpdateResult } from '../examples.ts'
import { DATA_HEADERS, SESSION_SECURITY, jsonBody, jsonResponse } from './common.ts'

export const path = '/ExplorerApi/api/items/save'
export const method = 'post'

export const operation: OperationObject = {
  operationId: 'saveItems',
  summary: 'Save items',
  description:
    'Creates and updates master rows, and the detail rows under each of them, in one all-or-nothing call.\n\n' +
    '- **Create**: give the row a negative temporary `Id` (-1, -2, ...), `TIMESTAMP` null and the Identity field null. ' +
    "The result's `ReturnData.PrimaryKeyData` tells which real Ids and identity values replaced them.\n" +
    '- **Update**: read the row first, decode its `TIMESTAMP` to an integer, and send `Id`, that `TIMESTAMP` and only the ' +
    'fields that change. A detail row can be added to an existing master row the same way, by sending the master row ' +
    'with its `Id` and `TIMESTAMP` and the new detail row.\n\n' +
    'A refused save (someone changed a row since it was read, an unknown `Id`, an identity value already in use) answers ' +
    '200 with the success flag false and one `ReturnStates` entry per problem; nothing of the request is written. ' +
    'Reserving identity values with `getIdentities` before saving avoids duplicates. Releases below 3.0 spell the flag ' +
    '`IsSaveSuccesfully`.',
  tags: ['Items'],
  [PRODUCT_VERSIONS]: RANGES.all,
  security: SESSION_SECURITY,
  parameters: DATA_HEADERS,
  requestBody: jsonBody('Master rows to save, each with its detail rows.', schemaRef('SaveRequest'), {
    create: { summary: 'Create an order with two lines, each sent with Id -1', value: saveCreate },
    update: { summary: 'Update an order and one of its lines', value: saveUpdate },
    stale: { summary: 'Update an order with a version read before someone else saved it', value: saveStale },
  }),
  responses: {
    '200': jsonResponse(
      'The outcome of the save, in the spelling of the emulated release.',
      { oneOf: [schemaRef('SaveResult'), schemaRef('SaveResultLegacy')] },
      {
        created: { summary: 'Order and lines created', value: saveCreateResult, [REQUEST_EXAMPLE]: 'create', [PRODUCT_VERSIONS]: RANGES.current },
        updated: { summary: 'Order and line updated', value: saveUpdateResult, [REQUEST_EXAMPLE]: 'update', [PRODUCT_VERSIONS]: RANGES.current },
        stale: { summary: 'Refused: row changed since it was read', value: saveStaleResult, [REQUEST_EXAMPLE]: 'stale', [PRODUCT_VERSIONS]: RANGES.current },
        legacy: { summary: 'Updated, as releases below 3.0 answer', value: saveLegacyResult, [REQUEST_EXAMPLE]: 'update', [PRODUCT_VERSIONS]: RANGES.legacy },
      },
    ),
    ...errorResponses(400, 401, 403, 404, 409, 413, 414),
  },
}
