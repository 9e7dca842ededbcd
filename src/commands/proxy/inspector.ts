import { LATEST_VERSION } from '../../../spec/versions.ts'
import { CONTROL_PREFIX } from '../../../spec/control-plane/constants.ts'
import { isSecretName, redactUrl } from '../../policy/redact.ts'
import { USAGE_VERSION, type Interaction, type UsageFile } from '../../usage-file/file.ts'
import { FindingTally, type IgnoredFinding, type Observation, type ExchangeSide, type Finding } from './findings.ts'
import type { IgnoreEntry } from '../kit/ignore-match.ts'
import { NOT_JUDGED_REASONS, PREVIEW_BYTES, type ExchangeToJudge, type Judgement, type NotJudgedReason, type Outcome } from './judge.ts'
import { startJudgeThread, type JudgeThread, type StartJudge } from './judge-thread.ts'
import type { JudgeReply } from './judge-protocol.ts'

export { PREVIEW_BYTES, type Outcome, type NotJudgedReason } from './judge.ts'

/**
 * What the proxy makes of the exchanges it passed on, kept on the main thread: the release they
 * are judged by, the findings, the exchanges kept for the HTML report, the usage, and what was not
 * judged. The judging itself runs on a thread of its own (judge-worker.ts), so nothing it does can
 * delay the bytes the client receives or a signal: each exchange that ended is sent there with its
 * bodies (their memory moved, not copied), and its judgement comes back. What waits to be judged is
 * bounded (QUEUE_EXCHANGES, QUEUE_BYTES); an exchange that ends while judging is that far behind
 * passes unjudged and is counted (`notJudged`), so memory never grows with a slow judge.
 */

/** One exchange as the proxy passed it on: the bytes collected on the way (up to the check limit), and how it ended. */
export interface ObservedExchange {
  /** Epoch milliseconds at arrival. */
  startedAt: number
  durationMs: number
  method: string
  url: string
  requestHeaders: Record<string, string | string[] | undefined>
  /** Its bytes (a Buffer that owns its memory, so it can move to the judging thread), or `too-large`. */
  requestBody: Buffer | 'too-large'
  /** Bytes the client sent (also past the check limit). */
  requestBytes: number
  /** Whether the client sent its request whole. */
  requestComplete: boolean
  status: number
  answerHeaders: Record<string, string | string[] | undefined>
  /** The body the client received: the target's (up to the check limit), or the proxy's own problem. */
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
  /** Path and query, secret query parameters redacted. */
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
  /** The answer's `Content-Encoding`, when it had one. */
  answerEncoding?: string
  /** The answer's first bytes as the client's HTTP library reads them: decoded when it came encoded and was. */
  answerBody: Buffer
  answerBytes: number
  /** Bytes of the decoded answer, when it came encoded and was decoded. */
  decodedBytes?: number
  observations: Observation[]
}

/** What secrets a report hides, wherever they show up in its texts: added as the proxy meets them. */
export interface SecretFilter {
  (text: string): string
  add(secret: unknown): void
}

/** Where the release of the exchanges comes from. */
export type ReleaseSource = 'given' | 'sign-in' | 'probe' | 'newest'

/** Most exchanges waiting to be judged (sent to the judging thread, or waiting for it to start). */
export const QUEUE_EXCHANGES = 1000
/** Most bytes of bodies waiting to be judged; one exchange of any size (up to --check-limit) is taken when none waits. */
export const QUEUE_BYTES = 64 * 1024 * 1024
/** Exchanges that passed unjudged before the judging thread started, remembered for the sign-in they may be (more are only counted). */
const SKELETONS = 10_000

export interface InspectorOptions {
  /** The target's URL, for the report. */
  target: string
  /** `--product-version`, normalized; undefined to detect it from the sign-in path the client uses. */
  release?: string
  /** The entries of `--ignore`: findings they accept are reported apart, with the entry's reason. */
  accepted?: readonly IgnoreEntry[]
  /** Fold every exchange into a usage file (`--record-usage`). */
  recordUsage?: boolean
  secrets: SecretFilter
  /** --check-limit in bytes: an encoded answer longer than this once decoded is not judged. */
  checkLimitBytes?: number
  /** Starts the judging thread (a test gives its own). */
  startJudge?: StartJudge
  /** Told once when the judging thread fails (its message), so the terminal hears of it. */
  onJudgeFailure?: (message: string) => void
}

/** The exchanges that passed unjudged: how many, by reason and by side (what `--fail-on` counts). */
export interface NotJudged {
  count: number
  reasons: Partial<Record<NotJudgedReason, number>>
  sides: Record<ExchangeSide, number>
  /** The first failure of the judge, when one failed (please report it). */
  failure?: string
}

