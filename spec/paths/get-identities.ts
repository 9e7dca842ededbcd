/** getIdentities: reserve consecutive values of a storage's Identity field. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { RANGES } from '../versions.ts'
import { PRODUCT_VERSIONS, REQUEST_EXAMPLE } from '../extensions.ts'
import { parameterRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { DATA_HEADERS, SESSION_SECURITY, jsonResponse } from './common.ts'
import { reservedIdentities } from '../examples.ts'

export const path = '/ExplorerApi/api/storage/{storage_id}/identity/{field_name}/next/{count}'
export const method = 'get'

export const operation: OperationObject = {
  operationId: 'getIdentities',
  summary: 'Reserve identity values',
  description:
    "Reserves the next `count` values of a storage's Identity field and returns them. Reserved values are never handed " +
    'out again, so a client can put them in the Identity field of rows it creates without colliding with other saves ' +
    '(which would refuse the save as a duplicate key).',
  tags: ['Metadata'],
  [PRODUCT_VERSIONS]: RANGES.all,
  security: SESSION_SECURITY,
  parameters: [...DATA_HEADERS, parameterRef('StorageId'), parameterRef('FieldName'), parameterRef('IdentityCount')],
  responses: {
    '200': jsonResponse(
      'The reserved values, in increasing order.',
      { type: 'array', items: { type: 'integer' }, minItems: 1 },
      {
        three: { summary: 'Three values', value: reservedIdentities, [REQUEST_EXAMPLE]: 'three' },
      },
    ),
    ...errorResponses(400, 401, 403, 404, 409, 414),
  },
}
