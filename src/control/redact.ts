/** What stands in for a secret in the journal's output. */
export const REDACTED = '[redacted]'

/**
 * Names (compared in lower case) of body members and headers that carry secrets: passwords,
 * session tokens in every spelling the API uses, and the control token. The journal is read by
 * tests that print it on failure, and CI logs are public more often than people expect.
 */
const SECRET_NAMES = new Set([
  'password',
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
  const out: Record<string, unknown> = {}
  for (const [key, member] of Object.entries(value)) {
    out[key] = isSecretName(key) && member !== null && member !== '' ? REDACTED : redactValue(member, depth + 1)
  }
  return out
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
