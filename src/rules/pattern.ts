import type { Violation } from '../errors.ts'
import { escapePointer } from '../document/reader.ts'
import { compileLinearRegexWork, MAX_BUILD_STEPS, type BuildBudget, type LinearRegex } from './regex.ts'
import { runAtOnce, runSliced, type Work } from './work.ts'

/**
 * The one pattern language of answer rules, journal queries and request assertions
 * (`match` of `POST /__mock/stubs`, `GET /__mock/requests?match=`, `mock.assertRequested()`).
 *
 * - an object matches an object when each of its members matches the member of that name;
 * - an array matches an array when each of its elements matches a distinct element;
 * - a scalar matches by equality;
 * - `{ "$contains": TEXT }` and `{ "$regex": TEXT }` match texts (regex.ts: RE2 syntax, linear time).
 *
 * Like WireMock's `MatchResult`, a match is not a yes or no: it is a distance between 0 (exact)
 * and 1 (nothing in common) with the members that differ, so the same function picks a rule,
 * filters the journal and names the near misses of a failed assertion.
 *
 * What a match costs is bounded when the pattern is compiled, never while it runs: its size, depth,
 * array elements, texts and expressions have limits (below), a `$regex` runs in one table step per
 * character, and an array pattern judges each pair of pattern element and request element once, then
 * matches them (Hopcroft and Karp's bipartite matching). A match over a large request (many rows, long
 * texts) can still be long work, so `matchSliced` does it in slices with a turn of the event loop
 * between them: other clients are answered meanwhile.
 */

/** A member that did not match: where, what the pattern asked, what the request had. */
export interface Difference {
  /** JSON pointer into the request's parts: `/body/Rows/0/Row/Customer`, `/headers/sessiontoken`, `/user`, `/operationId`. */
  pointer: string
  expected: string
  actual: string
}

export interface MatchResult {
  matched: boolean
  /** 0 for an exact match, 1 when nothing the pattern asks is there. */
  distance: number
  differences: Difference[]
}

/** What a rule, a journal query or an assertion asks of a request (`match` beside `operationId`). */
export interface RequestMatch {
  body?: unknown
  headers?: Record<string, unknown>
  user?: string
}

/** The parts of a request a pattern is held against. */
export interface RequestSubject {
  operationId: string | null
  body: unknown
  headers: Record<string, string | string[] | undefined>
  /** The signed-in user's e-mail; null when the request carried no valid session. */
  user: string | null
  /**
   * Why the body is not there to be matched (the journal did not keep it: over its size limit,
   * sent chunked, binary): a body pattern then differs at `/body`, with this as what the request had.
   */
  bodyNote?: string
  /** Why the headers are not there to be matched; a headers pattern then differs at `/headers`. */
  headersNote?: string
  /**
   * Shown redacted (the journal, near misses, assertions): the value of a header or body member
   * whose name `isSecret` says carries a secret is matched as `text`, never as what was sent, so
   * no pattern can learn a secret one guess at a time.
   */
  redacted?: { isSecret(name: string): boolean; text: string }
}

/** A request pattern checked once and ready to match many requests. */
export interface CompiledRequestPattern {
  readonly operationId: string | undefined
  /** True when the pattern asks nothing beyond the operation: matching it costs a comparison. */
  readonly operationOnly: boolean
  /** The match, done at once (for small subjects, and callers that cannot wait). */
  match(subject: RequestSubject): MatchResult
  /** Whether it matches, at once, without the differences (an answer rule's question). */
  test(subject: RequestSubject): boolean
  /**
   * The match in slices of at most `sliceMs` (SLICE_MS unless said) with a turn of the event loop
   * between them: the result itself when it took one slice, else a promise of it. `report: false`
   * asks only whether it matches (no differences).
   */
  matchSliced(subject: RequestSubject, options?: { report?: boolean; sliceMs?: number }): MatchResult | Promise<MatchResult>
  /**
   * The match as work that may pause (`Work`): a caller that matches many patterns in turn runs
   * them as one piece of work, with one time budget across them (decide.ts's `matchForDecision`).
   */
  matchWork(subject: RequestSubject, options?: { report?: boolean }): Work<MatchResult>
}

