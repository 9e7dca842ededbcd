import { readFileSync } from 'node:fs'
import type { Accepted } from './findings.ts'

/**
 * `--ignore FILE`: findings a team has accepted, so a known drift of its installation does not fail
 * every CI run. JSON: a list (or `{ "ignore": [...] }`) of entries, each naming any of `side`
 * (`request` or `answer`), `operationId` and `pointer` (as the report writes it, `*` for array
 * positions), and a free `reason`; a finding is accepted when every member given matches.
 */

/** Most entries a file may hold: it is read once, but matched against every finding. */
export const MAX_ACCEPTED = 1000

/** A file that cannot be used; the message names the file and what is wrong. */
export class IgnoreFileError extends Error {
  override name = 'IgnoreFileError'
}

const MEMBERS = new Set(['side', 'operationId', 'pointer', 'reason'])

/** Reads and checks an ignore file. */
export function readIgnoreFile(path: string): Accepted[] {
  let value: unknown
  try {
    value = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new IgnoreFileError(`${path}: ${code === undefined ? `not JSON (${(error as Error).message})` : `cannot be read (${code})`}`)
  }
  const list = Array.isArray(value) ? value : value !== null && typeof value === 'object' && Array.isArray((value as { ignore?: unknown }).ignore) ? (value as { ignore: unknown[] }).ignore : undefined
  if (list === undefined) throw new IgnoreFileError(`${path}: expected a list of accepted findings, [{ "side": "answer", "operationId": "queryItems", "pointer": "/body/*/Amount" }], or { "ignore": [...] }`)
  if (list.length > MAX_ACCEPTED) throw new IgnoreFileError(`${path}: ${list.length} entries, more than ${MAX_ACCEPTED}`)
  return list.map((entry, i): Accepted => {
    const at = `${path}: entry ${i}`
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw new IgnoreFileError(`${at} is not an object`)
    const record = entry as Record<string, unknown>
    const unknown = Object.keys(record).filter((key) => !MEMBERS.has(key))
    if (unknown.length > 0) throw new IgnoreFileError(`${at} has ${unknown.join(', ')}; an entry names side, operationId, pointer (and a reason)`)
    const { side, operationId, pointer } = record
    if (side !== undefined && side !== 'request' && side !== 'answer') throw new IgnoreFileError(`${at}: side must be "request" or "answer"`)
    if (operationId !== undefined && typeof operationId !== 'string') throw new IgnoreFileError(`${at}: operationId must be a text`)
    if (pointer !== undefined && typeof pointer !== 'string') throw new IgnoreFileError(`${at}: pointer must be a text`)
    if (side === undefined && operationId === undefined && pointer === undefined) throw new IgnoreFileError(`${at} names nothing to accept (side, operationId or pointer)`)
    return { ...(side === undefined ? {} : { side }), ...(operationId === undefined ? {} : { operationId }), ...(pointer === undefined ? {} : { pointer }) }
  })
}
