import { isObject } from '../../document/json.ts'
import { REDACTED, isSecretName, redactValue } from '../../policy/redact.ts'
import { acceptingEntry, type IgnoreEntry } from '../kit/ignore-match.ts'

/**
 * What the proxy found, as data: each finding says on which side (the client's request, the
 * installation's answer), how grave (a violation of the document, or a warning: a leniency the
 * lenient mock accepts, a gateway status, a body too large to check), where (a JSON pointer into
 * the exchange), what the document expects, and an example of what came, redacted as the mock's
 * journal redacts. Identical findings are one, counted.
 */

export type ExchangeSide = 'request' | 'answer'

/**
 * Where a finding about the media type points: the header as the description spells it ("Content-Type
 * is application/json unless stated", the description, Endpoints), as every header pointer of a
 * report is spelt as the document spells the header, not as Node lower-cases it.
 */
export const CONTENT_TYPE_POINTER = '/headers/Content-Type'
export type Severity = 'violation' | 'warning'

/** One finding of one exchange, before it is counted. */
export interface Observation {
  side: ExchangeSide
  severity: Severity
  /** `/body/Rows/*\/Row/Amount`, `/headers/Content-Type`, `/status`; array positions written `*`, header names as the document spells them. */
  pointer: string
  /** What the document expects, or what the leniency is. */
  message: string
  /** What came at the pointer, redacted; undefined when nothing did. */
  example?: unknown
}

/** A finding as the report lists it (the interface's shape), with the release it was judged by. */
export interface Finding {
  side: ExchangeSide
  severity: Severity
  /** The operation the request reached, or null for a request no operation of the release takes. */
  operationId: string | null
  method: string
  /** The document's path template, or the path as sent when no operation takes it. */
  path: string
  /** The status of the answer (of the first exchange that showed it, for the request side). */
  status: number
  pointer: string
  message: string
  /** How many exchanges showed it. */
  count: number
  example?: unknown
  /** The release whose document judged it. */
  release: string
  /** Judged before any sign-in showed the release (against the newest release). */
  beforeSignIn?: true
}

/** What an exchange is, for the findings it gives. */
export interface ExchangeKey {
  operationId: string | null
  method: string
  path: string
  status: number
  release: string
  beforeSignIn: boolean
}

/**
 * A pointer with the positions of arrays written `*`, so that a fault every row shares is one
 * finding (`/body/*\/Amount`), not one per row. Only segments that index an array of `root` are
 * replaced: a member named `-1` (PrimaryKeyData's keys) stays as it is.
 */
export function generalPointer(pointer: string, root: unknown, prefix: string): string {
  if (!pointer.startsWith(prefix)) return pointer
  const segments = pointer.slice(prefix.length).split('/').slice(1)
  let node = root
  const out: string[] = []
  for (const raw of segments) {
    if (Array.isArray(node) && /^\d+$/.test(raw)) {
      out.push('*')
      node = node[Number(raw)]
      continue
    }
    out.push(raw)
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~')
    node = isObject(node) ? node[key] : undefined
  }
  return `${prefix}${out.map((segment) => `/${segment}`).join('')}`
}

/** The value at a pointer below `prefix` in `root`, or undefined. */
export function valueAt(root: unknown, pointer: string, prefix: string): unknown {
  if (!pointer.startsWith(prefix)) return undefined
  let node = root
  for (const raw of pointer.slice(prefix.length).split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~')
    if (Array.isArray(node)) node = node[Number(key)]
    else if (isObject(node)) node = node[key]
    else return undefined
  }
  return node
}

/** Longest text of an example; an example is a glimpse, not a copy of the body. */
const EXAMPLE_CHARS = 240

/**
 * An example as the report shows it: secrets replaced (a member or header whose name carries one,
 * at any depth, as the journal does), and anything longer than EXAMPLE_CHARS as JSON cut short.
 */
