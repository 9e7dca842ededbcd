/** The attachment record and the download request. */
import type { SchemaObject } from 'openapi3-ts/oas31'
import { MOCK_DEFINED, STRICT_OVERLAY } from '../extensions.ts'

/** yyyymmddhhmmss as a number: year 1000 onwards, no validation of the calendar beyond the digit count. */
const compactDateTime: SchemaObject = {
  type: ['integer', 'null'],
  minimum: 10000101000000,
  maximum: 99991231235959,
  description: 'Date and time written as the digits yyyymmddhhmmss (for example 20240301091500), or null.',
}

export const Attachment: SchemaObject = {
  type: 'object',
  title: 'Attachment',
  description: "A file or a folder attached to a master or detail row. Files in a folder carry the folder's Id in `FolderId`.",
  required: [
    'Id',
    'ParentId',
    'FolderId',
    'IsFolder',
    'Name',
    'Description',
    'TypeImage',
    'DT_CREATION',
    'DT_LAST_UPDATE',
    'USER_ID_CREATION',
    'USER_ID_LAST_UPDATE',
  ],
  properties: {
    Id: { type: 'integer', description: 'Id of the attachment, used to download it.' },
    ParentId: { type: 'integer', description: 'Id of the row the attachment belongs to.' },
    FolderId: { type: ['integer', 'null'], description: 'Id of the folder holding the attachment; null at the top level.' },
    IsFolder: { type: 'boolean', description: 'True for a folder; downloading a folder gives a zip archive of its files.' },
    Name: { type: 'string', description: 'File or folder name.', examples: ['invoice.pdf'] },
    Description: { type: 'string' },
    TypeImage: {
      type: 'string',
      description: 'Media type of the file (for example `application/pdf`). A folder has none; the mock sends an empty text for it.',
      [MOCK_DEFINED]: 'the value for folders',
    },
    DT_CREATION: compactDateTime,
    DT_LAST_UPDATE: {
      ...compactDateTime,
      [MOCK_DEFINED]: 'type minimum maximum',
      description: 'Last change: a number or null in the published description; the mock writes it in the form of `DT_CREATION`.',
    },
    USER_ID_CREATION: { type: ['number', 'string'], description: 'User who added the attachment.' },
    USER_ID_LAST_UPDATE: { type: ['number', 'string'], description: 'User who changed the attachment last.' },
  },
}

export const DownloadRequest: SchemaObject = {
  type: 'object',
  title: 'Download request',
  description: 'Attachments to download. One file Id gives that file; a folder Id, or several Ids, give a zip archive.',
  required: ['ids'],
  properties: {
    ids: { type: 'array', minItems: 1, items: { type: 'integer' }, description: 'Attachment Ids, as listed by the attachments list.' },
    rk: {
      type: ['string', 'null'],
      description:
        "Detail Relation Key when the attachments belong to a detail row. Leave it out, or send an empty text, for a master row's attachments. " +
        'null reads as left out (with the warning NULL_OPTIONAL_MEMBER).',
      [MOCK_DEFINED]: 'null is accepted with a warning',
      [STRICT_OVERLAY]: { type: 'string' },
    },
  },
  additionalProperties: false,
}
