/** uploadAttachments: attach files to an existing row, as multipart/form-data. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { jsonResponse, media } from '../../paths/common.ts'
import { CONTROL_PREFIX } from '../constants.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { attachmentExample } from '../examples.ts'

export const path = `${CONTROL_PREFIX}/attachments`
export const method = 'post'

export const operation: OperationObject = {
  operationId: 'uploadAttachments',
  summary: 'Upload attachments',
  description:
    'Attaches one or more files to an existing master or detail row, as `multipart/form-data`. The files then appear in Get ' +
    "Attachments List and download with the same bytes, and the row's `CT_ATTACHMENTS` counts them. Nothing is added when any " +
    'part of the request is refused.',
  tags: ['State'],
  requestBody: {
    description: 'Fields and files.',
    required: true,
    content: {
      'multipart/form-data': media(schemaRef('AttachmentUpload'), {
        pdfOnRow2: { summary: 'A PDF on master row 2', value: { parentId: 2, file: ['delivery-note.pdf'] } },
      }),
    },
  },
  responses: {
    '201': jsonResponse(
      'Added; the new records, a created folder first.',
      { type: 'array', items: schemaRef('Attachment') },
      {
        added: { summary: 'One file', value: [attachmentExample] },
      },
    ),
    ...errorResponses(400, 401, 404, 409, 413, 507),
  },
}
