import { readFileSync } from 'node:fs'
import YAML from 'yaml'
import { FINDING_KINDS, type Finding, type FindingKind, type IgnoredFinding } from './types.ts'

/**
 * The ignore file of `upgrade --ignore FILE`: findings a team has accepted, by kind and operation,
 * each with an optional reason. YAML or JSON (JSON is YAML): a list of entries, or `{ ignore: [...] }`.
 *
 * ```yaml
 * - kind: request-tolerated
 *   operationId: deleteItems
 *   reason: the older delete body stays until the client's next release
 * ```
 *
 * `operationId: "*"` accepts the kind on every operation. A finding whose change meets several
 * operations' answers is accepted when the entry names one of them.
 */
export interface IgnoreEntry {
  kind: FindingKind
  operationId: string
  reason?: string
}

/** An ignore file that cannot be used: the message names the file and the entry. */
export class IgnoreFileError extends Error {
  override name = 'IgnoreFileError'
}

/** Most entries an ignore file may hold: a file of accepted findings is short, and each is matched against every finding. */
const MAX_ENTRIES = 1000

/** Reads and checks an ignore file. */
export function readIgnoreFile(path: string): IgnoreEntry[] {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new IgnoreFileError(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
  let value: unknown
  try {
    value = YAML.parse(text)
  } catch (error) {
    throw new IgnoreFileError(`${path}: neither YAML nor JSON (${(error as Error).message.split('\n')[0]})`)
  }
  const list = Array.isArray(value) ? value : value !== null && typeof value === 'object' && Array.isArray((value as { ignore?: unknown }).ignore) ? (value as { ignore: unknown[] }).ignore : value === null ? [] : undefined
  if (list === undefined) throw new IgnoreFileError(`${path}: expected a list of accepted findings (- kind: ..., operationId: ...), or { ignore: [...] }`)
  if (list.length > MAX_ENTRIES) throw new IgnoreFileError(`${path}: ${list.length} entries; at most ${MAX_ENTRIES}`)
  return list.map((entry, index) => {
    const item = entry as Partial<Record<keyof IgnoreEntry, unknown>> | null
    if (item === null || typeof item !== 'object') throw new IgnoreFileError(`${path}: entry ${index + 1} is not an object with kind and operationId`)
    if (typeof item.kind !== 'string' || !(FINDING_KINDS as readonly string[]).includes(item.kind)) throw new IgnoreFileError(`${path}: entry ${index + 1}: kind must be one of ${FINDING_KINDS.join(', ')}; got ${JSON.stringify(item.kind)}`)
    if (typeof item.operationId !== 'string' || item.operationId === '') throw new IgnoreFileError(`${path}: entry ${index + 1}: operationId must be an operation's id (such as deleteItems) or "*"`)
    if (item.reason !== undefined && typeof item.reason !== 'string') throw new IgnoreFileError(`${path}: entry ${index + 1}: reason must be a text`)
    return { kind: item.kind as FindingKind, operationId: item.operationId, ...(item.reason === undefined ? {} : { reason: item.reason }) }
  })
}

/** Whether an entry accepts a finding. */
const accepts = (entry: IgnoreEntry, finding: Finding) => entry.kind === finding.kind && (entry.operationId === '*' || finding.operationId.split(', ').includes(entry.operationId))

/** The findings split into those still reported and those the entries accept (with the first accepting entry's reason). */
export function applyIgnore(findings: readonly Finding[], entries: readonly IgnoreEntry[]): { findings: Finding[]; ignored: IgnoredFinding[] } {
  const kept: Finding[] = []
  const ignored: IgnoredFinding[] = []
  for (const finding of findings) {
    const entry = entries.find((candidate) => accepts(candidate, finding))
    if (entry === undefined) kept.push(finding)
    else ignored.push({ ...finding, ...(entry.reason === undefined ? {} : { reason: entry.reason }) })
  }
  return { findings: kept, ignored }
}
