/**
 * Hiding secrets in what the commands print and write: the values met (a password, session tokens)
 * wherever they appear, in every form a text may carry them, and the token members of JSON texts.
 * verify and the proxy both write through it; kept apart from verify's reports so that a command
 * needing only this loads nothing else (the proxy starts without the JUnit writer).
 */

/** Replaces secrets in a text: known values wherever they appear (more can be added), and token members of JSON texts. */
export interface Redactor {
  (text: string): string
  /** Hides one more secret; anything but a text of 4 characters or more is ignored. */
  add(secret: unknown): void
}

/** A secret as it may appear in a text: as it is, and escaped for JSON, XML and URLs (each on top of JSON too). */
export function writtenForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1)
  const xml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;')
  const form = new URLSearchParams({ s: secret }).toString().slice(2)
  return [...new Set([secret, json, JSON.stringify(json).slice(1, -1), xml(secret), xml(json), encodeURIComponent(secret), form])]
}

export function redactor(secrets: readonly string[]): Redactor {
  const values = new Set<string>()
  const add = (secret: unknown) => {
    if (typeof secret !== 'string' || secret.length < 4) return
    for (const form of writtenForms(secret)) values.add(form)
  }
  secrets.forEach(add)
  const redact = (text: string) => {
    let out = text
    for (const secret of [...values].sort((a, b) => b.length - a.length)) out = out.split(secret).join('[redacted]')
    return out.replace(/("(?:access_token|SessionToken|password|EncryptedCredentials)"\s*:\s*)"[^"]*"/gi, '$1"[redacted]"')
  }
  return Object.assign(redact, { add })
}
