export { valueFits } from './data-types.ts'

/** A value as an error message quotes it. */
/** A name or text from a request as a message quotes it: at most `max` characters, so a megabyte name is not echoed whole. */
export function shortened(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max)}...` : text
}

export function describeValue(value: unknown): string {
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}...` : value)}`
  if (value === undefined) return 'nothing'
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object'
  return `${typeof value} ${String(value)}`
}
