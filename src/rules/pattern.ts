import safeRegex from 'safe-regex2'
import type { Violation } from '../errors.ts'

/**
 * The one pattern language of answer rules, journal queries and request assertions
 * (`match` of `POST /__mock/stubs`, `GET /__mock/requests?match=`, `mock.assertRequested()`).
 *
 * - an object matches an object when each of its members matches the member of that name;
 * - an array matches an array when each of its elements matches a distinct element;
 * - a scalar matches by equality;
 * - `{ "$contains": TEXT }` and `{ "$regex": TEXT }` match texts.
 *
 * Like WireMock's `MatchResult`, a match is not a yes or no: it is a distance between 0 (exact)
 * and 1 (nothing in common) with the members that differ, so the same function picks a rule,
 * filters the journal and names the near misses of a failed assertion.
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
}

/** A request pattern checked once and ready to match many requests. */
export interface CompiledRequestPattern {
  readonly operationId: string | undefined
  /** True when the pattern asks nothing beyond the operation: matching it costs a comparison. */
  readonly operationOnly: boolean
  match(subject: RequestSubject): MatchResult
}

// Bounds that keep a pattern's cost on the request path small, whatever a test sends.
const MAX_DEPTH = 32
const MAX_NODES = 10_000
const MAX_REGEX_LENGTH = 1_000
/** Longest text a `$regex` is run on; a longer text does not match (documented). */
export const MAX_REGEX_SUBJECT = 1_048_576
/** Elements of a request's array a pattern's array is compared with; later ones are not looked at. */
export const MAX_ARRAY_SCAN = 100_000

type Node =
  | { kind: 'scalar'; value: string | number | boolean | null; leaves: 1 }
  | { kind: 'contains'; text: string; leaves: 1 }
  | { kind: 'regex'; re: RegExp; leaves: 1 }
  | { kind: 'object'; members: Array<[string, Node]>; leaves: number }
  | { kind: 'array'; elements: Node[]; leaves: number }

const OPERATORS = new Set(['$contains', '$regex'])

/**
 * Checks a request pattern and compiles it (regular expressions once). Returns the violations,
 * pointing into the caller's body at `at` (`/match`, or `''` for a journal query), when it
 * cannot be used: an unknown `$` operator, a regular expression that does not compile or could
 * take exponential time, a pattern deeper or larger than the mock matches on its request path.
 */
export function compileRequestPattern(
  input: { operationId?: string | undefined; match?: RequestMatch | undefined },
  at = '/match',
): { ok: true; pattern: CompiledRequestPattern } | { ok: false; violations: Violation[] } {
  const violations: Violation[] = []
  const budget = { nodes: 0 }
  const match = input.match ?? {}
  const body = match.body === undefined ? undefined : compileNode(match.body, `${at}/body`, 0, budget, violations)
  const headers: Array<[string, Node]> = []
  for (const [name, value] of Object.entries(match.headers ?? {})) {
    headers.push([name.toLowerCase(), compileNode(value, `${at}/headers/${escapePointer(name)}`, 0, budget, violations)])
  }
  if (violations.length > 0) return { ok: false, violations }
  const user = match.user?.toLowerCase()
  const operationId = input.operationId
  const operationOnly = body === undefined && headers.length === 0 && user === undefined
  return {
    ok: true,
    pattern: {
      operationId,
      operationOnly,
      match: (subject) => matchParts(subject, { operationId, body, headers, user }),
    },
  }
}

