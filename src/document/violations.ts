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

/** `integer, null or array`: two or more alternatives as people write them. */
function orList(items: readonly string[]): string {
  return `${items.slice(0, -1).join(', ')} or ${items.at(-1) as string}`
}

/**
 * One finding per wrong member, from the violations of one validation (exact pointers):
 * - a `oneOf`, `anyOf` or `type` violation of a value that also has a violation inside it only
 *   repeats it: the value's type was taken by an alternative, which then found what is wrong
 *   inside (`/body must be object` beside `/body/0/Id must be integer` for a page of rows, or
 *   `values must be integer` beside `values/0 must be integer` for an array of Ids);
 * - of several violations of one value, the most precise is kept (`precision`), and the types of
 *   several alternatives are said once (`must be integer or array`);
 * - a member missing beside a near name is a misspelling, said once naming both
 *   (`nameMisspellings`; with `body`, also where the schema allows any other member).
 * Linear: one set of the pointers' ancestors, one map by pointer.
 */
export function dropEchoes(violations: readonly Violation[], body?: BodyRoot): Violation[] {
  if (violations.length === 0) return []
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
  let missing = false
  for (const violation of violations) {
    if (ancestors !== undefined && ALTERNATIVE_KEYWORDS.has(violation.keyword) && ancestors.has(violation.pointer)) continue
    if (violation.keyword === 'required') missing = true
    const kept = byPointer.get(violation.pointer)
    if (kept === undefined) {
      byPointer.set(violation.pointer, violation)
      continue
    }
    if (violation.keyword === 'type') {
      types ??= new Map()
      const wanted = types.get(violation.pointer) ?? typesWanted(kept)
      for (const type of typesWanted(violation)) if (!wanted.includes(type)) wanted.push(type)
      types.set(violation.pointer, wanted)
    }
    if (precision(violation) > precision(kept)) byPointer.set(violation.pointer, violation)
  }
  if (types !== undefined) {
    for (const [pointer, wanted] of types) {
      const kept = byPointer.get(pointer) as Violation
      if (kept.keyword === 'type' && wanted.length > 1) byPointer.set(pointer, { ...kept, message: `must be ${orList(wanted)}` })
    }
  }
  if (missing) nameMisspellings(byPointer, body)
  return [...byPointer.values()]
}

/** The value violations point into (a request's or an answer's body) and the pointer prefix its violations carry (`/body`). */
export interface BodyRoot {
  value: unknown
  prefix: string
}

/** Names longer than this are never taken for a misspelling of each other (the distance is quadratic in the names). */
const MAX_NAME_FOR_DISTANCE = 64
/** Name comparisons one call of `dropEchoes` makes at most while looking for misspellings (each at most 64 × 64 steps). */
const MISSPELLING_COMPARISONS = 4096

/**
 * Whether `found` is a misspelling of `wanted`: the same name in another case (`expires_In`), or a
 * name one edit away (two for names of 8 characters or more), counting a swap of two neighbours as
 * one edit (optimal string alignment): `Detials`, `Deatils`, `Detail`.
 */
export function isMisspelling(found: string, wanted: string): boolean {
  if (found === wanted) return false
  if (found.toLowerCase() === wanted.toLowerCase()) return true
  if (found.length > MAX_NAME_FOR_DISTANCE || wanted.length > MAX_NAME_FOR_DISTANCE) return false
  const bound = Math.min(found.length, wanted.length) >= 8 ? 2 : 1
  if (Math.abs(found.length - wanted.length) > bound) return false
  return editDistance(found, wanted) <= bound
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
function editDistance(a: string, b: string): number {
  let before = Array.from({ length: b.length + 1 }, (_, j) => j)
  let previous = before
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min((previous[j] as number) + 1, (row[j - 1] as number) + 1, (previous[j - 1] as number) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, (before[j - 2] as number) + 1)
      row.push(best)
    }
    before = previous
    previous = row
  }
  return previous[b.length] as number
}

/** A pointer's last segment, unescaped (RFC 6901). */
function lastSegment(pointer: string): string {
  return pointer
    .slice(pointer.lastIndexOf('/') + 1)
    .replaceAll('~1', '/')
    .replaceAll('~0', '~')
}

/** The value at `pointer` (below `body.prefix`) in the body, or undefined. */
function valueAt(body: BodyRoot, pointer: string): unknown {
  if (pointer !== body.prefix && !pointer.startsWith(`${body.prefix}/`)) return undefined
  let node = body.value
  if (pointer === body.prefix) return node
  for (const raw of pointer.slice(body.prefix.length + 1).split('/')) {
    if (node === null || typeof node !== 'object') return undefined
    node = (node as Record<string, unknown>)[raw.replaceAll('~1', '/').replaceAll('~0', '~')]
  }
  return node
}

/**
 * A member missing beside one the schema does not name, or one that is there under a near name,
 * is one mistake: a misspelling. The missing member's violation names the member that came
 * (`` `expires_In` came where `expires_in` was expected ``), and the unnamed member's own
 * violation, an echo of it, is dropped. The member that came is looked for among the violations
 * (a schema that allows no other member names it) and, with the body, in the object itself (one
 * that allows others does not). Linear: each missing member looks at its own object's names.
 */
