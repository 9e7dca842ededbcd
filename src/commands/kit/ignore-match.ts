import { ANY } from './ignore-format.ts'

/**
 * How an ignore file's entries (ignore-file.ts reads them) accept findings: every member an entry
 * gives must match, `*` or a member left out matching anything. Apart from the reader so that a
 * command holding the entries (the proxy's report, on its main thread) loads no YAML parser.
 */

/** An entry as the file gives it: the members that name a finding (absent: any), and why it is accepted. */
export interface IgnoreEntry {
  side?: string
  kind?: string
  operationId?: string
  pointer?: string
  reason?: string
}

/** What of a finding an entry is matched against: the members its command's findings have. */
export interface NamedFinding {
  side?: string
  kind?: string
  /** The operations it touches: one, several (a change met in the answers of save and delete), or none. */
  operationIds: readonly string[]
  pointer?: string
}

/**
 * Whether an ignore file's pointer names a finding's: exactly, but for a header's name, in any
 * letter case (header names are; and older reports wrote them as Node gives them,
 * `/headers/content-type`, where they now write the document's `/headers/Content-Type`).
 */
export function samePointer(given: string, reported: string): boolean {
  if (given === reported) return true
  if (!given.startsWith('/headers/') || !reported.startsWith('/headers/')) return false
  // `/headers/NAME`, up to what may follow the name.
  const header = (pointer: string) => {
    const end = pointer.indexOf('/', '/headers/'.length)
    return end === -1 ? pointer : pointer.slice(0, end)
  }
  const [a, b] = [header(given), header(reported)]
  return a.length === b.length && a.toLowerCase() === b.toLowerCase() && given.slice(a.length) === reported.slice(b.length)
}

/** Whether one member given matches: absent or `*` matches anything. */
const matches = (given: string | undefined, test: (given: string) => boolean) => given === undefined || given === ANY || test(given)

/** Whether an entry accepts a finding: every member it gives matches; an operation when it is one of the finding's. */
export function accepts(entry: IgnoreEntry, finding: NamedFinding): boolean {
  return (
    matches(entry.side, (side) => side === finding.side) &&
    matches(entry.kind, (kind) => kind === finding.kind) &&
    matches(entry.operationId, (operationId) => finding.operationIds.includes(operationId)) &&
    matches(entry.pointer, (pointer) => finding.pointer !== undefined && samePointer(pointer, finding.pointer))
  )
}

/** The first entry that accepts a finding (whose reason the reports give), or undefined. */
export function acceptingEntry(entries: readonly IgnoreEntry[], finding: NamedFinding): IgnoreEntry | undefined {
  return entries.find((entry) => accepts(entry, finding))
}
