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

/**
 * How telling a violation is, lowest first: a value that is wrong (a type, a bound, a pattern,
 * a member not allowed, any check of the mock's own) says what to fix; a member missing often
 * comes by the dozen from one partial object; a failed `oneOf`/`anyOf` only says that no
 * alternative fitted, which the others say better.
 */
function rank(violation: Violation): number {
  if (violation.keyword === 'oneOf' || violation.keyword === 'anyOf') return 2
  return violation.keyword === 'required' ? 1 : 0
}

/**
 * One sentence naming the first few violations, for the problem's `detail`: the telling ones
 * first (in their order), so "3 missing (and 9 more)" never hides the one wrong value; the
 * problem's `violations` keep them all, in the validator's order.
 */
export function describeViolations(violations: readonly Violation[]): string {
  const ordered = violations.map((violation, index) => ({ violation, index })).sort((a, b) => rank(a.violation) - rank(b.violation) || a.index - b.index)
  const shown = ordered.slice(0, 3).map(({ violation: v }) => `${v.pointer} ${v.message}`)
  const more = violations.length > 3 ? ` (and ${violations.length - 3} more)` : ''
  return `${shown.join('; ')}${more}`
}

/**
 * The violations that say what is wrong: a `oneOf`/`anyOf` failure at a pointer that also has a
 * more precise violation inside it only repeats it; and a `type` failure at such a pointer is
 * another alternative's (a value whose type no alternative takes is not looked into, so a
 * violation inside it means one alternative took its type): `/body must be object` beside
 * `/body/0/Id must be integer` for an array of rows.
 */
export function preciseViolations(violations: Violation[]): Violation[] {
  return violations.filter(
    (v) => !((v.keyword === 'oneOf' || v.keyword === 'anyOf' || v.keyword === 'type') && violations.some((other) => other !== v && other.pointer.startsWith(`${v.pointer}/`))),
  )
}
