import { LATEST_VERSION } from '../../spec/versions.ts'
import { CONTROL_PREFIX } from '../../spec/control-plane/constants.ts'
import { isObject } from '../document/json.ts'
import { isSecretName } from '../journal/redact.ts'
import { UsageAccumulator, type UsageFile } from '../usage-file/file.ts'
import { recordExchange } from '../usage-file/record.ts'
import { judgeAnswer } from './answer-side.ts'
import { FindingTally, type Accepted, type Finding, type Observation } from './findings.ts'
import { dedupe, judgeRequest } from './request-side.ts'
import { anyReleaseRoute, releaseView, routeOf, SIGN_IN_RELEASES } from './views.ts'

/**
 * What the proxy makes of the exchanges it passed on, after they were passed on: each is judged on
 * both sides against the documents of its release, counted into the findings, kept for the HTML
 * report (the recent ones, and the first of each finding) and, with --record-usage, folded into the
 * usage. Exchanges wait in a queue and are judged a turn of the event loop later, in batches, so
 * judging never delays or alters the bytes the client receives.
 */

/** How an exchange ended. */
export type Outcome =
  /** The installation answered and the answer reached the client whole. */
  | 'answered'
  /** The installation could not be reached: the proxy answered 502. */
  | 'unreachable'
  /** The installation sent nothing for --timeout: the proxy answered 504. */
  | 'timeout'
  /** The client went away, or the answer broke off, before the end. */
  | 'broken'

/** One exchange as the proxy passed it on: the bytes collected on the way (up to the check limit), and how it ended. */
export interface ObservedExchange {
  /** Epoch milliseconds at arrival. */
  startedAt: number
  durationMs: number
  method: string
  url: string
  requestHeaders: Record<string, string | string[] | undefined>
  requestBody: Buffer | 'too-large'
  /** Bytes the client sent (also past the check limit). */
  requestBytes: number
  status: number
  answerHeaders: Record<string, string | string[] | undefined>
  answerBody: Buffer | 'too-large'
  answerBytes: number
  outcome: Outcome
  /** The proxy's own reason, for an exchange it answered itself (502, 504) or that broke off. */
  reason?: string
}

/** An exchange as the HTML report shows it: its request and answer (bodies cut), and what was found in it. */
export interface KeptExchange {
  seq: number
  startedAt: number
  durationMs: number
  method: string
  url: string
  operationId: string | null
  release: string
  beforeSignIn: boolean
  status: number
  outcome: Outcome
  reason?: string
  requestHeaders: Record<string, string | string[] | undefined>
  requestBody: Buffer
  requestBytes: number
  answerContentType: string
  answerBody: Buffer
  answerBytes: number
  observations: Observation[]
}

/** What secrets a report hides, wherever they show up in its texts: added as the proxy meets them. */
export interface SecretFilter {
  (text: string): string
  add(secret: unknown): void
}

/** Where the release of the exchanges comes from. */
export type ReleaseSource = 'given' | 'sign-in' | 'probe' | 'newest'

export interface InspectorOptions {
  /** The target's URL, for the report. */
  target: string
  /** `--product-version`, normalized; undefined to detect it from the sign-in path the client uses. */
  release?: string
  accepted?: readonly Accepted[]
  /** Fold every exchange into a usage file (`--record-usage`). */
  recordUsage?: boolean
  secrets: SecretFilter
}

/** The report (the interface's shape, with the accepted findings apart). */
export interface ProxyReport {
  target: string
  release: string
  releaseFrom: ReleaseSource
  exchanges: number
  violations: Finding[]
  ignored: Finding[]
  /** Distinct findings past the report's limit, counted but not listed. */
  unlisted?: number
  /** Exchanges passed on but not judged, because a check failed on them (please report it), with the first reason. */
  unjudged?: { count: number; first: string }
}

/** Bytes of each body kept for the HTML report. */
export const PREVIEW_BYTES = 8 * 1024
/** Exchanges kept for the HTML report besides the first of each finding: the most recent. */
export const RECENT_EXCHANGES = 200

const preview = (body: Buffer | 'too-large'): Buffer => (body === 'too-large' ? Buffer.alloc(0) : Buffer.from(body.subarray(0, PREVIEW_BYTES)))
const headerText = (value: string | string[] | undefined): string => (Array.isArray(value) ? value.join(', ') : (value ?? ''))

export class Inspector {
  readonly target: string
  readonly tally: FindingTally
  readonly #given: string | undefined
  readonly #secrets: SecretFilter
  readonly #usage: UsageAccumulator | undefined
  #signedIn: string | undefined
  #probed: string | undefined
  #queue: ObservedExchange[] = []
  #scheduled = false
  #count = 0
  #seq = 0
  /** Not folded into the usage: a body past the check limit was not kept. */
  unrecorded = 0
  /** Exchanges the checks failed on (a bug of the proxy's): passed on, not judged. */
  unjudged = 0
  #unjudgedReason: string | undefined
  readonly #recent: KeptExchange[] = []
  /** The first exchange of each finding, by the finding's key. */
  readonly #firsts = new Map<string, KeptExchange>()
  #lastToken = ''

