/** Building blocks of several control-plane schemas, and the answer of every clearing call. */
import type { SchemaObject } from 'openapi3-ts/oas31'

/** A count of things, zero or more. */
export const count = (description: string): SchemaObject => ({ type: 'integer', minimum: 0, description })

export const Cleared: SchemaObject = {
  type: 'object',
  title: 'Cleared',
  required: ['cleared'],
  properties: { cleared: count('How many entries were removed.') },
  additionalProperties: false,
}
