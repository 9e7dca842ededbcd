import { isTextType } from './model/data-types.ts'
import { describeValue } from './model/field-values.ts'
import { valueFits } from '../wire/type-forms.ts'
import type { FieldDef, FieldRules, FieldType, FieldValue, ReturnStateCode } from './model/types.ts'

/**
 * An application's field rules (a fixture field's `rules`), as pure functions: what a rule means,
 * which rules fit which type, and what a value or a table breaks. The save plan (save.ts), the
 * fixture checks (src/fixtures/checks.ts) and the row generator (src/fixtures/generate.ts) all ask
 * here, so a rule means the same thing everywhere.
 *
 * Semantics (the mock's choice; the product's reference, Save rows, says only that a failed save
 * names the row and the table; see docs/behaviour.md, "Field rules"):
 * - `required`: a create must give the field a value other than null and the empty text; an
 *   update may leave it out (it keeps its value) but may not set it to null or ''.
 * - `readOnly`: no save writes the field; a create may send it null (clients send every field of
 *   a blank form). Fixture rows and custom actions still set it: it is the application's to fill.
 * - `minimum` / `maximum`: types whose values are numbers (Numeric, Date, DateTime, Time,
 *   Timespan, Latitude, Longitude), bounds in the type's own form (a Date as 20240101), inclusive.
 * - `maxLength`: text types, in characters (UTF-16 code units, as JavaScript counts them).
 * - `allowed`: the only values the field takes; for a Multiselection, the items each value may hold.
 * - `unique`: no two rows of the table hold the same non-null value, the rows of the same request
 *   included, checked against the table as the save would leave it.
 * - null is never below a minimum, too long or outside `allowed`: only `required` refuses it.
 */

/** Types whose values are numbers, so `minimum` and `maximum` apply. */
const ORDERED_TYPES: ReadonlySet<FieldType> = new Set(['Numeric', 'Date', 'DateTime', 'Time', 'Timespan', 'Latitude', 'Longitude', 'Identity'])

export function isOrderedType(type: FieldType): boolean {
  return ORDERED_TYPES.has(type)
}

/** Whether a field has any rule at all; saves of storages without rules skip every check. */
export function hasRules(field: FieldDef): field is FieldDef & { rules: FieldRules } {
  return field.rules !== undefined && Object.keys(field.rules).length > 0
}

/** One rule a value breaks: its code and the reason in words (without the row, which the caller names). */
export interface RuleBreach {
  code: Extract<ReturnStateCode, 'REQUIRED' | 'READ_ONLY' | 'BELOW_MINIMUM' | 'ABOVE_MAXIMUM' | 'TOO_LONG' | 'NOT_ALLOWED' | 'NOT_UNIQUE'>
  reason: string
}

/**
 * What the rules of `field` say about a value a save sends (`undefined`: the field was not sent).
 * `creating`: the row is new. Uniqueness needs the table: see `duplicateValues`.
 */
export function valueBreaches(field: FieldDef, value: FieldValue | undefined, creating: boolean): RuleBreach[] {
  const rules = field.rules
  if (rules === undefined) return []
  const breaches: RuleBreach[] = []
  const empty = value === null || value === ''
  if (rules.readOnly === true && value !== undefined && !(creating && value === null)) {
    breaches.push({ code: 'READ_ONLY', reason: `${field.name} is read-only: no save may write it${creating ? ' (a new row may send it null)' : ''}` })
  }
  if (rules.required === true) {
    if (creating && (value === undefined || empty)) breaches.push({ code: 'REQUIRED', reason: `${field.name} is required: a new row must give it a value` })
    else if (!creating && value !== undefined && empty)
      breaches.push({ code: 'REQUIRED', reason: `${field.name} is required: it cannot be set to ${describeValue(value)}` })
  }
  if (value === undefined || value === null) return breaches
  return [...breaches, ...presentValueBreaches(field, rules, value)]
}

/** The rules a non-null value breaks, uniqueness aside: what a fixture row and a sent value both obey. */
export function presentValueBreaches(field: FieldDef, rules: FieldRules, value: Exclude<FieldValue, null>): RuleBreach[] {
  const breaches: RuleBreach[] = []
  if (typeof value === 'number') {
    if (rules.minimum !== undefined && value < rules.minimum)
      breaches.push({ code: 'BELOW_MINIMUM', reason: `${field.name} must be at least ${rules.minimum}, got ${value}` })
    if (rules.maximum !== undefined && value > rules.maximum)
      breaches.push({ code: 'ABOVE_MAXIMUM', reason: `${field.name} must be at most ${rules.maximum}, got ${value}` })
  }
  if (typeof value === 'string' && rules.maxLength !== undefined && value.length > rules.maxLength) {
    breaches.push({ code: 'TOO_LONG', reason: `${field.name} takes at most ${rules.maxLength} characters, got ${value.length}` })
  }
  if (rules.allowed !== undefined) {
    const items = Array.isArray(value) ? value : [value]
    const allowed = allowedSet(rules.allowed)
    const outside = items.filter((item) => !allowed.has(item))
    if (outside.length > 0) {
      breaches.push({ code: 'NOT_ALLOWED', reason: `${field.name} takes only ${listed(rules.allowed)}; got ${listed(outside)}` })
    }
  }
  return breaches
}

/** Values an error message lists at most; the rest are counted, so a 100,000-value `allowed` list makes a short message. */
export const LISTED_VALUES = 10

