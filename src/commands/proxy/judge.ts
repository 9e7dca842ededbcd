import { brotliDecompressSync, gunzipSync, inflateRawSync, inflateSync } from 'node:zlib'
import { isObject } from '../../document/json.ts'
import { isSecretName } from '../../policy/redact.ts'
import { interactionKey, interactionOf, type Interaction, type UsageAccumulator } from '../../usage-file/file.ts'
import { recordExchange } from '../../usage-file/record.ts'
import { judgeAnswer } from './answer-side.ts'
import type { Observation, ExchangeSide } from './findings.ts'
import { dedupe, judgeRequest } from './request-side.ts'
import { anyReleaseRoute, releaseView, routeOf } from './views.ts'

/**
 * Judging one exchange, whole, as the judging thread does it (judge-worker.ts): the request
 * against the release's documents, the answer (decoded first when it came encoded), what the
 * proxy itself answered or what broke off, and what the exchange adds to the usage. Pure but for
 * the usage accumulator it folds into: the exchange and the release in, the judgement out, all of
 * it plain data that crosses back to the main thread.
 */

/** How an exchange ended. */
export type Outcome =
  /** The installation answered and the answer reached the client whole. */
  | 'answered'
  /** The installation could not be reached, or closed the connection before answering: the proxy answered 502. */
  | 'unreachable'
  /** The installation sent nothing for --timeout: the proxy answered 504. */
  | 'timeout'
  /** The installation sent an interim answer nobody asked for (a 101 without Upgrade, a 1xx but 100 and 103): the proxy answered 502. */
  | 'interim'
  /** The answer broke off after its head (the installation closed or reset the connection, or went silent for --timeout). */
  | 'broken'
  /** The client went away before the answer was whole. */
  | 'abandoned'

/** Why a side of an exchange was not judged. */
export type NotJudgedReason =
  /** Judging was behind by the queue's bound when the exchange ended. */
  | 'queueFull'
  /** Its body was over --check-limit (an encoded answer: once decoded), so its bytes were not kept. */
  | 'overCheckLimit'
  /** Its answer came in an encoding the proxy does not decode (`Content-Encoding` other than gzip, deflate, br). */
  | 'encoded'
  /** The judge failed on it (a bug of the proxy's: please report it). */
  | 'judgeFailed'
  /** The proxy was stopped before it was judged. */
  | 'stopped'

export const NOT_JUDGED_REASONS: readonly NotJudgedReason[] = ['queueFull', 'overCheckLimit', 'encoded', 'judgeFailed', 'stopped']

/** An exchange as the judge takes it: the bytes collected on the way (up to the check limit), how it ended, and the release it is judged by. */
export interface ExchangeToJudge {
  method: string
  url: string
  requestHeaders: Record<string, string | string[] | undefined>
  requestBody: Uint8Array | 'too-large'
  requestBytes: number
  /** Whether the client sent its request whole (a client that went away mid-body did not). */
  requestComplete: boolean
  status: number
  answerHeaders: Record<string, string | string[] | undefined>
  answerBody: Uint8Array | 'too-large'
  answerBytes: number
  outcome: Outcome
  /** The proxy's own words for an exchange it answered itself or that broke off. */
  reason?: string
  release: string
  beforeSignIn: boolean
  /** A sign-in (its secret members are learned). */
  signIn: boolean
}

/** What judging an exchange gives. */
export interface Judgement {
  operationId: string | null
  /** The document's path template, or the path as sent when no operation takes it. */
  path: string
  observations: Observation[]
  /** The sides not judged, and why. */
  notJudged: Partial<Record<ExchangeSide, NotJudgedReason>>
  /** Secret values met in a sign-in's bodies (a password, a token), for the report's filter. */
  secrets: string[]
  /** The answer's body as the client's HTTP library reads it, when it came encoded and was decoded: its first bytes, for the HTML report. */
  decoded?: { encoding: string; preview: Uint8Array; bytes: number }
  /** With --record-usage: the interaction the exchange was counted in (whole, as it is now), or why it was not recorded. */
  usage?: { key: string; interaction: Interaction } | 'unrecorded'
}

/** Bytes of each body kept for the HTML report. */
export const PREVIEW_BYTES = 8 * 1024

const headerText = (value: string | string[] | undefined): string => (Array.isArray(value) ? value.join(', ') : (value ?? ''))
const isJson = (contentType: string): boolean => /^application\/([\w.-]+\+)?json$/i.test((contentType.split(';')[0] ?? '').trim())
const bytesOf = (body: Uint8Array): Buffer => Buffer.from(body.buffer, body.byteOffset, body.byteLength)

