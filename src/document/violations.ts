import type { ErrorObject } from 'ajv/dist/2020.js'
import { ProblemError, type ProblemCode, type Violation } from '../errors.ts'

/**
 * The one violation pipeline of the project: what the mock's problems list, what the proxy and
 * verify report and what the rules' answer check refuses all pass through it, so one mistake reads
 * the same everywhere and invalid input costs what valid input costs. In order:
 *
 * 1. `toViolations`: Ajv's errors as violations, copied at once (Ajv overwrites `errors`).
 * 2. `dropEchoes`: one finding per wrong member. Done on the exact pointers of one validation, where
 *    "this violation lies inside that one" is true of the value and not of a row like it.
 * 3. `summarizeViolations`: the same fault in many array elements merged into one violation with a
 *    `*` pointer, a `count` and the `first` exact pointer; ranked, the telling ones first; capped
 *    at `LISTED_VIOLATIONS`, the rest counted in `unlisted`.
 *
 * Every step is linear in the violations it is given: nothing compares violations pairwise, and
 * nothing spreads an unbounded array into a call (a save of 8,000 rows that fit no schema once
 * overflowed the stack doing that, and took 21 s comparing pairs first).
 */

/** Violations a problem, a report or a refusal lists at most; the rest are counted (`unlisted`). */
export const LISTED_VIOLATIONS = 100

/**
 * Ajv errors as violations. The pointer starts with the request part (`/body`, `/headers`,
 * `/query`, `/params`) and, for a missing or unnamed member, ends with its name, so the message
 * names the field. The same pointer and message twice (Ajv reports a `$ref`'s error once per path
 * to it) is one violation.
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

/** Keywords that only say "this value is not what an alternative wanted": echoes when something more precise is said of the same value. */
const ALTERNATIVE_KEYWORDS = new Set(['oneOf', 'anyOf', 'type'])

/**
 * Of several violations at one pointer, which one says most: a `const` or an `enum` names the
 * values wanted (and so implies the type); then the type; then any check of a value's content;
 * last a failed `oneOf`/`anyOf`, which only says that no alternative fitted.
 */
function precision(violation: Violation): number {
  switch (violation.keyword) {
    case 'const':
    case 'enum':
      return 3
    case 'type':
      return 2
    case 'oneOf':
    case 'anyOf':
      return 0
    default:
      return 1
  }
}

/** The types a `type` violation asks for (`must be integer,null` → integer, null), or none when the message is not Ajv's. */
function typesWanted(violation: Violation): string[] {
  const found = /^must be ([a-z]+(?:,[a-z]+)*)$/.exec(violation.message)
  return found === null ? [] : (found[1] as string).split(',')
}