/** Values as a message lists them: the first LISTED_VALUES, each quoted short (describeValue's 40 characters), and how many more. */
export function listed(values: readonly unknown[]): string {
  const shown = values.slice(0, LISTED_VALUES).map((v) => (typeof v === 'string' && v.length > 40 ? `${JSON.stringify(v.slice(0, 40))}...` : JSON.stringify(v)))
  return values.length > LISTED_VALUES ? `${shown.join(', ')} (and ${values.length - LISTED_VALUES} more)` : shown.join(', ')
}

/** An `allowed` list as a set, made once per list (rules never change): a look-up per value, not a scan of the list. */
const allowedSets = new WeakMap<readonly unknown[], ReadonlySet<unknown>>()
function allowedSet(allowed: readonly unknown[]): ReadonlySet<unknown> {
  let set = allowedSets.get(allowed)
  if (set === undefined) allowedSets.set(allowed, (set = new Set(allowed)))
  return set
}

/** The key a unique value is compared by: its JSON text (1 and '1' differ, as their types do). */
export function uniqueKey(value: FieldValue): string | null {
  return value === null || value === '' ? null : JSON.stringify(value)
}

/**
 * Rows whose value of a unique field another row holds too: `rows` is every row of the table as
 * the save would leave it (Id and value); `written` the Ids the save writes. Only written rows are
 * named (a row the save does not touch cannot be what broke the rule), each with another row that
 * holds the value. The empty text counts as no value, like null.
 */
export function duplicateValues(
  rows: Iterable<readonly [number, FieldValue]>,
  written: ReadonlySet<number>,
): Array<{ id: number; value: FieldValue; holder: number }> {
  const byValue = new Map<string, { value: FieldValue; ids: number[] }>()
  for (const [id, value] of rows) {
    const key = uniqueKey(value)
    if (key === null) continue
    const group = byValue.get(key)
    if (group === undefined) byValue.set(key, { value, ids: [id] })
    else group.ids.push(id)
  }
  const found: Array<{ id: number; value: FieldValue; holder: number }> = []
  for (const { value, ids } of byValue.values()) {
    if (ids.length < 2) continue
    for (const id of ids) if (written.has(id)) found.push({ id, value, holder: ids.find((other) => other !== id) as number })
  }
  return found
}

/**
 * What is wrong with a field's rules themselves, for the fixture checks: a rule the type cannot
 * have, bounds the wrong way round, allowed values of another type, a combination no save could
 * keep. Each problem names the rule (`minimum`, ...) it is about.
 */
export function ruleDefinitionProblems(field: FieldDef): Array<{ rule: keyof FieldRules; message: string }> {
  const rules = field.rules
  if (rules === undefined) return []
  const problems: Array<{ rule: keyof FieldRules; message: string }> = []
  const type = field.type
  for (const rule of ['minimum', 'maximum'] as const) {
    const bound = rules[rule]
    if (bound === undefined) continue
    if (!ORDERED_TYPES.has(type))
      problems.push({
        rule,
        message: `${rule} applies to fields whose values are numbers (Numeric, Date, DateTime, Time, Timespan, Latitude, Longitude), not to ${field.name}, a ${type} field`,
      })
    else if (!valueFits(type, bound, type === 'Numeric' ? undefined : field.decimals))
      problems.push({ rule, message: `${bound} is not a ${type} value, so it cannot bound ${field.name}` })
  }
  if (rules.minimum !== undefined && rules.maximum !== undefined && rules.minimum > rules.maximum) {
    problems.push({ rule: 'minimum', message: `minimum ${rules.minimum} is above maximum ${rules.maximum}: no value of ${field.name} could be saved` })
  }
  if (rules.maxLength !== undefined && !isTextType(type)) {
    problems.push({
      rule: 'maxLength',
      message: `maxLength applies to text fields (String, File, Link, WktShape, ImageUri, Color, Icon, RichText), not to ${field.name}, a ${type} field`,
    })
  }
  if (rules.allowed !== undefined) {
    if (rules.allowed.length === 0)
      problems.push({ rule: 'allowed', message: `allowed is empty: no value of ${field.name} could be saved (leave the rule out to allow any)` })
    // Each bad value is named up to LISTED_VALUES of them, then counted: a long list of wrong values makes a short refusal.
    let bad = 0
    const own = { ...rules, allowed: undefined }
    rules.allowed.forEach((value, i) => {
      const fits =
        value !== null &&
        (type === 'Multiselection'
          ? typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))
          : valueFits(type, value, field.decimals))
      const reasons = !fits
        ? [`allowed value ${i}, ${describeValue(value)}, is not a ${type} value${type === 'Multiselection' ? ' item' : ''} of ${field.name}`]
        : value !== null && !Array.isArray(value)
          ? presentValueBreaches(field, own, value).map((breach) => `allowed value ${describeValue(value)} breaks the field's own rule: ${breach.reason}`)
          : []
      if (reasons.length === 0) return
      if (bad++ < LISTED_VALUES) for (const message of reasons) problems.push({ rule: 'allowed', message })
    })
    if (bad > LISTED_VALUES)
      problems.push({
        rule: 'allowed',
        message: `and ${bad - LISTED_VALUES} more of the ${rules.allowed.length} allowed values of ${field.name} are not values it could hold`,
      })
  }
  if (rules.unique === true && (type === 'Multiselection' || type === 'Boolean')) {
    problems.push({ rule: 'unique', message: `unique does not apply to ${field.name}, a ${type} field` })
  }
  if (rules.required === true && rules.readOnly === true) {
    problems.push({ rule: 'readOnly', message: `${field.name} is both required and readOnly: no new row could be saved` })
  }
  return problems
}
