/** listAttachments: the files and folders attached to one row. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { RANGES } from '../versions.ts'
import { MOCK_DEFINED, PRODUCT_VERSIONS, REQUEST_EXAMPLE, STRICT_OVERLAY } from '../extensions.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { PHOTOS_FOLDER_ID, RELATION_KEY, detailAttachments, folderAttachments, masterAttachments } from '../examples.ts'
import { DATA_HEADERS, SESSION_SECURITY, jsonResponse } from './common.ts'
import { ATTACHMENT_FILTER_PATTERN } from '../patterns.ts'

export const path = '/ExplorerApi/api/attachments'
export const method = 'get'

export const operation: OperationObject = {
  operationId: 'listAttachments',
  summary: 'List attachments',
  description:
    'Lists the attachments of one row: the files and folders at its top level, or with a `FolderId` condition the ' +
    "contents of one folder. Add `relationKey` for a detail row's attachments; leave it out for a master row's.",
  tags: ['Attachments'],
  [PRODUCT_VERSIONS]: RANGES.all,
  security: SESSION_SECURITY,
  parameters: [
    ...DATA_HEADERS,
    {
      name: '$filter',
      in: 'query',
      required: true,
      description:
        '`ParentId eq <row Id>`, optionally followed by ` and FolderId eq <folder Id>`. The mock reads it as Get Items reads a ' +
        'filter (values quoted or not, any spacing, keywords in any case, `FolderId eq null` for the top level); the pattern says ' +
        'exactly what it takes.',
      schema: { type: 'string', pattern: ATTACHMENT_FILTER_PATTERN, [MOCK_DEFINED]: 'pattern' },
      [MOCK_DEFINED]: 'the filter grammar beyond the form shown',
      examples: {
        topLevel: { summary: 'Top level of master row 1', value: 'ParentId eq 1' },
        folder: { summary: `Inside folder ${PHOTOS_FOLDER_ID}`, value: `ParentId eq 1 and FolderId eq ${PHOTOS_FOLDER_ID}` },
        detailRow: { summary: 'Detail row 1', value: 'ParentId eq 1' },
      },
    },
    {
      name: 'relationKey',
      in: 'query',
      description:
        'Detail Relation Key, when the row is a detail row. Sent empty, it reads as absent (with the warning EMPTY_RELATION_KEY; strict mode refuses it).',
      // Blank is what the handler reads as empty (it trims the key).
      schema: { type: 'string', [STRICT_OVERLAY]: { pattern: '\\S' } },
      examples: { detailRow: { summary: 'A detail row of OrderLines', value: RELATION_KEY } },
    },
  ],
  responses: {
    '200': jsonResponse(
      'The attachments, files and folders alike.',
      { type: 'array', items: schemaRef('Attachment') },
      {
        topLevel: { summary: 'Master row 1: a file and a folder', value: masterAttachments, [REQUEST_EXAMPLE]: 'topLevel' },
        folder: { summary: 'The Photos folder of master row 1', value: folderAttachments, [REQUEST_EXAMPLE]: 'folder' },
        detailRow: { summary: 'Detail row 1 of OrderLines', value: detailAttachments, [REQUEST_EXAMPLE]: 'detailRow' },
      },
    ),
    ...errorResponses(400, 401, 403, 404, 414),
  },
}