/** The encodings of a `Content-Encoding` header, in the order they were applied (`identity` left out). */
export function encodingsOf(header: string | string[] | undefined): string[] {
  return headerText(header)
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '' && name !== 'identity')
}

/** The decoders of the encodings Node's zlib reads; each stops at `limit` bytes of output (a bomb costs no more than the limit). */
const DECODERS: Record<string, (bytes: Buffer, limit: number) => Buffer> = {
  gzip: (bytes, limit) => gunzipSync(bytes, { maxOutputLength: limit }),
  'x-gzip': (bytes, limit) => gunzipSync(bytes, { maxOutputLength: limit }),
  // `deflate` is the zlib format (RFC 9110, section 8.4.1.2); some servers send the raw one.
  deflate: (bytes, limit) => {
    try {
      return inflateSync(bytes, { maxOutputLength: limit })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw error
      return inflateRawSync(bytes, { maxOutputLength: limit })
    }
  },
  br: (bytes, limit) => brotliDecompressSync(bytes, { maxOutputLength: limit }),
}

/** An encoded body decoded (every encoding undone, last first), or why it was not. */
export function decodeBody(
  body: Buffer,
  encodings: readonly string[],
  limit: number,
): { body: Buffer } | { notJudged: 'encoded' | 'overCheckLimit' } | { broken: string } {
  if (encodings.some((name) => DECODERS[name] === undefined)) return { notJudged: 'encoded' }
  let out = body
  for (const name of [...encodings].reverse()) {
    try {
      out = (DECODERS[name] as (bytes: Buffer, limit: number) => Buffer)(out, limit)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') return { notJudged: 'overCheckLimit' }
      return { broken: `must be ${name} data, as its Content-Encoding says (${(error as Error).message})` }
    }
  }
  return { body: out }
}

/** The values of secret members (passwords, tokens) of a parsed body, at any depth up to 8. */
function secretsIn(value: unknown, found: string[], depth = 0): void {
  if (depth > 8 || !isObject(value)) return
  for (const [name, member] of Object.entries(value)) {
    if (isSecretName(name)) {
      if (typeof member === 'string') found.push(member)
    } else secretsIn(member, found, depth + 1)
  }
}

/** What the proxy answered itself, or what broke off, as the finding on the installation's side. */
function brokenAnswer(exchange: ExchangeToJudge): Observation | undefined {
  const reason = exchange.reason ?? 'the target gave no answer'
  switch (exchange.outcome) {
    case 'unreachable':
    case 'timeout':
    case 'interim':
      return {
        side: 'answer',
        severity: 'violation',
        pointer: '/status',
        message: `must be the target's answer: ${reason}; the proxy answered ${exchange.status}`,
        example: exchange.status,
      }
    case 'broken':
      return { side: 'answer', severity: 'violation', pointer: '/body', message: `must be whole: it broke off after its head (${reason})` }
    default:
      return undefined
  }
}

export interface JudgeOptions {
  /** Bodies (an encoded answer: once decoded) longer than this are not judged. */
  checkLimitBytes: number
  /** With --record-usage: where exchanges are folded in. */
  usage?: UsageAccumulator
}