/** Deepest nesting of a pattern. */
export const MAX_DEPTH = 32
/** Most values (objects, arrays, texts, numbers, operators) in one pattern. */
export const MAX_NODES = 1_000
/** Most elements of one array of a pattern (each is judged against every element of the request's array). */
export const MAX_ARRAY_ELEMENTS = 100
/** Longest text of a pattern (a scalar or `$contains`); `$regex` has its own limits (regex.ts). */
export const MAX_TEXT = 4_096
/** Most cells of all the `$regex` tables of one pattern (4 bytes each: 256 KB). */
export const MAX_PATTERN_CELLS = 65_536
/** Longest text a `$regex` or `$contains` is run on; a longer text does not match (documented). */
export const MAX_REGEX_SUBJECT = 1_048_576
/** Elements of a request's array a pattern's array is compared with; later ones are not looked at. */
export const MAX_ARRAY_SCAN = 100_000
/** Longest stretch of matching work between two turns of the event loop, in `matchSliced`. */
export const SLICE_MS = 8

type Node =
  | { kind: 'scalar'; value: string | number | boolean | null; leaves: 1 }
  | { kind: 'contains'; text: string; leaves: 1 }
  | { kind: 'regex'; re: LinearRegex; leaves: 1 }
  | { kind: 'object'; members: Array<[string, Node]>; leaves: number }
  | { kind: 'array'; elements: Node[]; leaves: number }

const OPERATORS = new Set(['$contains', '$regex'])

/** What a compile counts, against the pattern's limits. */
interface Budget {
  nodes: number
  cells: number
  /** The work left to build the pattern's expressions (regex.ts). */
  build: BuildBudget
}

/**
 * Checks a request pattern and compiles it (expressions once). Returns the violations, pointing
 * into the caller's body at `at` (`/match`, or `''` for a journal query), when it cannot be used:
 * an unknown `$` operator, an expression the linear-time engine does not take or that is too large,
 * a header asked to be anything but a text, a pattern deeper, larger or wider than the limits.
 */
export function compileRequestPattern(input: PatternInput, at = '/match'): CompiledPattern {
  return runAtOnce(compileRequestPatternWork(input, at))
}

/** What a pattern is compiled from: a rule's operation and `match`, or a journal query's. */
export type PatternInput = { operationId?: string | undefined; match?: RequestMatch | undefined }

/** A compiled pattern, or the violations that say why there is none. */
export type CompiledPattern = { ok: true; pattern: CompiledRequestPattern } | { ok: false; violations: Violation[] }

/**
 * `compileRequestPattern` as work that may pause (work.ts): between expressions, and while an
 * expression's automaton is built. A rule of a thousand expressions took most of a second to compile.
 */
export function* compileRequestPatternWork(input: PatternInput, at = '/match'): Work<CompiledPattern> {
  const violations: Violation[] = []
  const budget: Budget = { nodes: 0, cells: 0, build: { steps: MAX_BUILD_STEPS } }
  const match = input.match ?? {}
  const body = match.body === undefined ? undefined : yield* compileNode(match.body, `${at}/body`, 0, budget, violations)
  const headers: Array<[string, Node]> = []
  for (const [name, value] of Object.entries(match.headers ?? {})) {
    const pointer = `${at}/headers/${escapePointer(name)}`
    const before = violations.length
    const node = yield* compileNode(value, pointer, 0, budget, violations)
    // A header's value is a text: an object, an array or a number could never match one.
    if (violations.length === before && node.kind !== 'contains' && node.kind !== 'regex' && !(node.kind === 'scalar' && typeof node.value === 'string')) {
      violations.push({ pointer, keyword: 'type', message: 'must be a text, {"$contains": TEXT} or {"$regex": TEXT}: a header is a text' })
    }
    headers.push([name.toLowerCase(), node])
  }
  if (violations.length > 0) return { ok: false, violations }
  const want: Want = { operationId: input.operationId, body, headers, user: match.user?.toLowerCase() }
  const operationOnly = body === undefined && headers.length === 0 && want.user === undefined
  return {
    ok: true,
    pattern: {
      operationId: input.operationId,
      operationOnly,
      match: (subject) => runAtOnce(matchParts(subject, want, true)),
      test: (subject) => runAtOnce(matchParts(subject, want, false)).matched,
      matchSliced: (subject, options = {}) => runSliced(matchParts(subject, want, options.report !== false), options.sliceMs ?? SLICE_MS),
      matchWork: (subject, options = {}) => matchParts(subject, want, options.report !== false),
    },
  }
}

