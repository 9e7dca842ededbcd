import type { InteractionEntry, UsageAccumulator } from './file.ts'
import { requestShape } from './request-shape.ts'
import { ShapeAccumulator } from './shape.ts'

/**
 * One answered exchange as a usage recorder folds it in: the mock's recorder
 * (mock/plugins/usage-recorder.ts, `--record-usage`) and the proxy's (`proxy --record-usage`) both
 * hand their exchanges to `recordExchange`, so the same traffic gives the same file through either.
 */
export interface RecordedExchange {
  /** The operationId the request reached. */
  operation: string
  /** The request target as sent: path and query. */
  url: string
  /** Request headers, names in lower case (as Node gives them). */
  headers: Record<string, string | string[] | undefined>
  /** The body as parsed from what the client sent (JSON, or a sign-in form as an object); undefined for none. */
  body: unknown
  /** The path parameters by name, decoded. */
  params: Record<string, string> | undefined
  status: number
  /** The answer's Content-Type, as sent (empty when none). */
  contentType: string
  /** The answer's bytes (a string or a Buffer); anything else is read as no body. */
  payload: unknown
}

/** Bodies shaped per interaction and status; past this many, answers are only counted (their shape has settled). */
export const SHAPED_ANSWERS = 100

function text(payload: unknown): string | undefined {
  if (typeof payload === 'string') return payload
  if (Buffer.isBuffer(payload)) return payload.toString('utf8')
  return undefined
}

function parseJson(payload: unknown): unknown {
  const body = text(payload)
  if (body === undefined || body === '') return undefined
  try {
    return JSON.parse(body)
  } catch {
    return undefined
  }
}

/**
 * Folds one exchange into the usage: its interaction (operation, release, request shape) counted,
 * and its answer by status: the problem code of a refusal, the media type of a file, or the shape
 * of a JSON body (the first SHAPED_ANSWERS of each interaction and status). Never a value.
 * Gives the interaction it counted the exchange in (the proxy's judging thread sends it on whole).
 */
export function recordExchange(accumulator: UsageAccumulator, release: string, item: RecordedExchange): InteractionEntry {
  const entry = accumulator.entry(item.operation, release, requestShape(item.operation, item.url, item.headers, item.body, item.params))
  entry.count++
  const answer = accumulator.answer(entry, item.status)
  answer.count++
  const mediaType = (item.contentType.split(';')[0] ?? '').trim().toLowerCase()
  if (item.status >= 400) {
    const code = (parseJson(item.payload) as { code?: unknown } | undefined)?.code
    if (typeof code === 'string') answer.problems.add(code)
    return entry
  }
  if (mediaType !== '' && !/json/.test(mediaType)) {
    // A file: the media type the client received, never its bytes.
    answer.mediaTypes.add(mediaType)
    return entry
  }
  if (answer.bodies >= SHAPED_ANSWERS) return entry
  answer.bodies++
  const body = parseJson(item.payload)
  ;(answer.body ??= new ShapeAccumulator()).add(body === undefined ? (text(item.payload) === '' ? null : text(item.payload)) : body)
  return entry
}
