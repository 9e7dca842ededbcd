/**
 * `Content-Disposition: attachment` for a file name (RFC 6266): a bare token when the name is
 * plain ASCII without separators (as the description shows, `filename=invoice.pdf`), a quoted string
 * when it has spaces, and an added `filename*` in UTF-8 (RFC 8187) when it is not ASCII.
 */
export function contentDisposition(name: string): string {
  if (/^[A-Za-z0-9!#$&+.^_`|~-]+$/.test(name)) return `attachment; filename=${name}`
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '\\$&')
  const quoted = `attachment; filename="${ascii}"`
  if (/^[\x20-\x7e]*$/.test(name)) return quoted
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
  return `${quoted}; filename*=UTF-8''${encoded}`
}
