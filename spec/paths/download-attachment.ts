/** downloadAttachment: the bytes of a file, or a zip archive of a folder or of several files. */
import type { OperationObject } from 'openapi3-ts/oas31'
import { RANGES } from '../versions.ts'
import { EXAMPLE_FILE, MOCK_DEFINED, PRODUCT_VERSIONS, REQUEST_EXAMPLE } from '../extensions.ts'
import { schemaRef } from '../refs.ts'
import { errorResponses } from '../responses.ts'
import { INVOICE_ID, PHOTOS_FOLDER_ID, RELATION_KEY, SPEC_ID } from '../examples.ts'
import { DATA_HEADERS, SESSION_SECURITY, jsonBody } from './common.ts'
import { defaultPayloads } from '../fixture-payloads.ts'

export const path = '/ExplorerApi/api/attachments/download'
export const method = 'post'

/**
 * The examples carry the default fixture's payloads themselves, or name them, and never point at a file:
 * the document is written anywhere (`appdata-kit spec --out`) and served by the mock, and a relative
 * `externalValue` made code generators (openapi-typescript, Redocly) fail to resolve it there.
 * Text payloads (the PDF is plain ASCII) are inline `value`s, the very bytes a fresh mock sends. Binary ones
 * (JPEG, zip) cannot be a JSON text, and an example without a value fails the linters, so those media
 * types have no example: the response's description tells them and `x-example-file` names the file.
 */
const PAYLOADS = defaultPayloads()
const text = (name: string): string => new TextDecoder().decode(PAYLOADS[name])
const inline = (name: string) => ({ summary: name, value: text(name), [EXAMPLE_FILE]: name })

const binary = (mediaType: string) => ({ type: 'string' as const, contentMediaType: mediaType })

export const operation: OperationObject = {
  operationId: 'downloadAttachment',
  summary: 'Download attachments',
  description:
    'Sends the content of attachments. One file Id gives the file itself, with its own media type. A folder Id, or ' +
    'several Ids, give a zip archive (`application/zip`) of the files. Send `rk` when the attachments belong to a detail row.',
  tags: ['Attachments'],
  [PRODUCT_VERSIONS]: RANGES.all,
  security: SESSION_SECURITY,
  parameters: DATA_HEADERS,
  requestBody: jsonBody('Attachment Ids and, for a detail row, its relation key.', schemaRef('DownloadRequest'), {
    masterFile: { summary: 'invoice.pdf of master row 1', value: { ids: [INVOICE_ID] } },
    folder: { summary: 'The Photos folder, as a zip', value: { ids: [PHOTOS_FOLDER_ID], rk: '' } },
    detailFile: { summary: 'spec.txt of a detail row', value: { ids: [SPEC_ID], rk: RELATION_KEY } },
  }),
  responses: {
    '200': {
      description:
        'The content, with the media type the attachment was stored with. With the default fixture: invoice.pdf and ' +
        `spec.txt as the examples show; front.jpg and back.jpg as baseline JPEGs of one grey 8x8 block (${PAYLOADS['front.jpg']?.length} bytes ` +
        'each); the Photos folder as a zip archive of those two.',
      headers: {
        'Content-Disposition': {
          description:
            'Always `attachment`, with the file name: `attachment; filename=<name>`. A name that is not plain ASCII is ' +
            "also given as `filename*=UTF-8''<percent-encoded name>` (RFC 6266).",
          required: true,
          [MOCK_DEFINED]: 'filename* for names that are not plain ASCII',
          schema: { type: 'string', pattern: '^attachment; ?filename' },
          examples: {
            ascii: { summary: 'Plain name', value: 'attachment; filename=invoice.pdf' },
            unicode: { summary: 'Name with accents', value: 'attachment; filename="facture-reglee.pdf"; filename*=UTF-8\'\'facture-r%C3%A9gl%C3%A9e.pdf' },
          },
        },
      },
      content: {
        'application/octet-stream': {
          schema: binary('application/octet-stream'),
          examples: { file: { ...inline('invoice.pdf'), summary: 'Any stored file, here invoice.pdf' } },
        },
        'application/pdf': {
          schema: binary('application/pdf'),
          examples: { invoice: { ...inline('invoice.pdf'), [REQUEST_EXAMPLE]: 'masterFile' } },
        },
        'image/jpeg': { schema: binary('image/jpeg'), [EXAMPLE_FILE]: 'front.jpg' },
        'text/plain': {
          schema: binary('text/plain'),
          examples: { spec: { ...inline('spec.txt'), [REQUEST_EXAMPLE]: 'detailFile' } },
        },
        'application/zip': { schema: binary('application/zip'), [EXAMPLE_FILE]: 'Photos.zip', [REQUEST_EXAMPLE]: 'folder' },
      },
    },
    ...errorResponses(400, 401, 403, 404, 413, 414),
  },
}