function nameMisspellings(byPointer: Map<string, Violation>, body: BodyRoot | undefined): void {
  const unnamed = new Map<string, string[]>()
  for (const violation of byPointer.values()) {
    if (violation.keyword !== 'additionalProperties') continue
    const parent = violation.pointer.slice(0, violation.pointer.lastIndexOf('/'))
    const names = unnamed.get(parent)
    if (names === undefined) unnamed.set(parent, [lastSegment(violation.pointer)])
    else names.push(lastSegment(violation.pointer))
  }
  // Names compared at most, per call: an object of thousands of unknown members costs no more than this.
  let budget = MISSPELLING_COMPARISONS
  const near =
    (wanted: string) =>
    (name: string): boolean =>
      budget-- > 0 && isMisspelling(name, wanted)
  for (const [pointer, violation] of byPointer) {
    if (violation.keyword !== 'required' || budget <= 0) continue
    const parent = pointer.slice(0, pointer.lastIndexOf('/'))
    const wanted = lastSegment(pointer)
    let came = unnamed.get(parent)?.find(near(wanted))
    if (came === undefined && body !== undefined) {
      const object = valueAt(body, parent)
      if (object !== null && typeof object === 'object' && !Array.isArray(object)) {
        for (const name in object) {
          if (near(wanted)(name)) {
            came = name
            break
          }
          if (budget <= 0) break
        }
      }
    }
    if (came === undefined) continue
    byPointer.set(pointer, { ...violation, message: `\`${came}\` came where \`${wanted}\` was expected` })
    const echo = `${parent}/${came.replaceAll('~', '~0').replaceAll('/', '~1')}`
    if (byPointer.get(echo)?.keyword === 'additionalProperties') byPointer.delete(echo)
  }
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

/** How many ranks `rank` gives (0 to 3). */
const RANKS = 4

/** A pointer with each array index as `*`: the same place in every element. An index is a segment of digits alone. */
function generalPointer(pointer: string): string {
  return pointer.replace(/\/(?:0|[1-9]\d*)(?=\/|$)/g, '/*')
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
  readonly #merged = new Map<string, Merged>()

  /** Adds the violations of one validation, echoes already dropped (`dropEchoes`). */
  add(violations: Iterable<Violation>): void {
    for (const violation of violations) {
      const general = generalPointer(violation.pointer)
      const key = `${general}\n${violation.keyword}\n${violation.message}`
      const entry = this.#merged.get(key)
      if (entry === undefined) {
        this.#merged.set(key, { violation, count: violation.count ?? 1, pointer: violation.pointer })
        continue
      }
      entry.count += violation.count ?? 1
      if (entry.pointer !== violation.pointer) entry.pointer = commonPointer(entry.pointer, violation.pointer)
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

  /** Violations so far, each merged one counted as many times as it came. */
  get total(): number {
    let total = 0
    for (const { count } of this.#merged.values()) total += count
    return total
  }

  /** The summary: ranked (the telling ones first, then in the order found), capped at `limit`. */
  summary(limit = LISTED_VIOLATIONS): ViolationSummary {
    // Four ranks, each kept in the order found: a pass per rank until the list is full, no sort of the whole list.
    const violations: Violation[] = []
    for (let wanted = 0; wanted < RANKS && violations.length < limit; wanted++) {
      for (const { violation, count, pointer } of this.#merged.values()) {
        if (rank(violation) !== wanted) continue
        if (violations.length >= limit) break
        if (count === 1) violations.push(violation)
        else violations.push({ pointer, keyword: violation.keyword, message: violation.message, count, first: violation.first ?? violation.pointer })
      }
    }
    return { violations, unlisted: this.#merged.size - violations.length }
  }
}

/** One merged violation: the first found, how many, and the pointer they share (`*` where their indexes differ). */
interface Merged {
  violation: Violation
  count: number
  pointer: string
}

/**
 * Two pointers that are the same but for array indexes, with `*` where their indexes differ: the
 * rows of one delete group keep the group's index (`/body/0/Rows/*` ...), rows of several groups
 * do not (`/body/*` ...).
 */
function commonPointer(a: string, b: string): string {
  const left = a.split('/')
  const right = b.split('/')
  return left.map((segment, i) => (segment === right[i] ? segment : '*')).join('/')
}

/** The pipeline over the violations of one validation: echoes dropped, merged, ranked and capped. */
export function summarizeViolations(violations: readonly Violation[], limit = LISTED_VIOLATIONS, body?: BodyRoot): ViolationSummary {
  const tally = new ViolationTally()
  tally.add(dropEchoes(violations, body))
  return tally.summary(limit)
}

/** One violation as people read it: its pointer (`/` for the root), its message, and how often it came. */
export function violationText(violation: Violation): string {
  const times = violation.count !== undefined ? ` (${violation.count} times, first at ${violation.first ?? violation.pointer})` : ''
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
  // Array.prototype.sort is stable: each rank keeps the order given.
  return { violations: [...violations].sort((a, b) => rank(a) - rank(b)), unlisted: 0 }
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