  constructor(options: InspectorOptions) {
    this.target = options.target
    this.tally = new FindingTally(options.accepted)
    this.#given = options.release
    this.#secrets = options.secrets
    this.#usage = options.recordUsage === true ? new UsageAccumulator() : undefined
  }

  /** Takes an exchange that ended; it is judged a turn later. */
  observe(exchange: ObservedExchange): void {
    this.#count++
    this.#queue.push(exchange)
    if (!this.#scheduled) {
      this.#scheduled = true
      setImmediate(() => this.drain())
    }
  }

  /** The release the target answered a probe of its sign-in paths with (`--org`), unless the client's sign-in says otherwise. */
  probed(release: string): void {
    this.#probed = release
  }

  /** The release exchanges are judged by now, and where it comes from. */
  release(): { release: string; from: ReleaseSource } {
    if (this.#given !== undefined) return { release: this.#given, from: 'given' }
    if (this.#signedIn !== undefined) return { release: this.#signedIn, from: 'sign-in' }
    if (this.#probed !== undefined) return { release: this.#probed, from: 'probe' }
    return { release: LATEST_VERSION, from: 'newest' }
  }

  /** Judges every exchange waiting. */
  drain(): void {
    this.#scheduled = false
    const batch = this.#queue
    this.#queue = []
    for (const exchange of batch) {
      // Whatever an exchange holds, judging it must not stop the proxy: it is counted as not judged, with the first reason.
      try {
        this.#judge(exchange)
      } catch (error) {
        this.unjudged++
        this.#unjudgedReason ??= `${exchange.method} ${exchange.url.split('?')[0]}: ${(error as Error).message}`
      }
    }
  }

  #judge(exchange: ObservedExchange): void {
    const question = exchange.url.indexOf('?')
    const path = question < 0 ? exchange.url : exchange.url.slice(0, question)
    this.#learnSecrets(exchange.requestHeaders)
    // The mock's control plane is no part of the API: passed on, never judged.
    if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) return
    const signIn = anyReleaseRoute(exchange.method, path)
    const signInRelease = signIn === undefined ? undefined : SIGN_IN_RELEASES[signIn.operationId]
    // A sign-in is judged by the release its path is; the release it shows counts from its success on.
    const current = this.release()
    const release = this.#given ?? signInRelease ?? current.release
    const beforeSignIn = this.#given === undefined && signInRelease === undefined && current.from === 'newest'
    if (this.#given === undefined && signInRelease !== undefined && exchange.status >= 200 && exchange.status < 300 && exchange.outcome === 'answered') this.#signedIn = signInRelease
    const view = releaseView(release)
    const routed = routeOf(view, exchange.method, path)
    const observations: Observation[] = []
    let body: unknown
    if (routed === undefined) {
      const elsewhere = anyReleaseRoute(exchange.method, path)
      observations.push({
        side: 'request',
        severity: 'violation',
        pointer: '',
        message: elsewhere === undefined
          ? `must be an operation of the document: none takes ${exchange.method} ${path}`
          : `must be an operation of release ${release}: ${elsewhere.operationId} is one of releases ${elsewhere.versions}`,
      })
    } else {
      const judged = judgeRequest(routed, view, { method: exchange.method, url: exchange.url, headers: exchange.requestHeaders, body: exchange.requestBody })
      body = judged.body
      observations.push(...judged.observations)
      if (signInRelease !== undefined) this.#learnBody(body)
    }
    if (exchange.requestBody === 'too-large') {
      observations.push({ side: 'request', severity: 'warning', pointer: '/body', message: `passed unchecked: ${exchange.requestBytes} bytes, over --check-limit` })
    }
    if (exchange.outcome === 'unreachable' || exchange.outcome === 'timeout') {
      observations.push({ side: 'answer', severity: 'warning', pointer: '/status', message: `no answer from the target (${exchange.outcome === 'timeout' ? 'it sent nothing for --timeout' : 'it could not be reached'}): the proxy answered ${exchange.status}`, example: exchange.status })
    } else if (exchange.outcome === 'answered' && routed !== undefined) {
      const bodiless = exchange.method === 'HEAD' || exchange.status === 204 || exchange.status === 304
      observations.push(...judgeAnswer(routed.route, view.description, { status: exchange.status, headers: exchange.answerHeaders, body: exchange.answerBody, bodiless }))
      if (exchange.answerBody === 'too-large') {
        observations.push({ side: 'answer', severity: 'warning', pointer: '/body', message: `passed unchecked: ${exchange.answerBytes} bytes, over --check-limit` })
      } else if (signInRelease !== undefined) this.#learnAnswer(exchange.answerBody)
    }
    const operationId = routed?.route.operationId ?? null
    const found = dedupe(observations)
    const keys = this.tally.add({ operationId, method: exchange.method, path: routed?.route.path ?? path, status: exchange.status, release, beforeSignIn }, found)
    const kept: KeptExchange = {
      seq: ++this.#seq,
      startedAt: exchange.startedAt,
      durationMs: exchange.durationMs,
      method: exchange.method,
      url: exchange.url,
      operationId,
      release,
      beforeSignIn,
      status: exchange.status,
      outcome: exchange.outcome,
      ...(exchange.reason === undefined ? {} : { reason: exchange.reason }),
      requestHeaders: exchange.requestHeaders,
      requestBody: preview(exchange.requestBody),
      requestBytes: exchange.requestBytes,
      answerContentType: headerText(exchange.answerHeaders['content-type']),
      answerBody: preview(exchange.answerBody),
      answerBytes: exchange.answerBytes,
      observations: found,
    }
    this.#recent.push(kept)
    if (this.#recent.length > RECENT_EXCHANGES) this.#recent.shift()
    for (const key of keys) if (!this.#firsts.has(key)) this.#firsts.set(key, kept)
    if (this.#usage !== undefined && routed !== undefined && exchange.outcome === 'answered') this.#record(exchange, routed.route.operationId, routed.params, body, release)
  }

  #record(exchange: ObservedExchange, operation: string, params: Record<string, string>, body: unknown, release: string): void {
    const contentType = headerText(exchange.answerHeaders['content-type'])
    // A JSON answer past the check limit was not kept, so it has no shape to fold in; a file needs only its media type.
    const answerKept = exchange.answerBody !== 'too-large' || !/json/i.test(contentType)
    if (exchange.requestBody === 'too-large' || !answerKept) {
      this.unrecorded++
      return
    }
    recordExchange(this.#usage as UsageAccumulator, release, {
      operation,
      url: exchange.url,
      headers: exchange.requestHeaders,
      body,
      params,
      status: exchange.status,
      contentType,
      payload: exchange.answerBody === 'too-large' ? undefined : exchange.answerBody,
    })
  }

  /** Session tokens in headers (SessionToken, Authorization), hidden from every report text. */
  #learnSecrets(headers: Record<string, string | string[] | undefined>): void {
    for (const name of ['sessiontoken', 'authorization']) {
      const value = headerText(headers[name])
      if (value === '' || value === this.#lastToken) continue
      this.#lastToken = value
      this.#secrets.add(value)
      const credentials = /^\s*\S+\s+(\S+)\s*$/.exec(value)?.[1]
      if (credentials !== undefined) this.#secrets.add(credentials)
    }
  }

  /** The values of secret members (passwords, tokens) of a sign-in's form or body. */
  #learnBody(value: unknown, depth = 0): void {
    if (depth > 8 || !isObject(value)) return
    for (const [name, member] of Object.entries(value)) {
      if (isSecretName(name)) this.#secrets.add(member)
      else this.#learnBody(member, depth + 1)
    }
  }

  #learnAnswer(body: Buffer): void {
    try {
      this.#learnBody(JSON.parse(body.toString('utf8')))
    } catch {
      // Not JSON: nothing the report would show as a member.
    }
  }

  /** Exchanges so far (passed on, judged or waiting). */
  get count(): number {
    return this.#count
  }

  /** The report so far (every exchange waiting judged first). */
  report(): ProxyReport {
    this.drain()
    const { reported, ignored } = this.tally.lists()
    const { release, from } = this.release()
    return {
      target: this.target,
      release,
      releaseFrom: from,
      exchanges: this.#count,
      violations: reported,
      ignored,
      ...(this.tally.overflow > 0 ? { unlisted: this.tally.overflow } : {}),
      ...(this.unjudged > 0 ? { unjudged: { count: this.unjudged, first: this.#unjudgedReason ?? '' } } : {}),
    }
  }

  /** The exchanges kept for the HTML report, in order: the first of each finding, and the most recent. */
  exchanges(): KeptExchange[] {
    this.drain()
    const all = new Map<number, KeptExchange>()
    for (const exchange of [...this.#firsts.values(), ...this.#recent]) all.set(exchange.seq, exchange)
    return [...all.values()].sort((a, b) => a.seq - b.seq)
  }

  /** The usage so far, with --record-usage. */
  usage(): UsageFile | undefined {
    this.drain()
    return this.#usage?.file()
  }

  /** Whether a violation (not accepted) was found on the side --fail-on names. */
  failed(failOn: FailOn): boolean {
    if (failOn === 'none') return false
    return this.report().violations.some((finding) => finding.severity === 'violation' && (failOn === 'any' || finding.side === failOn))
  }
}

/** `--fail-on`: which side's violations fail the run. */
export type FailOn = 'answer' | 'request' | 'any' | 'none'