/** The report (the interface's shape, with the accepted findings apart). */
export interface ProxyReport {
  target: string
  release: string
  releaseFrom: ReleaseSource
  exchanges: number
  violations: Finding[]
  /** The findings --ignore accepted, each with the reason of the entry that accepted it (when it gives one). */
  ignored: IgnoredFinding[]
  /** Distinct findings past the report's limit, counted but not listed. */
  unlisted?: number
  notJudged: NotJudged
  /** Exchanges still waiting to be judged when the report was made (the report of a proxy that runs on). */
  pending?: number
}

/** Exchanges kept for the HTML report besides the first of each finding: the most recent. */
export const RECENT_EXCHANGES = 200

/** Sign-in bodies up to this size are read on the main thread for their secrets (so a sign-in that passes unjudged still has its password hidden). */
const SIGN_IN_BYTES = 64 * 1024

const preview = (body: Buffer | 'too-large'): Buffer => (body === 'too-large' ? Buffer.alloc(0) : Buffer.from(body.subarray(0, PREVIEW_BYTES)))
const headerText = (value: string | string[] | undefined): string => (Array.isArray(value) ? value.join(', ') : (value ?? ''))
const sizeOf = (body: Buffer | 'too-large'): number => (body === 'too-large' ? 0 : body.length)

/** A body as the judging thread takes it: its memory moved there when the Buffer owns it whole, else a copy that does. */
function movable(body: Buffer | 'too-large', transfer: ArrayBuffer[]): Uint8Array | 'too-large' {
  if (body === 'too-large') return body
  if (body.length === 0) return new Uint8Array(0)
  const owned = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer && !transfer.includes(body.buffer)
  const bytes = owned ? body : new Uint8Array(body)
  transfer.push(bytes.buffer as ArrayBuffer)
  return bytes
}

/** An exchange not judged at all, on both sides, for one reason. */
const BOTH = (reason: NotJudgedReason): Record<ExchangeSide, NotJudgedReason> => ({ request: reason, answer: reason })

/** An exchange waiting for the judging thread to start: whole, or (past the queue's bound) without its bodies. */
interface Waiting {
  seq: number
  exchange: ObservedExchange
  admitted: boolean
}

/** A wait for the exchanges up to `seq` to be judged. */
interface Waiter {
  seq: number
  resolve: () => void
}

/** An exchange sent to the judging thread: what the HTML report keeps of it, until its judgement comes. */
interface Sent {
  kept: Omit<KeptExchange, 'operationId' | 'observations'>
  bytes: number
}

export class Inspector {
  readonly target: string
  readonly tally: FindingTally
  readonly #given: string | undefined
  readonly #secrets: SecretFilter
  readonly #recordUsage: boolean
  readonly #checkLimitBytes: number
  readonly #startJudge: StartJudge
  readonly #onJudgeFailure: ((message: string) => void) | undefined
  #signedIn: string | undefined
  #probed: string | undefined
  #count = 0
  #seq = 0
  #thread: JudgeThread | undefined
  /** How to tell a sign-in, once the first judging thread said (it loads the documents). */
  #matchers: Array<{ method: string; pattern: RegExp; release: string | null }> | undefined
  #ready = false
  /** Set when judging cannot go on (the thread failed before it was ready, or the proxy stopped): every exchange from then on passes unjudged, for this reason. */
  #closed: { reason: NotJudgedReason; message?: string } | undefined
  readonly #waiting: Waiting[] = []
  #skeletons = 0
  readonly #sent = new Map<number, Sent>()
  #queuedBytes = 0
  #waiters: Waiter[] = []
  /** Not folded into the usage: a body past the check limit was not kept. */
  unrecorded = 0
  readonly #notJudged: NotJudged = { count: 0, reasons: {}, sides: { request: 0, answer: 0 } }
  readonly #recent: KeptExchange[] = []
  /** The first exchange of each finding, by the finding's key. */
  readonly #firsts = new Map<string, KeptExchange>()
  readonly #usage = new Map<string, Interaction>()
  #lastToken = ''

  constructor(options: InspectorOptions) {
    this.target = options.target
    this.tally = new FindingTally(options.accepted)
    this.#given = options.release
    this.#secrets = options.secrets
    this.#recordUsage = options.recordUsage === true
    this.#checkLimitBytes = options.checkLimitBytes ?? 16 * 1024 * 1024
    this.#startJudge = options.startJudge ?? startJudgeThread
    this.#onJudgeFailure = options.onJudgeFailure
    this.#start()
  }

