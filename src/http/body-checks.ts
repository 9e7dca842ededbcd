/**
 * What a request body must be before the mock reads it, and the refusals a client meets first when
 * it is not. Each is the `BAD_BODY` problem with a `hint` that names what to send:
 *
 * - its type: the operation's media type (JSON unless the description states otherwise, a form for
 *   sign-in), named in `Content-Type`; a body of another type, or of none, is not read;
 * - its encoding: not compressed (no `Content-Encoding`, or `identity`); the mock decodes none;
 * - its characters: UTF-8, whatever a `charset` parameter says. JSON is UTF-8 (RFC 8259, section
 *   8.1, and section 11: the `charset` parameter has no effect on a JSON recipient), and so is a
 *   form's percent-encoded text (the URL standard's `application/x-www-form-urlencoded`).
 *
 * All three are the mock's choice (the description says only "`Content-Type` is `application/json`
 * unless stated"), listed in docs/behaviour.md.
 */
import { isUtf8 } from 'node:buffer'
import type { FastifyReply, FastifyRequest, RequestPayload } from 'fastify'
import { ProblemError } from '../errors.ts'

/** The media type of a `Content-Type` value: lower case, without its parameters. */
export function mediaTypeOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
}

/** The `charset` parameter of a `Content-Type` value, as sent (quotes removed), or undefined. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? '')
  return match === null ? undefined : (match[1] ?? match[2])
}

/** Whether a charset label names UTF-8 (`utf-8`, `UTF8`, ...), as the encoding standard reads labels. */
function isUtf8Label(label: string): boolean {
  try {
    return new TextDecoder(label).encoding === 'utf-8'
  } catch {
    return false
  }
}

/** The hint of a body read as UTF-8: what to send, naming the charset the request declared when it is another. */
function utf8Hint(contentType: string | undefined): string {
  const charset = charsetOf(contentType)
  const declared =
    charset === undefined || isUtf8Label(charset) ? '' : ` The charset=${charset} of its Content-Type changes nothing: JSON bodies and forms are read as UTF-8.`
  return `Send the body's text as UTF-8.${declared}`
}

/** The operation's media type, where the route names one; JSON otherwise (the description: "`Content-Type` is `application/json` unless stated"). */
export function wantedMediaType(request: FastifyRequest): string {
  return request.routeOptions.config?.mediaType ?? 'application/json'
}

/** A body of a type the operation does not read, or with no `Content-Type` at all: the type to send. */
export function wrongTypeProblem(request: FastifyRequest): ProblemError {
  const sent = request.headers['content-type']
  const detail =
    sent === undefined || sent.trim() === '' ? 'The request has a body but no Content-Type.' : `A body of type ${JSON.stringify(sent)} is not read here.`
  return new ProblemError('BAD_BODY', detail, { hint: `Send the body with Content-Type: ${wantedMediaType(request)}.` })
}

/** Whether the request carries a body (a length above zero, or chunks to come). */
function hasBody(request: FastifyRequest): boolean {
  return request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0
}

/** The content codings of a `Content-Encoding` value other than `identity`, lower case. */
export function contentCodings(value: string | string[] | undefined): string[] {
  const text = Array.isArray(value) ? value.join(',') : (value ?? '')
  return text
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity')
}

/**
 * The route step before the body is read (Fastify's `preParsing`): a compressed body is refused
 * before a byte of it is read. Read as it came, its compressed bytes would be refused as text
 * that is not JSON, which points the client at the wrong mistake.
 */
export function refuseEncodedBody(
  request: FastifyRequest,
  _reply: FastifyReply,
  payload: RequestPayload,
  done: (error?: Error | null, payload?: RequestPayload) => void,
): void {
  const header = request.headers['content-encoding']
  // Almost no request names a coding: then nothing is split or allocated (a split, a map and a
  // filter on every request were part of what W1's page gained between a38c1c4 and a4456c3).
  if (header === undefined) {
    done(null, payload)
    return
  }
  const codings = contentCodings(header)
  if (codings.length === 0 || !hasBody(request)) {
    done(null, payload)
    return
  }
  done(
    new ProblemError('BAD_BODY', `The body is sent with Content-Encoding: ${codings.join(', ')}; the mock reads bodies as they are, decoding none.`, {
      hint: `Send the body uncompressed, without Content-Encoding (as ${wantedMediaType(request)}).`,
    }),
  )
}