function matchParts(
  subject: RequestSubject,
  want: { operationId: string | undefined; body: Node | undefined; headers: Array<[string, Node]>; user: string | undefined },
): MatchResult {
  // Each part asked for weighs the same, as WireMock averages its matchers: a request of another
  // operation is a far miss however well its body fits.
  const distances: number[] = []
  const differences: Difference[] = []
  if (want.operationId !== undefined) {
    const same = subject.operationId === want.operationId
    distances.push(same ? 0 : 1)
    if (!same) differences.push({ pointer: '/operationId', expected: want.operationId, actual: subject.operationId ?? '(none: not an API operation)' })
  }
  if (want.body !== undefined && subject.bodyNote !== undefined) {
    distances.push(1)
    differences.push({ pointer: '/body', expected: `a body to match (${describeNode(want.body)})`, actual: subject.bodyNote })
  } else if (want.body !== undefined) {
    const result = matchNode(want.body, subject.body, '/body', differences)
    distances.push(1 - result / want.body.leaves)
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
      const value = Array.isArray(raw) ? raw.join(', ') : raw
      const pointer = `/headers/${escapePointer(name)}`
      if (value === undefined) differences.push({ pointer, expected: describeNode(node), actual: 'absent' })
      else matched += matchNode(node, value, pointer, differences)
    }
    distances.push(1 - matched / leaves)
  }
  if (want.user !== undefined) {
    const same = subject.user !== null && subject.user.toLowerCase() === want.user
    distances.push(same ? 0 : 1)
    if (!same) differences.push({ pointer: '/user', expected: want.user, actual: subject.user ?? '(no signed-in user)' })
  }
  const distance = distances.length === 0 ? 0 : distances.reduce((a, b) => a + b, 0) / distances.length
  return { matched: differences.length === 0, distance, differences }
}

function compileNode(value: unknown, pointer: string, depth: number, budget: { nodes: number }, violations: Violation[]): Node {
  budget.nodes += 1
  const fail = (keyword: string, message: string): Node => {
    violations.push({ pointer, keyword, message })
    return { kind: 'scalar', value: null, leaves: 1 }
  }
  if (budget.nodes > MAX_NODES) return budget.nodes === MAX_NODES + 1 ? fail('maxNodes', `makes the pattern larger than ${MAX_NODES} values`) : { kind: 'scalar', value: null, leaves: 1 }
  if (depth > MAX_DEPTH) return fail('maxDepth', `nests deeper than ${MAX_DEPTH} levels`)
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return { kind: 'scalar', value, leaves: 1 }
  if (typeof value === 'number') return Number.isFinite(value) ? { kind: 'scalar', value, leaves: 1 } : fail('type', 'is not a JSON number')
  if (Array.isArray(value)) {
    const elements = value.map((element, index) => compileNode(element, `${pointer}/${index}`, depth + 1, budget, violations))
    return { kind: 'array', elements, leaves: Math.max(1, elements.reduce((sum, e) => sum + e.leaves, 0)) }
  }
  if (typeof value !== 'object') return fail('type', 'is not a JSON value')
  const keys = Object.keys(value)
  const operators = keys.filter((key) => key.startsWith('$'))
  if (operators.length > 0) {
    const unknown = operators.find((key) => !OPERATORS.has(key))
    if (unknown !== undefined) return fail('operator', `${unknown} is not an operator: use $contains or $regex (a member whose name starts with $ cannot be matched)`)
    if (keys.length !== 1) return fail('operator', `${operators[0]} must be the object's only member`)
    const [name] = operators
    const text = (value as Record<string, unknown>)[name as string]
    if (typeof text !== 'string') return fail('operator', `${name} takes a text`)
    if (name === '$contains') return { kind: 'contains', text, leaves: 1 }
    return compileRegex(text, pointer, violations)
  }
  const members: Array<[string, Node]> = keys.map((key) => [key, compileNode((value as Record<string, unknown>)[key], `${pointer}/${escapePointer(key)}`, depth + 1, budget, violations)])
  return { kind: 'object', members, leaves: Math.max(1, members.reduce((sum, [, node]) => sum + node.leaves, 0)) }
}

function compileRegex(source: string, pointer: string, violations: Violation[]): Node {
  const fail = (message: string): Node => {
    violations.push({ pointer: `${pointer}/$regex`, keyword: 'regex', message })
    return { kind: 'scalar', value: null, leaves: 1 }
  }
  if (source.length > MAX_REGEX_LENGTH) return fail(`is longer than ${MAX_REGEX_LENGTH} characters`)
  let re: RegExp
  try {
    re = new RegExp(source, 'u')
  } catch (error) {
    return fail(`does not compile as a JavaScript regular expression (u flag): ${(error as Error).message}`)
  }
  // A rule's expression runs on every matching request; one that can backtrack exponentially
  // would let a single request stall the mock for every client.
  if (!safeRegex(re)) return fail('could take exponential time (a repetition inside a repetition); write it without nested quantifiers')
  return { kind: 'regex', re, leaves: 1 }
}

