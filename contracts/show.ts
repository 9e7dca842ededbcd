/**
 * How a failure shows what came back. From the mock, the value itself (JSON, cut to a readable
 * length). From an installation, only its outline: field names, Ids, flags and counts, never the
 * values of rows, since failure lines end up in CI logs and reports that more people read than
 * may see the installation's data.
 */

/** A value as JSON, cut to a readable length. */
export function shown(value: unknown, max = 300): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value))
  return text.length > max ? `${text.slice(0, max)}...` : text
}

const MAX_NAMES = 12

/** What a value is, without the data it holds: Ids, flags and counts kept, texts and other values left out. */
export function outline(value: unknown, depth = 0): string {
  if (value === undefined) return 'nothing'
  if (value === null || typeof value === 'boolean') return String(value)
  // A number on its own is a count, an Id or a status; inside a row it would be data (below).
  if (typeof value === 'number') return depth === 0 ? String(value) : 'a number'
  if (typeof value === 'string') return `a text of ${value.length} characters`
  if (Buffer.isBuffer(value)) return `${value.length} bytes`
  if (Array.isArray(value)) {
    const ids = value.flatMap((item) =>
      item !== null && typeof item === 'object' && Number.isSafeInteger((item as { Id?: unknown }).Id) ? [(item as { Id: number }).Id] : [],
    )
    if (ids.length > 0) return `${value.length} item(s), Id ${ids.slice(0, MAX_NAMES).join(', ')}${ids.length > MAX_NAMES ? ', ...' : ''}`
    if (value.every((item) => Number.isSafeInteger(item))) return `[${value.slice(0, MAX_NAMES).join(',')}${value.length > MAX_NAMES ? ',...' : ''}]`
    return `${value.length} item(s)`
  }
  if (typeof value !== 'object') return typeof value
  const entries = Object.entries(value as Record<string, unknown>)
  const parts = entries.slice(0, MAX_NAMES).map(([name, member]) => {
    // An Id (a whole number) and a flag say which row and what happened; they are no one's data.
    if ((name === 'Id' && Number.isSafeInteger(member)) || typeof member === 'boolean') return `${name}: ${String(member)}`
    if (depth === 0 && member !== null && typeof member === 'object') return `${name}: ${outline(member, depth + 1)}`
    return name
  })
  return `{${parts.join(', ')}${entries.length > MAX_NAMES ? ', ...' : ''}}`
}

/** How a run shows values: all of them against the mock, their outline against an installation. */
export function showFor(holdTo: 'mock' | 'description'): (value: unknown, max?: number) => string {
  return holdTo === 'mock' ? shown : (value) => outline(value)
}