export function exampleOf(value: unknown, pointer: string): unknown {
  if (value === undefined) return undefined
  const last = pointer.slice(pointer.lastIndexOf('/') + 1)
  if (isSecretName(last) && value !== null && value !== '') return REDACTED
  const redacted = redactValue(value)
  const text = JSON.stringify(redacted) ?? ''
  return text.length <= EXAMPLE_CHARS ? redacted : `${text.slice(0, EXAMPLE_CHARS)}… (${text.length} characters)`
}

/** A finding an --ignore entry accepted, with the entry's reason when it gives one. */
export interface IgnoredFinding extends Finding {
  reason?: string
}

/** Longest message of a finding. */
const MESSAGE_CHARS = 300

/** Distinct findings kept; past this many, new ones are counted in `overflow` only (a report stays readable, and memory bounded). */
export const MAX_FINDINGS = 2000

/** The findings so far, each counted once, split into the reported and the accepted (ignored). */
export class FindingTally {
  readonly #findings = new Map<string, Finding>()
  readonly #accepted: readonly IgnoreEntry[]
  overflow = 0

  constructor(accepted: readonly IgnoreEntry[] = []) {
    this.#accepted = accepted
  }

  /** Counts an exchange's observations; the keys of the findings it counted, new or not. */
  add(exchange: ExchangeKey, observations: readonly Observation[]): string[] {
    const keys: string[] = []
    for (const observation of observations) {
      const key = JSON.stringify([
        observation.side,
        observation.severity,
        exchange.operationId,
        exchange.method,
        exchange.path,
        // The answer's status is part of what it is; a request is the same fault whatever it got back.
        observation.side === 'answer' ? exchange.status : 0,
        observation.pointer,
        observation.message,
        exchange.release,
        exchange.beforeSignIn,
      ])
      const known = this.#findings.get(key)
      // A message quoting a long pattern of the document is cut: the pointer says where to read it whole.
      const message = observation.message.length > MESSAGE_CHARS ? `${observation.message.slice(0, MESSAGE_CHARS)}…` : observation.message
      if (known !== undefined) {
        known.count++
      } else if (this.#findings.size >= MAX_FINDINGS) {
        this.overflow++
        continue
      } else {
        this.#findings.set(key, {
          side: observation.side,
          severity: observation.severity,
          operationId: exchange.operationId,
          method: exchange.method,
          path: exchange.path,
          status: exchange.status,
          pointer: observation.pointer,
          message,
          count: 1,
          ...(observation.example === undefined ? {} : { example: observation.example }),
          release: exchange.release,
          ...(exchange.beforeSignIn ? { beforeSignIn: true as const } : {}),
        })
      }
      keys.push(key)
    }
    return keys
  }

  /** The --ignore entry that accepts a finding (the first that does), or undefined. */
  acceptedBy(finding: Pick<Finding, 'side' | 'operationId' | 'pointer'>): IgnoreEntry | undefined {
    if (this.#accepted.length === 0) return undefined
    return acceptingEntry(this.#accepted, {
      side: finding.side,
      operationIds: finding.operationId === null ? [] : [finding.operationId],
      pointer: finding.pointer,
    })
  }

  /** The findings in a stable order (side, violations first, operation, pointer), split by --ignore, each accepted one with its entry's reason. */
  lists(): { reported: Finding[]; ignored: IgnoredFinding[] } {
    const order = (f: Finding) => `${f.side === 'request' ? 0 : 1}${f.severity === 'violation' ? 0 : 1} ${f.operationId ?? '~'} ${f.pointer} ${f.message}`
    // Compared by code units: a collation would put `~` (no operation) before the names, not after them.
    const all = [...this.#findings.values()]
      .map((finding) => ({ finding, by: order(finding) }))
      .sort((a, b) => (a.by < b.by ? -1 : a.by > b.by ? 1 : 0))
      .map(({ finding }) => finding)
    const reported: Finding[] = []
    const ignored: IgnoredFinding[] = []
    for (const finding of all) {
      const entry = this.acceptedBy(finding)
      if (entry === undefined) reported.push(finding)
      else ignored.push(entry.reason === undefined ? finding : { ...finding, reason: entry.reason })
    }
    return { reported, ignored }
  }

  /** The finding counted under a key. */
  get(key: string): Finding | undefined {
    return this.#findings.get(key)
  }
}