interface Want {
  operationId: string | undefined
  body: Node | undefined
  headers: Array<[string, Node]>
  user: string | undefined
}

/** How a match runs: with the differences (a report) or only to a yes or no; what is redacted. */
interface Run {
  report: boolean
  redacted: RequestSubject['redacted']
  /** Pairs judged since the last pause point. */
  work: number
}

/** Judging this many pairs or characters gives the slice a chance to end. */
const PAUSE_EVERY = 2_048

function* matchParts(subject: RequestSubject, want: Want, report: boolean): Work<MatchResult> {
  const run: Run = { report, redacted: subject.redacted, work: 0 }
  const sameUser = want.user === undefined || (subject.user !== null && subject.user.toLowerCase() === want.user)
  const sameOperation = want.operationId === undefined || subject.operationId === want.operationId
  // Only a yes or no is asked: what costs a comparison is asked first, and the first difference settles it.
  if (!report && (!sameUser || !sameOperation)) return { matched: false, distance: 1, differences: [] }
  // Each part asked for weighs the same, as WireMock averages its matchers: a request of another
  // operation is a far miss however well its body fits.
  const distances: number[] = []
  const differences: Difference[] = []
  const found = report ? differences : null
  if (want.operationId !== undefined) {
    distances.push(sameOperation ? 0 : 1)
    if (!sameOperation) differences.push({ pointer: '/operationId', expected: want.operationId, actual: subject.operationId ?? '(none: not an API operation)' })
  }
  if (want.body !== undefined && subject.bodyNote !== undefined) {
    distances.push(1)
    differences.push({ pointer: '/body', expected: `a body to match (${describeNode(want.body)})`, actual: subject.bodyNote })
  } else if (want.body !== undefined) {
    const matched = yield* judge(want.body, subject.body, '/body', found, run)
    if (!report && matched < want.body.leaves) return { matched: false, distance: 1, differences }
    distances.push(1 - matched / want.body.leaves)
  }
  if (want.headers.length > 0 && subject.headersNote !== undefined) {
    distances.push(1)
    differences.push({ pointer: '/headers', expected: `headers to match (${want.headers.map(([name]) => name).join(', ')})`, actual: subject.headersNote })
  } else if (want.headers.length > 0) {
    let leaves = 0
    let matched = 0
    for (const [name, node] of want.headers) {
      leaves += node.leaves
      const raw = subject.headers[name]
      const sent = Array.isArray(raw) ? raw.join(', ') : raw
      const value = sent !== undefined && run.redacted?.isSecret(name) === true ? run.redacted.text : sent
      const pointer = `/headers/${escapePointer(name)}`
      if (value === undefined) found?.push({ pointer, expected: describeNode(node), actual: 'absent' })
      else matched += yield* judge(node, value, pointer, found, run)
    }
    if (!report && matched < leaves) return { matched: false, distance: 1, differences }
    distances.push(1 - matched / leaves)
  }
  if (want.user !== undefined) {
    distances.push(sameUser ? 0 : 1)
    if (!sameUser) differences.push({ pointer: '/user', expected: want.user, actual: subject.user ?? '(no signed-in user)' })
  }
  const distance = distances.length === 0 ? 0 : distances.reduce((a, b) => a + b, 0) / distances.length
  // Differences are what a report shows; without one, a part that fell short says it alone.
  const matched = report ? differences.length === 0 : distances.every((d) => d === 0)
  return { matched, distance, differences }
}

