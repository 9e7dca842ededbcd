/** The mock's clock and how far to move it. */
import type { SchemaObject } from 'openapi3-ts/oas31'
import { MAX_CLOCK_ADVANCE_MS } from '../constants.ts'

export const ClockAdvance: SchemaObject = {
  type: 'object',
  title: 'Clock advance',
  description: 'How far to move the clock forward: exactly one of `advanceMs` and `advanceSeconds`.',
  // One object with exactly one member rather than a oneOf: a refusal then names the one field at fault.
  minProperties: 1,
  maxProperties: 1,
  properties: {
    advanceMs: { type: 'integer', minimum: 0, maximum: MAX_CLOCK_ADVANCE_MS, description: 'Milliseconds.' },
    advanceSeconds: { type: 'integer', minimum: 0, maximum: MAX_CLOCK_ADVANCE_MS / 1000, description: 'Seconds.' },
  },
  additionalProperties: false,
}

export const ClockState: SchemaObject = {
  type: 'object',
  title: 'Clock',
  required: ['now', 'offsetMs'],
  properties: {
    now: { type: 'string', format: 'date-time', description: "The mock's time: tokens expire, and rows and e-mails are dated, by it." },
    offsetMs: { type: 'integer', minimum: 0, description: 'How far the clock has been moved ahead of the time it started from.' },
  },
  additionalProperties: false,
}