/** Judges one exchange on both sides against the documents of its release. */
export function judgeExchange(exchange: ExchangeToJudge, options: JudgeOptions): Judgement {
  const question = exchange.url.indexOf('?')
  const path = question < 0 ? exchange.url : exchange.url.slice(0, question)
  const { release } = exchange
  const view = releaseView(release)
  const routed = routeOf(view, exchange.method, path)
  const observations: Observation[] = []
  const notJudged: Judgement['notJudged'] = {}
  const secrets: string[] = []
  let body: unknown
  if (!exchange.requestComplete) {
    // The client went away mid-body: what came is no request of its own to judge.
  } else if (routed === undefined) {
    const elsewhere = anyReleaseRoute(exchange.method, path)
    observations.push({
      side: 'request',
      severity: 'violation',
      pointer: '',
      message:
        elsewhere === undefined
          ? `must be an operation of the document: none takes ${exchange.method} ${path}`
          : `must be an operation of release ${release}: ${elsewhere.operationId} is one of releases ${elsewhere.versions}`,
    })
  } else {
    const requestBody = exchange.requestBody === 'too-large' ? 'too-large' : bytesOf(exchange.requestBody)
    const judged = judgeRequest(routed, view, { method: exchange.method, url: exchange.url, headers: exchange.requestHeaders, body: requestBody })
    body = judged.body
    for (const observation of judged.observations) observations.push(observation)
    if (exchange.signIn) secretsIn(body, secrets)
    if (requestBody === 'too-large') notJudged.request = 'overCheckLimit'
  }
  if (exchange.requestBody === 'too-large') {
    observations.push({
      side: 'request',
      severity: 'warning',
      pointer: '/body',
      message: `passed unchecked: ${exchange.requestBytes} bytes, over --check-limit`,
    })
  }
  if (exchange.outcome === 'abandoned') {
    observations.push({
      side: 'request',
      severity: 'warning',
      pointer: '',
      message: `ended before the answer was whole: ${exchange.reason ?? 'the client went away'} (the answer is not judged)`,
    })
  }
  const broken = brokenAnswer(exchange)
  if (broken !== undefined) observations.push(broken)
  let answerBody: Buffer | 'too-large' = exchange.answerBody === 'too-large' ? 'too-large' : bytesOf(exchange.answerBody)
  let decoded: Judgement['decoded']
  const contentType = headerText(exchange.answerHeaders['content-type'])
  if (exchange.outcome === 'answered' && routed !== undefined) {
    const bodiless = exchange.method === 'HEAD' || exchange.status === 204 || exchange.status === 304
    const encodings = bodiless ? [] : encodingsOf(exchange.answerHeaders['content-encoding'])
    if (exchange.answerBody === 'too-large' && !bodiless) {
      observations.push({
        side: 'answer',
        severity: 'warning',
        pointer: '/body',
        message: `passed unchecked: ${exchange.answerBytes} bytes, over --check-limit`,
      })
      if (isJson(contentType)) notJudged.answer = 'overCheckLimit'
    } else if (answerBody !== 'too-large' && encodings.length > 0 && answerBody.length > 0) {
      const found = decodeBody(answerBody, encodings, options.checkLimitBytes)
      if ('body' in found) {
        answerBody = found.body
        // A copy: a view would carry the whole decoded body across to the main thread.
        decoded = { encoding: encodings.join(', '), preview: new Uint8Array(found.body.subarray(0, PREVIEW_BYTES)), bytes: found.body.length }
      } else {
        // Judged but for its body (status, media type and headers are plain text).
        answerBody = 'too-large'
        if ('broken' in found) observations.push({ side: 'answer', severity: 'violation', pointer: '/body', message: found.broken })
        else {
          observations.push({
            side: 'answer',
            severity: 'warning',
            pointer: '/body',
            message:
              found.notJudged === 'encoded'
                ? `passed unchecked: encoded as ${encodings.join(', ')}, which the proxy does not decode`
                : `passed unchecked: more than --check-limit once decoded (${encodings.join(', ')})`,
          })
          if (isJson(contentType)) notJudged.answer = found.notJudged
        }
      }
    }
    for (const observation of judgeAnswer(routed.route, view.description, {
      status: exchange.status,
      headers: exchange.answerHeaders,
      body: answerBody,
      bodiless,
    }))
      observations.push(observation)
    if (exchange.signIn && answerBody !== 'too-large') {
      try {
        secretsIn(JSON.parse(answerBody.toString('utf8')), secrets)
      } catch {
        // Not JSON: nothing the report would show as a member.
      }
    }
  }
  const judgement: Judgement = {
    operationId: routed?.route.operationId ?? null,
    path: routed?.route.path ?? path,
    observations: dedupe(observations),
    notJudged,
    secrets,
    ...(decoded === undefined ? {} : { decoded }),
  }
  if (options.usage !== undefined && routed !== undefined && exchange.outcome === 'answered') {
    // A JSON answer past the check limit (or not decoded) has no shape to fold in; a file needs only its media type.
    const answerKept = answerBody !== 'too-large' || !/json/i.test(contentType)
    if (exchange.requestBody === 'too-large' || !answerKept) judgement.usage = 'unrecorded'
    else {
      const before = options.usage.unrecorded
      const entry = recordExchange(options.usage, release, {
        operation: routed.route.operationId,
        url: exchange.url,
        headers: exchange.requestHeaders,
        body,
        params: routed.params,
        status: exchange.status,
        contentType,
        payload: answerBody === 'too-large' ? undefined : answerBody,
      })
      // A shape past the interactions a usage file holds is counted, not kept (the accumulator's limit).
      if (options.usage.unrecorded > before) judgement.usage = 'unrecorded'
      else {
        const interaction = interactionOf(entry)
        judgement.usage = { key: interactionKey(interaction), interaction }
      }
    }
  }
  return judgement
}
