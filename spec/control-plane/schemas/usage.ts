/** The usage a mock started with --record-usage records. */
import type { SchemaObject } from 'openapi3-ts/oas31'

const shape: SchemaObject = {
  description:
    'A shape: a union of types such as `integer|null` (texts as `string` or a format: `guid`, `email`, `date`, `date-time`, `uri`; `absent` when some answers lacked the member), or an object with `type` and its `fields` or `items`.',
  oneOf: [{ type: 'string' }, { type: 'object', required: ['type'], properties: { type: { type: 'string' }, fields: { type: 'object' }, items: {} } }],
}

export const Usage: SchemaObject = {
  type: 'object',
  title: 'Usage',
  description:
    'What clients used of the API since the mock started, as shapes: per operation, release and request shape, the query options ($filter as a template whose values are their types, $orderby, $top, $skip, $inlinecount, relation keys), ' +
    'the rows and fields saved, the headers and authentication sent, and the answers received by status (their shape, media type or problem codes). Never a token, password, e-mail address or row value. ' +
    'The same JSON, members sorted, is written to the --record-usage file at stop; `appdata-kit coverage` and `appdata-kit verify --usage` read it.',
  required: ['appdataKitUsage', 'interactions'],
  properties: {
    appdataKitUsage: { const: 1, description: "The format's version." },
    interactions: {
      type: 'array',
      description: 'Sorted by operation, release and request shape.',
      items: {
        type: 'object',
        required: ['operation', 'release', 'request', 'count', 'answers'],
        properties: {
          operation: { type: 'string', description: 'The operationId.' },
          release: { type: 'string', description: 'The release the mock emulated.' },
          request: {
            type: 'object',
            description: "The request's shape: `auth`, `headers`, `contentType`, and `query`, `rows`, `delete`, `body` or `path` by operation.",
          },
          count: { type: 'integer', minimum: 1 },
          answers: {
            type: 'object',
            description: 'By status.',
            additionalProperties: {
              type: 'object',
              required: ['count'],
              properties: {
                count: { type: 'integer', minimum: 1 },
                body: shape,
                mediaTypes: { type: 'array', items: { type: 'string' } },
                problems: { type: 'array', items: { type: 'string' }, description: 'Problem codes of the refusals.' },
              },
            },
          },
        },
      },
    },
  },
}
