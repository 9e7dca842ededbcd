import type { MockWarning } from '../../http/warnings.ts'
import { redactHeaders, redactUrl, redactValue } from './redact.ts'
import { ReadyBytes } from '../../store/ready-bytes.ts'
import { bufferOf } from '../../bytes.ts'

/** The fault rule effect applied to a request (src/mock/plugins/faults.ts). */
export type FaultEffect = 'latency' | 'status' | 'drop' | 'commitThenDrop'

/** A body as recorded: the value itself (kept by reference, not copied), or a note saying why not. */
export type RecordedBody = { kept: true; value: unknown } | { kept: false; note: string }

/**
 * One exchange as the journal stores it. Bodies are references to what the request and reply
 * already hold, so recording allocates one small object; the work of showing them (redaction,
 * parsing) happens only when someone reads the journal with bodies.
 */
export interface JournalRecord {
  seq: number
  /** When the exchange ended (answer sent or connection cut), on the mock's clock, in ms. */
  time: number
  method: string
  url: string
  operationId: string | null
  status: number | null
  durationMs: number
  fault: FaultEffect | null
  /** Warnings the request raised (things the API's description does not promise), in order. */
  warnings: readonly MockWarning[]
  requestHeaders?: Record<string, string | string[] | undefined>
  requestBody?: RecordedBody
  responseType?: string | null
  responseBody?: RecordedBody
}

/** A journal entry as the control plane shows it (the `JournalEntry` schema of spec/control-plane/). */
export interface JournalEntry {
  seq: number
  time: string
  method: string
  url: string
  path: string
  operationId: string | null
  status: number | null
  durationMs: number
  fault: FaultEffect | null
  warnings: readonly MockWarning[]
  request?: { headers: Record<string, string>; body: unknown }
  response?: { contentType: string | null; body: unknown }
}

/** Which entries to show. */
export interface JournalFilter {
  operationId?: string
  /** Only the newest `limit` entries (after the operationId filter). */
  limit?: number
  /** Include headers and bodies, secrets redacted. */
  bodies?: boolean
}

/** The journal as the control plane shows it (the `JournalPage` schema). */
export interface JournalPage {
  capacity: number
  recorded: number
  evicted: number
  entries: JournalEntry[]
}

/** The request journal: the newest `capacity` exchanges with the API, in a fixed-size ring. */
export interface Journal {
  readonly capacity: number
  /** Largest body, in bytes, the journal keeps; 0 keeps none. */
  readonly bodyLimit: number
  /** Stores the record itself (its `seq` is set here), so the caller must hand over a fresh object. */
  add(record: JournalRecord): void
  read(filter?: JournalFilter): JournalPage
  /** Forgets every entry; returns how many there were. */
  clear(): number
}

/**
 * A journal holding at most `capacity` entries: a ring buffer, so recording is O(1) and memory
 * stays bounded however long a test suite runs.
 */
export function createJournal(options: { capacity: number; bodyLimit: number }): Journal {
  const { capacity, bodyLimit } = options
  if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`journal capacity must be a positive integer, got ${capacity}`)
  let ring: Array<JournalRecord | undefined> = new Array<JournalRecord | undefined>(capacity)
  let next = 0
  let size = 0
  let recorded = 0
  let seq = 0

  /** Stored records, oldest first. */
  const ordered = (): JournalRecord[] => {
    const out: JournalRecord[] = []
    const start = (next - size + capacity) % capacity
    for (let i = 0; i < size; i++) {
      const record = ring[(start + i) % capacity]
      if (record !== undefined) out.push(record)
    }
    return out
  }

  return {
    capacity,
    bodyLimit,
    add(record) {
      seq += 1
      recorded += 1
      // Stored as given, not copied: this runs for every API request.
      record.seq = seq
      ring[next] = record
      next = (next + 1) % capacity
      if (size < capacity) size += 1
    },
    read(filter = {}) {
      let records = ordered()
      if (filter.operationId !== undefined) records = records.filter((r) => r.operationId === filter.operationId)
      if (filter.limit !== undefined) records = records.slice(Math.max(0, records.length - filter.limit))
      return { capacity, recorded, evicted: recorded - size, entries: records.map((r) => toEntry(r, filter.bodies === true)) }
    },
    clear() {
      const cleared = size
      ring = new Array<JournalRecord | undefined>(capacity)
      next = 0
      size = 0
      recorded = 0
      return cleared
    },
  }
}

function toEntry(record: JournalRecord, bodies: boolean): JournalEntry {
  const entry: JournalEntry = {
    seq: record.seq,
    time: new Date(record.time).toISOString(),
    method: record.method,
    url: redactUrl(record.url),
    path: record.url.split('?')[0] ?? record.url,
    operationId: record.operationId,
    status: record.status,
    durationMs: Math.round(record.durationMs * 1000) / 1000,
    fault: record.fault,
    warnings: record.warnings,
  }
  if (bodies) {
    entry.request = { headers: redactHeaders(record.requestHeaders ?? {}), body: showRequestBody(record.requestBody) }
    entry.response = { contentType: record.responseType ?? null, body: showResponseBody(record.responseBody, record.responseType ?? null) }
  }
  return entry
}

function showRequestBody(body: RecordedBody | undefined): unknown {
  if (body === undefined) return null
  if (!body.kept) return body.note
  if (Buffer.isBuffer(body.value) || body.value instanceof Uint8Array) return `[${body.value.byteLength} bytes]`
  return redactValue(body.value)
}

function showResponseBody(body: RecordedBody | undefined, contentType: string | null): unknown {
  if (body === undefined) return null
  if (!body.kept) return body.note
  // An answer written as ready bytes is joined only now, when the journal is read.
  const value = body.value instanceof ReadyBytes ? bufferOf(body.value.body) : body.value
  const text = typeof value === 'string' ? value : Buffer.isBuffer(value) && isTextual(contentType) ? value.toString('utf8') : undefined
  if (text === undefined) return Buffer.isBuffer(value) ? `[${value.byteLength} bytes of ${contentType ?? 'unknown type'}]` : null
  if (text === '') return ''
  if (contentType !== null && /json/i.test(contentType)) {
    try {
      return redactValue(JSON.parse(text))
    } catch {
      // Not JSON after all: shown as the text it is.
    }
  }
  return text
}

function isTextual(contentType: string | null): boolean {
  return contentType !== null && /^(text\/|application\/([\w.+-]*json|xml|x-www-form-urlencoded))/i.test(contentType)
}
