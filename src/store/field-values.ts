import type { FieldType, FieldValue } from './types.ts'

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?$/

/**
 * Whether a value sent for a field has the field's type. Null fits every user field (the description
 * marks fields nullable). No coercion: a numeric string in a number field does not fit, so a
 * client's serialization bug shows up as INVALID_VALUE instead of being papered over.
 */
export function valueFits(type: FieldType, value: unknown): value is FieldValue {
  if (value === null) return true
  switch (type) {
    case 'string':
      return typeof value === 'string'
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    case 'integer':
      return Number.isSafeInteger(value)
    case 'boolean':
      return typeof value === 'boolean'
    case 'date-time':
      return typeof value === 'string' && ISO_DATE_TIME.test(value) && !Number.isNaN(Date.parse(value))
  }
}

/** A value as an error message quotes it. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`
  if (value === undefined) return 'nothing'
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object'
  return `${typeof value} ${String(value)}`
}
