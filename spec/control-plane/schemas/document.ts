/** The answer of the route that serves this document. */
import type { SchemaObject } from 'openapi3-ts/oas31'

export const ControlDocument: SchemaObject = {
  type: 'object',
  title: 'OpenAPI document',
  required: ['openapi', 'info', 'paths'],
  properties: { openapi: { type: 'string' }, info: { type: 'object' }, paths: { type: 'object' } },
}