  #start(): void {
    this.#ready = false
    const data = { checkLimitBytes: this.#checkLimitBytes, recordUsage: this.#recordUsage, ...(this.#usage.size > 0 ? { usage: this.usage() } : {}) }
    let thread: JudgeThread | undefined
    thread = this.#startJudge(data, {
      reply: (message) => {
        if (this.#thread === thread) this.#reply(message)
      },
      ended: (message) => {
        if (this.#thread === thread) this.#ended(message)
      },
    })
    this.#thread = thread
  }

  #reply(message: JudgeReply): void {
    if (message.type === 'ready') {
      this.#matchers ??= message.matchers.map(({ method, source, flags, release }) => ({ method, pattern: new RegExp(source, flags), release }))
      this.#ready = true
      for (const waiting of this.#waiting.splice(0)) this.#dispatch(waiting)
      this.#skeletons = 0
      this.#settle()
      return
    }
    const sent = this.#sent.get(message.id)
    if (sent === undefined) return
    this.#sent.delete(message.id)
    this.#queuedBytes -= sent.bytes
    if (message.type === 'failed') this.#unjudged(BOTH('judgeFailed'), message.message)
    else this.#judged(sent, message.judgement)
    this.#settle()
  }

  /** The thread ended by itself: what it had not answered is lost; a new one takes over (unless it never got ready: then judging is off). */
  #ended(message: string): void {
    const wasReady = this.#ready
    this.#onJudgeFailure?.(message)
    for (const sent of this.#sent.values()) {
      this.#queuedBytes -= sent.bytes
      this.#unjudged(BOTH('judgeFailed'), message)
    }
    this.#sent.clear()
    if (wasReady) this.#start()
    else {
      this.#thread = undefined
      this.#closed = { reason: 'judgeFailed', message }
      for (let left = this.#waiting.splice(0).length; left > 0; left--) this.#unjudged(BOTH('judgeFailed'), message)
      this.#queuedBytes = 0
    }
    this.#settle()
  }

