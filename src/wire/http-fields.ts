/**
 * HTTP header fields as RFC 9110 defines them (section 5), for answers the mock sends on a rule's
 * say and for the proxy that passes an installation's answers on: which names are names, which
 * values can be sent, and which fields belong to the connection (or to the mock's own layers)
 * rather than to the answer.
 */

/** A field name is a token (RFC 9110, section 5.1 and 5.6.2): one or more tchar. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** Whether `name` is a field name: an RFC 9110 token (no space, colon or control character). */
export function isFieldName(name: string): boolean {
  return TOKEN.test(name)
}

/**
 * The first character of `value` an answer's field value cannot hold, or undefined when it can
 * hold them all: visible ASCII, space and horizontal tab (RFC 9110, section 5.5). CR, LF, NUL and
 * the other control characters (DEL too) would split or corrupt the header block. Characters past
 * ASCII are refused too: RFC 9110 leaves them to obsolete text (obs-text, opaque octets) and asks
 * new fields to keep to ASCII (encoding others, RFC 8187); Node refuses those past U+00FF, and
 * sends the others in Latin-1 or UTF-8 depending on how the body is written, so a client would not
 * read what the rule said.
 */
export function badFieldValueCharacter(value: string): string | undefined {
  return /[^\t\x20-\x7e]/.exec(value)?.[0]
}

/**
 * Fields that belong to one connection, not to an answer: its framing (`Content-Length`,
 * `Transfer-Encoding`, which the server writes from the body it sends; both at once is a broken
 * answer), the hop-by-hop fields (RFC 9110, section 7.6.1: `Connection` and those it lists,
 * `Keep-Alive`, `Proxy-Connection`, `TE`, `Trailer`, `Upgrade`) and `Host`, a request's field.
 * In lower case.
 */
export const CONNECTION_FIELDS: ReadonlySet<string> = new Set([
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'upgrade',
  'host',
])

/** Whether a field is one of CORS's (`Access-Control-*`), which the server's CORS layer alone writes. */
export function isCorsField(name: string): boolean {
  return name.toLowerCase().startsWith('access-control-')
}

/** A character as a reader can see it in a message: `U+000D (CR)`, `U+20AC (€)`. */
export function describeCharacter(character: string): string {
  const code = character.codePointAt(0) ?? 0
  const names: Record<number, string> = { 0: 'NUL', 9: 'HTAB', 10: 'LF', 13: 'CR', 127: 'DEL' }
  const shown = names[code] ?? (code < 0x20 ? 'a control character' : character)
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')} (${shown})`
}