/** `integer, null or array`: a list of alternatives as people write it. */
function orList(items: readonly string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} or ${items.at(-1) as string}`
}

/**
 * One finding per wrong member, from the violations of one validation (exact pointers):
 * - a `oneOf`, `anyOf` or `type` violation of a value that also has a violation inside it only
 *   repeats it: the value's type was taken by an alternative, which then found what is wrong
 *   inside (`/body must be object` beside `/body/0/Id must be integer` for a page of rows, or
 *   `values must be integer` beside `values/0 must be integer` for an array of Ids);
 * - of several violations of one value, the most precise is kept (`precision`), and the types of
 *   several alternatives are said once (`must be integer or array`).
 * Linear: one set of the pointers' ancestors, one map by pointer.
 */
export function dropEchoes(violations: readonly Violation[]): Violation[] {
  if (violations.length <= 1) return [...violations]
  // Only an alternative's keyword can be an echo: the ancestors are gathered only when one is there.
  let ancestors: Set<string> | undefined
  for (const { keyword } of violations) {
    if (ALTERNATIVE_KEYWORDS.has(keyword)) {
      ancestors = ancestorsOf(violations)
      break
    }
  }
  const byPointer = new Map<string, Violation>()
  // Pointers with several `type` violations, and every type they ask for (rare: only alternatives give them).
  let types: Map<string, string[]> | undefined
  for (const violation of violations) {
    if (ancestors !== undefined && ALTERNATIVE_KEYWORDS.has(violation.keyword) && ancestors.has(violation.pointer)) continue
    const kept = byPointer.get(violation.pointer)
    if (kept === undefined) {
      byPointer.set(violation.pointer, violation)
      continue
    }
    if (violation.keyword === 'type' && kept.keyword === 'type') {
      types ??= new Map()
      const wanted = types.get(violation.pointer) ?? typesWanted(kept)
      for (const type of typesWanted(violation)) if (!wanted.includes(type)) wanted.push(type)
      types.set(violation.pointer, wanted)
    }
    if (precision(violation) > precision(kept)) byPointer.set(violation.pointer, violation)
  }
  if (types === undefined) return [...byPointer.values()]
  const out: Violation[] = []
  for (const violation of byPointer.values()) {
    const wanted = types.get(violation.pointer)
    out.push(violation.keyword === 'type' && wanted !== undefined && wanted.length > 1 ? { ...violation, message: `must be ${orList(wanted)}` } : violation)
  }
  return out
}

/** Every pointer that has a violation below it. */
function ancestorsOf(violations: readonly Violation[]): Set<string> {
  const ancestors = new Set<string>()
  for (const { pointer } of violations) {
    for (let at = pointer.lastIndexOf('/'); at > 0; at = pointer.lastIndexOf('/', at - 1)) {
      const ancestor = pointer.slice(0, at)
      // Every shorter prefix of a prefix already seen was added with it.
      if (ancestors.has(ancestor)) break
      ancestors.add(ancestor)
    }
  }
  return ancestors
}

/**
 * How telling a violation is, lowest first: a value that is wrong (a type, a bound, a pattern,
 * any check of the mock's own) says what to fix; a member the schema does not name is often a
 * misspelling of one it does; a member missing often comes by the dozen from one partial object;
 * a failed `oneOf`/`anyOf` only says that no alternative fitted, which the others say better.
 */
function rank(violation: Violation): number {
  switch (violation.keyword) {
    case 'additionalProperties':
      return 1
    case 'required':
      return 2
    case 'oneOf':
    case 'anyOf':
      return 3
    default:
      return 0
  }
}

/** A pointer with each array index as `*`: the same place in every element. An index is a segment of digits alone. */
function generalPointer(pointer: string): string {
  return /\/\d/.test(pointer) ? pointer.replace(/\/(?:0|[1-9]\d*)(?=\/|$)/g, '/*') : pointer
}

/** What a list of violations comes to: at most `LISTED_VIOLATIONS`, ranked, and how many more were found. */
export interface ViolationSummary {
  violations: Violation[]
  /** Distinct violations (after merging) past the listed ones. */
  unlisted: number
}

/**
 * Violations gathered from one or several validations (a big body is checked a slice of rows at a
 * time), merged as they come: the same keyword and message at the same place of many array
 * elements is one violation with a `*` pointer, a `count` and the `first` exact pointer. One
 * element's violation keeps its exact pointer.
 */
export class ViolationTally {
  readonly #merged = new Map<string, { violation: Violation; count: number }>()

  /** Adds the violations of one validation, echoes already dropped (`dropEchoes`). */
  add(violations: Iterable<Violation>): void {
    for (const violation of violations) {
      const general = generalPointer(violation.pointer)
      const key = `${general}\n${violation.keyword}\n${violation.message}`
      const entry = this.#merged.get(key)
      if (entry === undefined) this.#merged.set(key, { violation, count: violation.count ?? 1 })
      else entry.count += violation.count ?? 1
    }
  }

  /** Forgets every violation added. */
  clear(): void {
    this.#merged.clear()
  }

  /** Distinct violations so far. */
  get size(): number {
    return this.#merged.size
  }

  /** The summary: ranked (the telling ones first, then in the order found), capped at `limit`. */
  summary(limit = LISTED_VIOLATIONS): ViolationSummary {
    // Four ranks, each kept in the order found: one pass into buckets, no sort of the whole list.
    const byRank: Array<Array<{ violation: Violation; count: number }>> = [[], [], [], []]
    for (const entry of this.#merged.values()) {
      const bucket = byRank[rank(entry.violation)] as Array<{ violation: Violation; count: number }>
      if (bucket.length < limit) bucket.push(entry)
    }
    const violations: Violation[] = []
    for (const bucket of byRank) {
      for (const { violation, count } of bucket) {
        if (violations.length >= limit) break
        if (count === 1) violations.push(violation)
        else violations.push({ pointer: generalPointer(violation.pointer), keyword: violation.keyword, message: violation.message, count, first: violation.first ?? violation.pointer })
      }
    }
    return { violations, unlisted: this.#merged.size - violations.length }
  }
}

/** The pipeline over the violations of one validation: echoes dropped, merged, ranked and capped. */
export function summarizeViolations(violations: readonly Violation[], limit = LISTED_VIOLATIONS): ViolationSummary {
  const tally = new ViolationTally()
  tally.add(dropEchoes(violations))
  return tally.summary(limit)
}

/** One violation as people read it: its pointer (`/` for the root), its message, and how often it came. */
export function violationText(violation: Violation): string {
  const times = violation.count !== undefined && violation.count > 1 ? ` (${violation.count} times, first at ${violation.first ?? violation.pointer})` : ''
  return `${violation.pointer === '' ? '/' : violation.pointer} ${violation.message}${times}`
}

/**
 * One sentence naming the first few violations of a summary, for a problem's `detail`: the list is
 * ranked, so "3 missing (and 9 more)" never hides the one wrong value; `unlisted` counts in "more".
 */
export function describeViolations(summary: ViolationSummary | readonly Violation[]): string {
  const { violations, unlisted } = Array.isArray(summary) ? summarizeListed(summary as readonly Violation[]) : (summary as ViolationSummary)
  const shown = violations.slice(0, 3).map(violationText)
  const more = violations.length - shown.length + unlisted
  return `${shown.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`
}

/** A list that did not come through the pipeline (a handful the mock made itself), ranked for its sentence. */
function summarizeListed(violations: readonly Violation[]): ViolationSummary {
  const ordered = violations.map((violation, index) => ({ violation, index })).sort((a, b) => rank(a.violation) - rank(b.violation) || a.index - b.index)
  return { violations: ordered.map(({ violation }) => violation), unlisted: 0 }
}

/**
 * The 400 problem for violations found by a validation (or gathered in a tally): the summary's
 * list in `violations`, `unlisted` when the list was cut, and a `detail` naming the first few.
 */
export function violationsProblem(
  found: readonly Violation[] | ViolationSummary,
  code: ProblemCode = 'VALIDATION',
  extra: Record<string, unknown> = {},
  sentence: (described: string) => string = (described) => described,
): ProblemError {
  const summary = Array.isArray(found) ? summarizeViolations(found as readonly Violation[]) : (found as ViolationSummary)
  return new ProblemError(code, sentence(describeViolations(summary)), {
    ...extra,
    violations: summary.violations,
    ...(summary.unlisted > 0 ? { unlisted: summary.unlisted } : {}),
  })
}
