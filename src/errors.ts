/**
 * The one catalog of errors the mock answers with. The API's description defines no error statuses
 * or bodies (Errors, points 4 and 5); these are the mock's choice, documented in docs/behaviour.md.
 * Every error reply is `application/problem+json` (RFC 9457) built from an entry here.
 */
export const PROBLEMS = {
  // 400: the request cannot be read
  BAD_JSON: { status: 400, title: 'Malformed JSON body' },
  BAD_BODY: { status: 400, title: 'Unreadable request body' },
  BAD_URL: { status: 400, title: 'URL not understood' },
  VALIDATION: { status: 400, title: 'Request does not match the API document' },
  BAD_QUERY: { status: 400, title: 'Query not understood' },
  BAD_FILTER: { status: 400, title: 'Filter not understood' },
  UNKNOWN_FIELD: { status: 400, title: 'Unknown field' },
  INVALID_GRANT: { status: 400, title: 'Sign-in refused' },
  UNSUPPORTED_GRANT_TYPE: { status: 400, title: 'Unsupported grant type' },
  INVALID_SCOPE: { status: 400, title: 'Scope not granted' },
  BAD_ATTACHMENT_REQUEST: { status: 400, title: 'Attachment request does not fit the row' },
  BAD_FIXTURE: { status: 400, title: 'Fixture refused' },
  STRICT_MODE: { status: 400, title: 'Refused in strict mode: the API description does not promise this' },
  // 401: who is calling is not known
  INVALID_CLIENT: { status: 401, title: 'Unknown client' },
  MISSING_TOKEN: { status: 401, title: 'Session token missing' },
  UNKNOWN_TOKEN: { status: 401, title: 'Session token not recognised' },
  TOKEN_EXPIRED: { status: 401, title: 'Session token expired' },
  CONTROL_TOKEN: { status: 401, title: 'Control token missing or wrong' },
  // 403: known caller, not allowed
  FOREIGN_WORKSPACE: { status: 403, title: 'Workspace not available to this user' },
  READ_ONLY_USER: { status: 403, title: 'User may not change data' },
  FOREIGN_HOST: { status: 403, title: 'Host name not answered by this mock' },
  CROSS_ORIGIN: { status: 403, title: 'Control plane closed to other origins' },
  // 404: something named in the request does not exist
  NOT_FOUND: { status: 404, title: 'No such endpoint' },
  UNKNOWN_ORGANIZATION: { status: 404, title: 'Unknown organization' },
  UNKNOWN_APPLICATION: { status: 404, title: 'Unknown application' },
  UNKNOWN_RELATION_KEY: { status: 404, title: 'Unknown relation key' },
  UNKNOWN_STORAGE: { status: 404, title: 'Unknown storage or identity field' },
  UNKNOWN_ATTACHMENT: { status: 404, title: 'Unknown attachment' },
  UNKNOWN_ACTION: { status: 404, title: 'Unknown custom action' },
  UNKNOWN_ROW: { status: 404, title: 'Unknown row' },
  UNKNOWN_PROVIDER: { status: 404, title: 'Unknown e-mail provider' },
  // 405: the path exists, the method does not
  METHOD_NOT_ALLOWED: { status: 405, title: 'Method not allowed on this endpoint' },
  // 409: a storage's Id or Identity sequence, or the row versions, would pass 2^53 - 1 (the
  // state of the data, not the request, refuses it; no input gets a 5xx)
  SEQUENCE_EXHAUSTED: { status: 409, title: 'Sequence exhausted' },
  // 413 / 414: outside the environment's limits
  PAYLOAD_TOO_LARGE: { status: 413, title: 'Request body too large' },
  URI_TOO_LONG: { status: 414, title: 'URL too long' },
  // 415: a body type the endpoint does not take
  UNSUPPORTED_MEDIA_TYPE: { status: 415, title: 'Body type not taken here' },
  // Injected by a fault rule of the control plane
  INJECTED_FAULT: { status: 503, title: 'Fault injected by the mock control plane' },
  TOO_MANY_SESSIONS: { status: 503, title: 'Too many live sessions' },
  // A write received before a reset or fixture load, refused after it (the clean cut; a gateway status any operation may get)
  DATA_REPLACED: { status: 503, title: 'Data replaced while the request was held' },
  INTERNAL: { status: 500, title: 'Internal mock error' },
  // The proxy's own answers (`appdata-kit proxy`) when the installation behind it gives none
  TARGET_UNREACHABLE: { status: 502, title: 'Target installation not reachable' },
  TARGET_TIMEOUT: { status: 504, title: 'Target installation did not answer in time' },
  // An interim answer no client asked for (a 101 to a request without Upgrade, a 1xx but 100 and 103): no answer a client can read
  TARGET_BROKEN_ANSWER: { status: 502, title: 'Target installation answered off the protocol' },
  // 507: the state file (--state-file) could not be written, so a reset or fixture load changed nothing
  STATE_NOT_WRITTEN: { status: 507, title: 'State file not written' },
} as const satisfies Record<string, { status: number; title: string }>

export type ProblemCode = keyof typeof PROBLEMS

/** One violation of the document's schema, as a JSON pointer into the request part. */
export interface Violation {
  pointer: string
  keyword: string
  message: string
  /** The same violation in this many array elements (the pointer has `*` for the index); absent for one. */
  count?: number
  /** With `count`: the exact pointer of the first element it was found in. */
  first?: string
}

/** The body of every error reply. */
export interface ProblemBody {
  type: string
  title: string
  status: number
  detail: string
  code: ProblemCode
  instance?: string
  violations?: Violation[]
  [extra: string]: unknown
}

/** Stable problem type URI derived from the code, so clients can switch on it. */
export function problemType(code: ProblemCode): string {
  return `urn:appdata-kit:problem:${code.toLowerCase().replaceAll('_', '-')}`
}

/** The error every layer throws when a request must be refused; the error handler turns it into the reply. */
export class ProblemError extends Error {
  override name = 'ProblemError'
  readonly code: ProblemCode
  readonly status: number
  readonly extra: Record<string, unknown>
  /**
   * Every violation of a refused value (`extra.violations`, the body's `violations`), so an
   * in-process caller (`mock.stub()`, `mock.setFaults()`) reads them as an HTTP client does; empty
   * for a problem that has none.
   */
  readonly violations: Violation[]

  constructor(code: ProblemCode, detail: string, extra: Record<string, unknown> = {}) {
    super(detail)
    this.code = code
    this.status = PROBLEMS[code].status
    this.extra = extra
    this.violations = Array.isArray(extra.violations) ? (extra.violations as Violation[]) : []
  }

  toBody(instance?: string): ProblemBody {
    return {
      type: problemType(this.code),
      title: PROBLEMS[this.code].title,
      status: this.status,
      detail: this.message,
      code: this.code,
      ...(instance === undefined ? {} : { instance }),
      ...this.extra,
    }
  }
}
