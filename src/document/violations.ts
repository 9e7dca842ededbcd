import type { ErrorObject } from 'ajv/dist/2020.js'
import type { Violation } from '../errors.ts'

/**
 * Ajv errors as violations, copied at once because Ajv overwrites `errors` on the next call.
 * The pointer starts with the request part (`/body`, `/headers`, `/query`, `/params`) and, for a
 * missing property, ends with its name, so the message names the field.
 */
export function toViolations(part: string, errors: readonly ErrorObject[] | null | undefined): Violation[] {
  const seen = new Set<string>()
  const out: Violation[] = []
  for (const error of errors ?? []) {
    let pointer = `/${part}${error.instancePath}`
    if (error.keyword === 'required') pointer += `/${String(error.params.missingProperty)}`
    if (error.keyword === 'additionalProperties') pointer += `/${String(error.params.additionalProperty)}`
    const message = messageOf(error)
    const key = `${pointer} ${message}`
    if (seen.has(key)) continue
    seen.add(key)
    out.push({ pointer, keyword: error.keyword, message })
  }
  return out
}

/** Ajv's message, naming the value a `const` or an `enum` wants, which Ajv's own words leave out. */
function messageOf(error: ErrorObject): string {
  if (error.keyword === 'const') return `must be ${JSON.stringify(error.params.allowedValue)}`
  if (error.keyword === 'enum' && Array.isArray(error.params.allowedValues)) {
    return `must be one of ${(error.params.allowedValues as unknown[]).map((value) => JSON.stringify(value)).join(', ')}`
  }
  return error.message ?? error.keyword
}

/** One sentence naming the first few violations, for the problem's `detail`. */
export function describeViolations(violations: readonly Violation[]): string {
  const shown = violations.slice(0, 3).map((v) => `${v.pointer} ${v.message}`)
  const more = violations.length > 3 ? ` (and ${violations.length - 3} more)` : ''
  return `${shown.join('; ')}${more}`
}
