import type { Violation } from '../errors.ts'
import { escapePointer } from '../document/reader.ts'
import { tooDeepAt } from '../document/json.ts'
import { badFieldValueCharacter, CONNECTION_FIELDS, describeCharacter, isCorsField, isFieldName } from '../wire/http-fields.ts'
import { MAX_ANSWER_DEPTH } from '../../spec/control-plane/constants.ts'

/**
 * What makes the answer a rule gives valid HTTP, whatever the document says: header names and
 * values that can be sent, no header the connection or the mock's CORS layer owns, no body where
 * the status has none, and bodies no deeper than MAX_ANSWER_DEPTH (the schema of spec/control-plane/
 * keeps statuses final, 200 to 599).
 * A rule that breaks one is refused when it is added, `offDocument` or not: accepted, it would make
 * every matching request answer 500, or an answer a client cannot read.
 */

/**
 * The violations of a rule's `headers` (answer rule or fault rule), pointing at
 * `${at}/NAME`. `contentType: false` refuses `Content-Type` too: a fault's body is always the
 * INJECTED_FAULT problem, sent as `application/problem+json`.
 */
export function headerViolations(headers: Readonly<Record<string, unknown>> | undefined, at: string, options: { contentType?: boolean } = {}): Violation[] {
  const out: Violation[] = []
  const seen = new Map<string, string>()
  for (const [name, value] of Object.entries(headers ?? {})) {
    const pointer = `${at}/${escapePointer(name)}`
    const lower = name.toLowerCase()
    if (!isFieldName(name)) {
      out.push({
        pointer,
        keyword: 'headerName',
        message:
          "is not a header name: a name is a token of letters, digits and !#$%&'*+-.^_`|~ (RFC 9110, section 5.1), without spaces, colons or control characters",
      })
      continue
    }
    if (CONNECTION_FIELDS.has(lower)) {
      out.push({
        pointer,
        keyword: 'connectionHeader',
        message: `cannot be set by a rule: ${name} belongs to the connection (framing or hop-by-hop, RFC 9110, section 7.6.1), which the mock writes from the answer it sends`,
      })
      continue
    }
    if (isCorsField(name)) {
      out.push({
        pointer,
        keyword: 'corsHeader',
        message: "cannot be set by a rule: the Access-Control-* headers are the mock's CORS layer's (--cors), which answers them for every route",
      })
      continue
    }
    if (options.contentType === false && lower === 'content-type') {
      out.push({
        pointer,
        keyword: 'faultHeader',
        message: 'cannot be set by a fault: its body is the INJECTED_FAULT problem, sent as application/problem+json',
      })
      continue
    }
    const earlier = seen.get(lower)
    if (earlier !== undefined) {
      out.push({ pointer, keyword: 'duplicateHeader', message: `names the same header as ${earlier} (header names are case-insensitive): give it once` })
      continue
    }
    seen.set(lower, name)
    const bad = typeof value === 'string' ? badFieldValueCharacter(value) : undefined
    if (bad !== undefined) {
      out.push({
        pointer,
        keyword: 'headerValue',
        message: `holds ${describeCharacter(bad)}, which a header value cannot: only visible ASCII characters, spaces and tabs (RFC 9110, section 5.5; encode other text, as RFC 8187 does)`,
      })
    }
  }
  return out
}

/**
 * The violation of a value nested more than MAX_ANSWER_DEPTH levels deep (an answer's body, a
 * merge patch, a body pattern), pointing at the first value too deep; none for any other. Run
 * before anything recursive touches the value: it walks without recursion.
 */
export function depthViolations(value: unknown, at: string): Violation[] {
  const path = tooDeepAt(value, MAX_ANSWER_DEPTH)
  if (path === undefined) return []
  const pointer = `${at}/${path.map((key) => escapePointer(String(key))).join('/')}`
  return [
    {
      pointer,
      keyword: 'maxDepth',
      message: `nests deeper than ${MAX_ANSWER_DEPTH} levels: a rule's body, patch or pattern nests at most ${MAX_ANSWER_DEPTH} objects or arrays`,
    },
  ]
}

/** Statuses whose answers have no body (RFC 9110, sections 15.3.5, 15.3.6 and 15.4.5). */
const NO_CONTENT = new Set([204, 205, 304])

/** The violation of a whole answer with a body where its status has none (204, 205, 304), pointing into `at` (`/body/answer`). */
export function noContentViolations(status: number, hasBody: boolean, at: string): Violation[] {
  if (NO_CONTENT.has(status) && hasBody)
    return [{ pointer: `${at}/body`, keyword: 'noContent', message: `must be absent: a ${status} answer has no body (RFC 9110)` }]
  return []
}