  /** Takes an exchange that ended: sent to be judged, or (judging too far behind) counted as not judged. */
  observe(exchange: ObservedExchange): void {
    this.#count++
    this.#learnSecrets(exchange)
    const path = exchange.url.split('?', 1)[0] ?? ''
    // The mock's control plane is no part of the API: passed on, never judged.
    if (path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`)) return
    if (this.#closed !== undefined) {
      this.#unjudged(BOTH(this.#closed.reason), this.#closed.message)
      return
    }
    const seq = ++this.#seq
    const bytes = sizeOf(exchange.requestBody) + sizeOf(exchange.answerBody)
    const queued = this.#sent.size + this.#waiting.length
    const admitted = queued === 0 || (queued < QUEUE_EXCHANGES && this.#queuedBytes + bytes <= QUEUE_BYTES)
    if (admitted) this.#queuedBytes += bytes
    const waiting: Waiting = { seq, exchange, admitted }
    if (this.#ready) {
      this.#dispatch(waiting)
      return
    }
    if (admitted) this.#waiting.push(waiting)
    else if (this.#skeletons < SKELETONS) {
      // Its bodies dropped at once; kept only to learn, in order, whether it was a sign-in.
      this.#skeletons++
      this.#waiting.push({ seq, exchange: { ...exchange, requestBody: 'too-large', answerBody: 'too-large' }, admitted })
    } else this.#unjudged(BOTH('queueFull'))
  }

  /** Decides the release of an exchange (in the order they ended) and sends it to be judged, or counts it as not judged. */
  #dispatch({ seq, exchange, admitted }: Waiting): void {
    const path = exchange.url.split('?', 1)[0] ?? ''
    const signInRelease = this.#matchers?.find((m) => m.method === exchange.method && m.pattern.test(path))?.release ?? undefined
    // A sign-in is judged by the release its path is; the release it shows counts from its success on.
    const current = this.release()
    const release = this.#given ?? signInRelease ?? current.release
    const beforeSignIn = this.#given === undefined && signInRelease === undefined && current.from === 'newest'
    if (this.#given === undefined && signInRelease !== undefined && exchange.status >= 200 && exchange.status < 300 && exchange.outcome === 'answered')
      this.#signedIn = signInRelease
    if (signInRelease !== undefined) this.#learnSignIn(exchange)
    if (!admitted) {
      this.#unjudged(BOTH('queueFull'))
      return
    }
    const thread = this.#thread as JudgeThread
    // Counted before the bodies move: a Buffer whose memory went to the thread is empty here.
    const bytes = sizeOf(exchange.requestBody) + sizeOf(exchange.answerBody)
    const transfer: ArrayBuffer[] = []
    const answerEncoding = headerText(exchange.answerHeaders['content-encoding'])
    const kept: Sent['kept'] = {
      seq,
      startedAt: exchange.startedAt,
      durationMs: exchange.durationMs,
      method: exchange.method,
      url: redactUrl(exchange.url),
      release,
      beforeSignIn,
      status: exchange.status,
      outcome: exchange.outcome,
      ...(exchange.reason === undefined ? {} : { reason: exchange.reason }),
      requestHeaders: exchange.requestHeaders,
      requestBody: preview(exchange.requestBody),
      requestBytes: exchange.requestBytes,
      answerContentType: headerText(exchange.answerHeaders['content-type']),
      ...(answerEncoding === '' ? {} : { answerEncoding }),
      answerBody: preview(exchange.answerBody),
      answerBytes: exchange.answerBytes,
    }
    const toJudge: ExchangeToJudge = {
      method: exchange.method,
      url: exchange.url,
      requestHeaders: exchange.requestHeaders,
      requestBody: movable(exchange.requestBody, transfer),
      requestBytes: exchange.requestBytes,
      requestComplete: exchange.requestComplete,
      status: exchange.status,
      answerHeaders: exchange.answerHeaders,
      answerBody: movable(exchange.answerBody, transfer),
      answerBytes: exchange.answerBytes,
      outcome: exchange.outcome,
      ...(exchange.reason === undefined ? {} : { reason: exchange.reason }),
      release,
      beforeSignIn,
      signIn: signInRelease !== undefined,
    }
    this.#sent.set(seq, { kept, bytes })
    thread.send({ id: seq, exchange: toJudge }, transfer)
  }

  /** A judgement come back: its findings counted, the exchange kept for the HTML report, its usage and secrets taken. */
  #judged(sent: Sent, judgement: Judgement): void {
    for (const secret of judgement.secrets) this.#secrets.add(secret)
    if (Object.keys(judgement.notJudged).length > 0) this.#unjudged(judgement.notJudged)
    const { kept } = sent
    const keys = this.tally.add(
      {
        operationId: judgement.operationId,
        method: kept.method,
        path: judgement.path,
        status: kept.status,
        release: kept.release,
        beforeSignIn: kept.beforeSignIn,
      },
      judgement.observations,
    )
    const exchange: KeptExchange = {
      ...kept,
      operationId: judgement.operationId,
      observations: judgement.observations,
      ...(judgement.decoded === undefined ? {} : { answerBody: Buffer.from(judgement.decoded.preview), decodedBytes: judgement.decoded.bytes }),
    }
    this.#recent.push(exchange)
    if (this.#recent.length > RECENT_EXCHANGES) this.#recent.shift()
    for (const key of keys) if (!this.#firsts.has(key)) this.#firsts.set(key, exchange)
    if (judgement.usage === 'unrecorded') this.unrecorded++
    else if (judgement.usage !== undefined) this.#usage.set(judgement.usage.key, judgement.usage.interaction)
  }

  /** Counts one exchange as not judged on the sides given, each for its reason. */
  #unjudged(sides: Partial<Record<ExchangeSide, NotJudgedReason>>, message?: string): void {
    const counted = this.#notJudged
    counted.count++
    for (const reason of new Set(Object.values(sides))) counted.reasons[reason] = (counted.reasons[reason] ?? 0) + 1
    for (const side of Object.keys(sides) as ExchangeSide[]) counted.sides[side]++
    if (message !== undefined) counted.failure ??= message
  }

  /** Resolves the waits for exchanges that are no longer waiting. */
  #settle(): void {
    const oldest = this.#oldestWaiting()
    const still: Waiter[] = []
    for (const waiter of this.#waiters) {
      if (waiter.seq < oldest) waiter.resolve()
      else still.push(waiter)
    }
    this.#waiters = still
  }

  #oldestWaiting(): number {
    const sent = this.#sent.keys().next()
    const first = sent.done === true ? Infinity : sent.value
    return Math.min(first, this.#waiting[0]?.seq ?? Infinity)
  }

  /**
   * Resolves once every exchange that ended before the call was judged (or passed unjudged), or
   * after `waitMs`, whichever comes first: the report `GET /__proxy/report` answers, and the one
   * written at stop, take what was judged by then.
   */
  settled(waitMs: number): Promise<void> {
    const seq = this.#seq
    if (this.#oldestWaiting() > seq) return Promise.resolve()
    return new Promise<void>((resolve) => {
      // Not unref'd: the stop awaits it while nothing else may keep the process alive.
      const timer = setTimeout(resolve, waitMs)
      this.#waiters.push({
        seq,
        resolve: () => {
          clearTimeout(timer)
          resolve()
        },
      })
    })
  }

  /**
   * Stops judging: every exchange still waiting (the one being judged included) is counted as not
   * judged (`stopped`), and the judging thread is ended wherever it is. What was judged stays.
   */
  async stop(): Promise<void> {
    this.#closed = { reason: 'stopped' }
    for (let left = this.#sent.size + this.#waiting.length; left > 0; left--) this.#unjudged(BOTH('stopped'))
    this.#sent.clear()
    this.#waiting.splice(0)
    this.#queuedBytes = 0
    this.#settle()
    const thread = this.#thread
    this.#thread = undefined
    await thread?.terminate()
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

  /** Session tokens in headers (SessionToken, Authorization) and secret query parameters, hidden from every report text. */
  #learnSecrets(exchange: ObservedExchange): void {
    for (const name of ['sessiontoken', 'authorization']) {
      const value = headerText(exchange.requestHeaders[name])
      if (value === '' || value === this.#lastToken) continue
      this.#lastToken = value
      this.#secrets.add(value)
      const credentials = /^\s*\S+\s+(\S+)\s*$/.exec(value)?.[1]
      if (credentials !== undefined) this.#secrets.add(credentials)
    }
    const question = exchange.url.indexOf('?')
    if (question < 0) return
    for (const [name, value] of new URLSearchParams(exchange.url.slice(question + 1))) {
      if (isSecretName(name.trim())) this.#secrets.add(value)
    }
  }

  /** The secret members of a sign-in's form or JSON bodies, when they are small, read here so that they are hidden even if the sign-in passes unjudged. */
  #learnSignIn(exchange: ObservedExchange): void {
    for (const body of [exchange.requestBody, exchange.answerBody]) {
      if (body === 'too-large' || body.length === 0 || body.length > SIGN_IN_BYTES) continue
      const text = body.toString('utf8')
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        value = Object.fromEntries(new URLSearchParams(text))
      }
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
        for (const [name, member] of Object.entries(value)) if (isSecretName(name)) this.#secrets.add(member)
      }
    }
  }

  /** Exchanges so far (passed on: judged, waiting or not judged). */
  get count(): number {
    return this.#count
  }

  /** The report so far: what was judged by now (see `settled`). */
  report(): ProxyReport {
    const { reported, ignored } = this.tally.lists()
    const { release, from } = this.release()
    const pending = this.#sent.size + this.#waiting.length
    const counted = this.#notJudged
    const reasons = Object.fromEntries(
      NOT_JUDGED_REASONS.filter((reason) => counted.reasons[reason] !== undefined).map((reason) => [reason, counted.reasons[reason]]),
    )
    return {
      target: this.target,
      release,
      releaseFrom: from,
      exchanges: this.#count,
      violations: reported,
      ignored,
      ...(this.tally.overflow > 0 ? { unlisted: this.tally.overflow } : {}),
      notJudged: { count: counted.count, reasons, sides: { ...counted.sides }, ...(counted.failure === undefined ? {} : { failure: counted.failure }) },
      ...(pending > 0 ? { pending } : {}),
    }
  }

  /** The exchanges kept for the HTML report, in order: the first of each finding, and the most recent. */
  exchanges(): KeptExchange[] {
    const all = new Map<number, KeptExchange>()
    for (const exchange of [...this.#firsts.values(), ...this.#recent]) all.set(exchange.seq, exchange)
    return [...all.values()].sort((a, b) => a.seq - b.seq)
  }

  /** The usage so far, with --record-usage. */
  usage(): UsageFile | undefined {
    if (!this.#recordUsage) return undefined
    const keys = [...this.#usage.keys()].sort()
    return { appdataKitUsage: USAGE_VERSION, interactions: keys.map((key) => this.#usage.get(key) as Interaction) }
  }

  /**
   * Whether the run fails: a violation (not accepted) on the side --fail-on names, or an exchange
   * not judged on that side, unless the user chose to shed load (`--shed-load`).
   */
  failed(failOn: FailOn, shedLoad = false): boolean {
    if (failOn === 'none') return false
    const onSide = (side: ExchangeSide) => failOn === 'any' || side === failOn
    if (!shedLoad && (['request', 'answer'] as const).some((side) => onSide(side) && this.#notJudged.sides[side] > 0)) return true
    return this.tally.lists().reported.some((finding) => finding.severity === 'violation' && onSide(finding.side))
  }
}

/** `--fail-on`: which side's violations fail the run. */
export type FailOn = 'answer' | 'request' | 'any' | 'none'
