/** What stands in for a secret in the journal's output. */
export const REDACTED = '[redacted]'

/**
 * Names (compared in lower case) of body members and headers that carry secrets: passwords,
 * session tokens in every spelling the API uses, and the control token. The journal is read by
 * tests that print it on failure, and CI logs are public more often than people expect.
 */
const SECRET_NAMES = new Set([
  'password',
  'passwd',
  'pwd',
  'token',
  'secret',
  'api_key',
  'apikey',
  'access_token',
  'refresh_token',
  'id_token',
  'sessiontoken',
  'authorization',
  'x-mock-control-token',
  'cookie',
  'set-cookie',
  'client_secret',
  'encryptedcredentials',
])

/** True for a member or header name whose value must not be shown. */
export function isSecretName(name: string): boolean {
  return SECRET_NAMES.has(name.toLowerCase())
}

/**
 * A copy of a parsed JSON or form value with every secret member's value replaced. Runs when
 * the journal is read, never while a request is answered, so recording stays cheap.
 */
export function redactValue(value: unknown, depth = 0): unknown {
  // Parsed JSON is a tree; the depth cap only guards against a pathological body.
  if (depth > 64 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1))
  // fromEntries defines members, so a member named `__proto__` stays a member instead of setting the prototype.
  return Object.fromEntries(
    Object.entries(value).map(([key, member]) => [key, isSecretName(key) && member !== null && member !== '' ? REDACTED : redactValue(member, depth + 1)]),
  )
}

/**
 * A URL with the values of secret query parameters replaced (`?SessionToken=…`, `?password=…`,
 * also percent-encoded names); the path and every other parameter stay exactly as sent. Used for
 * the journal and the log, since clients do put tokens in URLs.
 */
export function redactUrl(url: string): string {
  const question = url.indexOf('?')
  if (question < 0) return url
  const parts = url
    .slice(question + 1)
    .split('&')
    .map((part) => {
      const equals = part.indexOf('=')
      if (equals < 0) return part
      let name = part.slice(0, equals)
      try {
        name = decodeURIComponent(name.replaceAll('+', ' '))
      } catch {
        // A malformed escape: judged by the name as written.
      }
      return isSecretName(name.trim()) ? `${part.slice(0, equals)}=${REDACTED}` : part
    })
  return `${url.slice(0, question)}?${parts.join('&')}`
}

/** Request headers as plain text values, secrets replaced. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    out[name] = isSecretName(name) ? REDACTED : Array.isArray(value) ? value.join(', ') : value
  }
  return out
}