function* compileNode(value: unknown, pointer: string, depth: number, budget: Budget, violations: Violation[]): Work<Node> {
  budget.nodes += 1
  const fail = (keyword: string, message: string, at = pointer): Node => {
    violations.push({ pointer: at, keyword, message })
    return { kind: 'scalar', value: null, leaves: 1 }
  }
  if (budget.nodes > MAX_NODES)
    return budget.nodes === MAX_NODES + 1 ? fail('maxNodes', `makes the pattern larger than ${MAX_NODES} values`) : { kind: 'scalar', value: null, leaves: 1 }
  if (depth > MAX_DEPTH) return fail('maxDepth', `nests deeper than ${MAX_DEPTH} levels`)
  if (typeof value === 'string')
    return value.length > MAX_TEXT ? fail('maxLength', `is longer than ${MAX_TEXT} characters`) : { kind: 'scalar', value, leaves: 1 }
  if (value === null || typeof value === 'boolean') return { kind: 'scalar', value, leaves: 1 }
  if (typeof value === 'number') return Number.isFinite(value) ? { kind: 'scalar', value, leaves: 1 } : fail('type', 'is not a JSON number')
  if (Array.isArray(value)) {
    if (value.length > MAX_ARRAY_ELEMENTS)
      return fail(
        'maxItems',
        `has ${value.length} elements, more than the ${MAX_ARRAY_ELEMENTS} an array of a pattern may have (each is judged against every element of the request's array)`,
      )
    const elements: Node[] = []
    for (let index = 0; index < value.length; index++) elements.push(yield* compileNode(value[index], `${pointer}/${index}`, depth + 1, budget, violations))
    return {
      kind: 'array',
      elements,
      leaves: Math.max(
        1,
        elements.reduce((sum, e) => sum + e.leaves, 0),
      ),
    }
  }
  if (typeof value !== 'object') return fail('type', 'is not a JSON value')
  const keys = Object.keys(value)
  const operators = keys.filter((key) => key.startsWith('$'))
  if (operators.length > 0) {
    const unknown = operators.find((key) => !OPERATORS.has(key))
    if (unknown !== undefined)
      return fail('operator', `${unknown} is not an operator: use $contains or $regex (a member whose name starts with $ cannot be matched)`)
    if (keys.length !== 1) return fail('operator', `${operators[0]} must be the object's only member`)
    const [name] = operators
    const text = (value as Record<string, unknown>)[name as string]
    if (typeof text !== 'string') return fail('operator', `${name} takes a text`)
    if (name === '$contains')
      return text.length > MAX_TEXT ? fail('maxLength', `is longer than ${MAX_TEXT} characters`, `${pointer}/$contains`) : { kind: 'contains', text, leaves: 1 }
    const compiled = yield* compileLinearRegexWork(text, budget.build)
    // Reading an expression (re2js) is not counted in the build's steps: each one is a chance for a slice to end.
    yield
    if (!compiled.ok) return fail('regex', compiled.message, `${pointer}/$regex`)
    budget.cells += compiled.regex.cells
    if (budget.cells > MAX_PATTERN_CELLS)
      return fail(
        'maxCells',
        `makes the pattern's expressions larger than ${MAX_PATTERN_CELLS} table cells in all; use fewer or simpler expressions`,
        `${pointer}/$regex`,
      )
    return { kind: 'regex', re: compiled.regex, leaves: 1 }
  }
  const members: Array<[string, Node]> = []
  for (const key of keys)
    members.push([key, yield* compileNode((value as Record<string, unknown>)[key], `${pointer}/${escapePointer(key)}`, depth + 1, budget, violations)])
  return {
    kind: 'object',
    members,
    leaves: Math.max(
      1,
      members.reduce((sum, [, node]) => sum + node.leaves, 0),
    ),
  }
}

/**
 * The leaves of `node` that `value` matches; what differs goes to `found` (null: not asked for).
 * It matches wholly exactly when the count is `node.leaves`.
 */