/**
 * The index of the first byte of `bytes` that begins no well-formed UTF-8 sequence (the Unicode
 * standard, table 3-7: no overlong forms, no surrogates, nothing past U+10FFFF), or undefined when
 * all of it is UTF-8. Only called for bytes `isUtf8` refused, to say where.
 */
export function firstNonUtf8Byte(bytes: Uint8Array): number | undefined {
  let at = 0
  while (at < bytes.length) {
    const lead = bytes[at] as number
    if (lead < 0x80) {
      at++
      continue
    }
    // The sequence's length and the range of its second byte, by its first byte.
    const [length, low, high] =
      lead >= 0xc2 && lead <= 0xdf
        ? [2, 0x80, 0xbf]
        : lead === 0xe0
          ? [3, 0xa0, 0xbf]
          : (lead >= 0xe1 && lead <= 0xec) || lead === 0xee || lead === 0xef
            ? [3, 0x80, 0xbf]
            : lead === 0xed
              ? [3, 0x80, 0x9f]
              : lead === 0xf0
                ? [4, 0x90, 0xbf]
                : lead >= 0xf1 && lead <= 0xf3
                  ? [4, 0x80, 0xbf]
                  : lead === 0xf4
                    ? [4, 0x80, 0x8f]
                    : [0, 0, 0]
    if (length === 0 || at + length > bytes.length) return at
    const second = bytes[at + 1] as number
    if (second < low || second > high) return at
    for (let i = 2; i < length; i++) {
      const next = bytes[at + i] as number
      if (next < 0x80 || next > 0xbf) return at
    }
    at += length
  }
  return undefined
}

/**
 * The body's bytes as text, or the `BAD_BODY` problem that says where they stop being UTF-8. A byte
 * order mark stays in the text (as Fastify's own reading keeps it), for the JSON check to name.
 */
export function utf8Text(bytes: Buffer, contentType: string | undefined): { text: string } | { problem: ProblemError } {
  if (isUtf8(bytes)) return { text: bytes.toString('utf8') }
  const at = firstNonUtf8Byte(bytes) ?? 0
  const byte = `0x${(bytes[at] ?? 0).toString(16).toUpperCase().padStart(2, '0')}`
  return {
    problem: new ProblemError('BAD_BODY', `The body is not UTF-8: the byte ${byte} at offset ${at} begins no UTF-8 character.`, {
      offset: at,
      hint: utf8Hint(contentType),
    }),
  }
}

/** The hint for a JSON body that does not parse, when the request named a charset other than UTF-8 (a UTF-16 body reads as text with NUL characters). */
export function charsetHint(contentType: string | undefined): { hint: string } | Record<string, never> {
  const charset = charsetOf(contentType)
  return charset === undefined || isUtf8Label(charset) ? {} : { hint: utf8Hint(contentType) }
}

/** Whether a form's name or value decodes to UTF-8: a `%` that starts no escape stays a `%` (as URLSearchParams reads it), escaped bytes must form UTF-8. */
function decodesToUtf8(part: string): boolean {
  if (!part.includes('%')) return true
  try {
    decodeURIComponent(part.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'))
    return true
  } catch {
    return false
  }
}

/**
 * The `BAD_BODY` problem for a form with a field whose percent-escapes do not decode to UTF-8
 * (`%E9` for a Latin-1 "é"), naming the field, never its value (it may be a password); undefined
 * when the whole form decodes. URLSearchParams would read each such byte as U+FFFD, so a password
 * would silently become another one.
 */
export function nonUtf8FormProblem(form: string, contentType: string | undefined): ProblemError | undefined {
  for (const pair of form.split('&')) {
    const equals = pair.indexOf('=')
    const [name, value] = equals === -1 ? [pair, ''] : [pair.slice(0, equals), pair.slice(equals + 1)]
    if (decodesToUtf8(name) && decodesToUtf8(value)) continue
    const shownName = new URLSearchParams(`${name}=`).keys().next().value ?? name
    return new ProblemError('BAD_BODY', `The form's field ${JSON.stringify(shownName)} is not UTF-8 once its percent-escapes are decoded.`, {
      hint: `Percent-encode the form as UTF-8 bytes (as URLSearchParams and encodeURIComponent do). ${utf8Hint(contentType)}`,
    })
  }
  return undefined
}