/** Matched leaves of `node` against `value`; adds what differs. */
function matchNode(node: Node, value: unknown, pointer: string, differences: Difference[]): number {
  switch (node.kind) {
    case 'scalar':
      if (value === node.value) return 1
      differences.push({ pointer, expected: JSON.stringify(node.value), actual: describeValue(value) })
      return 0
    case 'contains':
      if (typeof value === 'string' && value.includes(node.text)) return 1
      differences.push({ pointer, expected: `a text containing ${JSON.stringify(node.text)}`, actual: describeValue(value) })
      return 0
    case 'regex':
      if (typeof value === 'string' && value.length <= MAX_REGEX_SUBJECT && node.re.test(value)) return 1
      differences.push({ pointer, expected: `a text matching /${node.re.source}/`, actual: describeValue(value) })
      return 0
    case 'object': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        differences.push({ pointer, expected: 'an object', actual: describeValue(value) })
        return 0
      }
      if (node.members.length === 0) return 1
      let matched = 0
      for (const [key, child] of node.members) {
        const at = `${pointer}/${escapePointer(key)}`
        // Own members only: a body's `__proto__` member is data, and `constructor` is never inherited.
        if (!Object.hasOwn(value, key)) differences.push({ pointer: at, expected: describeNode(child), actual: 'absent' })
        else matched += matchNode(child, (value as Record<string, unknown>)[key], at, differences)
      }
      return matched
    }
    case 'array':
      if (!Array.isArray(value)) {
        differences.push({ pointer, expected: 'an array', actual: describeValue(value) })
        return 0
      }
      return node.elements.length === 0 ? 1 : matchArray(node.elements, value, pointer, differences)
  }
}

/**
 * Each pattern element must match a distinct element of the array (a bipartite matching, found
 * with augmenting paths). When some cannot, each is reported against the closest element left,
 * so a near miss names the member that differs rather than "no element matched".
 */
function matchArray(elements: Node[], values: unknown[], pointer: string, differences: Difference[]): number {
  const scanned = Math.min(values.length, MAX_ARRAY_SCAN)
  const fits: number[][] = elements.map((element) => {
    const out: number[] = []
    for (let j = 0; j < scanned; j++) {
      const found: Difference[] = []
      matchNode(element, values[j], '', found)
      if (found.length === 0) out.push(j)
    }
    return out
  })
  const owner = new Map<number, number>()
  const assign = (i: number, seen: Set<number>): boolean => {
    for (const j of fits[i] ?? []) {
      if (seen.has(j)) continue
      seen.add(j)
      const previous = owner.get(j)
      if (previous === undefined || assign(previous, seen)) {
        owner.set(j, i)
        return true
      }
    }
    return false
  }
  const assigned = new Set<number>()
  elements.forEach((_, i) => {
    if (assign(i, new Set())) assigned.add(i)
  })
  let matched = 0
  elements.forEach((element, i) => {
    if (assigned.has(i)) {
      matched += element.leaves
      return
    }
    const taken = new Set(owner.keys())
    let closest = -1
    let closestLeaves = -1
    for (let j = 0; j < scanned; j++) {
      if (taken.has(j)) continue
      const leaves = matchNode(element, values[j], '', [])
      if (leaves > closestLeaves) {
        closest = j
        closestLeaves = leaves
      }
    }
    if (closest === -1) {
      differences.push({ pointer: `${pointer}/-`, expected: `one more element: ${describeNode(element)}`, actual: `${values.length} element(s), each taken by another part of the pattern` })
      return
    }
    matched += matchNode(element, values[closest], `${pointer}/${closest}`, differences)
  })
  return matched
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
  const text = JSON.stringify(value) ?? String(value)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

function escapePointer(name: string): string {
  return name.replaceAll('~', '~0').replaceAll('/', '~1')
}