function* judge(node: Node, value: unknown, pointer: string, found: Difference[] | null, run: Run): Work<number> {
  switch (node.kind) {
    case 'scalar':
      if (value === node.value) return 1
      found?.push({ pointer, expected: JSON.stringify(node.value), actual: describeValue(value) })
      return 0
    case 'contains':
    case 'regex': {
      const fits = typeof value === 'string' && value.length <= MAX_REGEX_SUBJECT && (yield* textFits(node, value, run))
      if (fits) return 1
      found?.push({ pointer, expected: describeNode(node), actual: describeValue(value) })
      return 0
    }
    case 'object': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        found?.push({ pointer, expected: 'an object', actual: describeValue(value) })
        return 0
      }
      let matched = 0
      for (const [key, child] of node.members) {
        // Own members only: a body's `__proto__` member is data, and `constructor` is never inherited.
        if (!Object.hasOwn(value, key)) {
          found?.push({ pointer: `${pointer}/${escapePointer(key)}`, expected: describeNode(child), actual: 'absent' })
          if (!run.report) return matched
          continue
        }
        const member = (value as Record<string, unknown>)[key]
        const shown = run.redacted?.isSecret(key) && member !== null && member !== '' ? run.redacted.text : member
        const got = yield* judge(child, shown, found === null ? '' : `${pointer}/${escapePointer(key)}`, found, run)
        matched += got
        // Only a yes or no is asked: the first member that differs settles it.
        if (!run.report && got < child.leaves) return matched
      }
      return node.members.length === 0 ? 1 : matched
    }
    case 'array':
      if (!Array.isArray(value)) {
        found?.push({ pointer, expected: 'an array', actual: describeValue(value) })
        return 0
      }
      return node.elements.length === 0 ? 1 : yield* judgeArray(node.elements, value, pointer, found, run)
  }
}

/**
 * Characters a `$regex` reads between two chances for the slice to end (half as many as one pause
 * counts: 65,536, a third of a millisecond). A text up to a piece long is read by the automaton's
 * `test`, about 10 % faster a character than a search a piece at a time (whose loop stops inside
 * the text), so a piece is kept short: the sizes a query text is measured at (128 KB and 1 MB, by the
 * error-path test and the bench) then take the same path, and their times grow with the text alone.
 */
const REGEX_PIECE = PAUSE_EVERY << 5

/**
 * Whether a text fits a `$contains` or `$regex`; a long text gives the slice a chance to end first,
 * and a `$regex` reads a text longer than REGEX_PIECE a piece at a time, with a chance before each.
 */
function* textFits(node: Node & { kind: 'contains' | 'regex' }, text: string, run: Run): Work<boolean> {
  const first = node.kind === 'contains' ? text.length : Math.min(text.length, REGEX_PIECE)
  run.work += first >> 6
  if (run.work >= PAUSE_EVERY) {
    run.work = 0
    yield
  }
  if (node.kind === 'contains') return text.includes(node.text)
  if (text.length <= REGEX_PIECE) return node.re.test(text)
  const search = node.re.search(text)
  for (let settled = search.advance(REGEX_PIECE); ; settled = search.advance(REGEX_PIECE)) {
    if (settled !== undefined) return settled
    run.work += Math.min(text.length - search.position, REGEX_PIECE) >> 6
    if (run.work >= PAUSE_EVERY) {
      run.work = 0
      yield
    }
  }
}

/**
 * Each pattern element must match a distinct element of the array. Every pair is judged once (a yes
 * or no, without differences), then the pairs that fit are matched (Hopcroft and Karp). When some
 * element cannot be matched, it is reported against the closest element no other took, so a near
 * miss names the member that differs rather than "no element matched".
 */
