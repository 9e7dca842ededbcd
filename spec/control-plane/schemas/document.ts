/** The answer of the route that serves this document. */
import type { SchemaObject } from 'openapi3-ts/oas31'

export const Health: SchemaObject = {
  type: 'object',
  title: 'Health',
  description: 'The mock is up and answering.',
  required: ['status', 'version', 'productVersion'],
  properties: {
    status: { type: 'string', const: 'ok' },
    version: { type: 'string', description: 'Version of appdata-kit.' },
    productVersion: { type: 'string', description: 'The release the mock emulates.' },
  },
  additionalProperties: false,
}

export const ControlDocument: SchemaObject = {
  type: 'object',
  title: 'OpenAPI document',
  required: ['openapi', 'info', 'paths'],
  properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
}