function* judgeArray(elements: Node[], values: unknown[], pointer: string, found: Difference[] | null, run: Run): Work<number> {
  const scanned = Math.min(values.length, MAX_ARRAY_SCAN)
  const quiet: Run = { report: false, redacted: run.redacted, work: run.work }
  const fits: number[][] = []
  for (const element of elements) {
    const fitting: number[] = []
    for (let j = 0; j < scanned; j++) {
      if ((yield* judge(element, values[j], '', null, quiet)) === element.leaves) fitting.push(j)
      if (++quiet.work >= PAUSE_EVERY) {
        quiet.work = 0
        yield
      }
    }
    // Only a yes or no is asked: an element nothing fits settles it.
    if (!run.report && fitting.length === 0) {
      run.work = quiet.work
      return 0
    }
    fits.push(fitting)
  }
  run.work = quiet.work
  const owner = yield* bipartiteMatching(fits)
  let matched = 0
  const assigned = new Set(owner.values())
  const unassigned: number[] = []
  elements.forEach((element, i) => {
    if (assigned.has(i)) matched += element.leaves
    else unassigned.push(i)
  })
  if (!run.report || unassigned.length === 0) return matched
  const free = new Set<number>()
  for (let j = 0; j < scanned; j++) if (!owner.has(j)) free.add(j)
  for (const i of unassigned) {
    const element = elements[i] as Node
    let closest = -1
    let closestLeaves = -1
    for (const j of free) {
      const leaves = yield* judge(element, values[j], '', null, { report: true, redacted: run.redacted, work: 0 })
      if (leaves > closestLeaves) {
        closest = j
        closestLeaves = leaves
      }
    }
    if (closest === -1) {
      found?.push({
        pointer: `${pointer}/-`,
        expected: `one more element: ${describeNode(element)}`,
        actual: `${values.length} element(s), each taken by another part of the pattern`,
      })
      continue
    }
    free.delete(closest)
    matched += yield* judge(element, values[closest], `${pointer}/${closest}`, found, run)
  }
  return matched
}

/**
 * A largest matching of pattern elements (left) to array elements (right) over the pairs that fit:
 * Hopcroft and Karp, O(E √V) for E fitting pairs. Returns the owner (pattern element) of each
 * array element taken.
 */
function* bipartiteMatching(fits: number[][]): Work<Map<number, number>> {
  const left = fits.length
  const matchLeft = new Int32Array(left).fill(-1)
  const owner = new Map<number, number>()
  const dist = new Int32Array(left)
  const INF = 0x7fffffff
  let steps = 0
  for (;;) {
    // Layers from the free pattern elements (breadth first).
    const queue: number[] = []
    for (let i = 0; i < left; i++) {
      if (matchLeft[i] === -1) {
        dist[i] = 0
        queue.push(i)
      } else dist[i] = INF
    }
    let reachesFree = false
    for (let head = 0; head < queue.length; head++) {
      const i = queue[head] as number
      for (const j of fits[i] as number[]) {
        if (++steps >= PAUSE_EVERY) {
          steps = 0
          yield
        }
        const next = owner.get(j)
        if (next === undefined) reachesFree = true
        else if (dist[next] === INF) {
          dist[next] = (dist[i] as number) + 1
          queue.push(next)
        }
      }
    }
    if (!reachesFree) break
    // Augmenting paths along the layers (depth first; a path is at most as long as the pattern is wide).
    const augment = (i: number): boolean => {
      for (const j of fits[i] as number[]) {
        const next = owner.get(j)
        if (next === undefined || (dist[next] === (dist[i] as number) + 1 && augment(next))) {
          owner.set(j, i)
          matchLeft[i] = j
          return true
        }
      }
      dist[i] = INF
      return false
    }
    let grew = false
    for (let i = 0; i < left; i++) if (matchLeft[i] === -1 && augment(i)) grew = true
    if (!grew) break
    yield
  }
  return owner
}

function describeNode(node: Node): string {
  switch (node.kind) {
    case 'scalar':
      return JSON.stringify(node.value)
    case 'contains':
      return `a text containing ${JSON.stringify(node.text)}`
    case 'regex':
      return `a text matching /${node.re.source}/`
    case 'object':
      return 'an object'
    case 'array':
      return 'an array'
  }
}

/** A request's value, short enough for a message. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'absent'
  if (typeof value === 'string' && value.length > 80) return `${JSON.stringify(value.slice(0, 77))}...`
  // Only what is shown is written out: a large array or object is not serialised whole for 80 characters.
  const text =
    Array.isArray(value) && value.length > 20
      ? `[${value.length} elements]`
      : value !== null && typeof value === 'object' && Object.keys(value).length > 20
        ? `{${Object.keys(value).length} members}`
        : (JSON.stringify(value) ?? String(value))
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}
