import YAML from 'yaml'
import { readBounded } from '../../usage-file/check.ts'
import { IGNORE_FIELDS, IGNORE_LIMITS, type IgnoreCommand } from './ignore-format.ts'
import { proxy as validateProxy, upgrade as validateUpgrade } from './ignore-validator.generated.ts'
import type { IgnoreEntry } from './ignore-match.ts'

/**
 * The one ignore file of `proxy --ignore FILE` and `upgrade --ignore FILE`: findings a team has
 * accepted, so a known drift does not fail every CI run. YAML or JSON (JSON is YAML): a list of
 * entries, or `{ ignore: [...] }`, each naming a finding by the members of its command (the proxy:
 * `side`, `operationId`, `pointer`; upgrade: `kind`, `operationId`), each a value or `*` for any,
 * with a free `reason` that every report keeps beside the finding. A member left out matches
 * any value. The file is checked against the published schema (spec/ignore.schema.json, compiled
 * ahead of time); a problem names the file, the entry (counted from 1) and the member.
 *
 * ```yaml
 * - side: answer
 *   operationId: queryItems
 *   pointer: /body/*\/Amount
 *   reason: staging sends Amount as text until release 3.0.20
 * ```
 */

/** An ignore file that cannot be used: the message names the file, and the entry and member when one is at fault. */
export class IgnoreFileError extends Error {
  override name = 'IgnoreFileError'
}

interface SchemaError {
  instancePath: string
  keyword: string
  params: Record<string, unknown>
}
type Validate = ((data: unknown) => boolean) & { errors?: SchemaError[] | null }

const VALIDATORS: Record<IgnoreCommand, Validate> = { proxy: validateProxy as Validate, upgrade: validateUpgrade as Validate }

/** An example of an entry, per command, for the message of a file that is no list. */
const EXAMPLE: Record<IgnoreCommand, string> = {
  proxy: '- side: answer, operationId: queryItems, pointer: /body/*/Amount, reason: ...',
  upgrade: '- kind: answer-renamed, operationId: saveItems, reason: ...',
}

/** 1048576 as `1,048,576`. */
const figure = (n: number) => n.toLocaleString('en-US')

/** A value as a message shows it: a scalar as JSON (a text cut short), an object or a list by what it is. */
function shown(value: unknown): string {
  if (typeof value === 'string') return value.length > 60 ? `${JSON.stringify(value.slice(0, 57))}...` : JSON.stringify(value)
  if (Array.isArray(value)) return 'a list'
  if (value !== null && typeof value === 'object') return 'an object'
  return String(value)
}

/** The message of the schema's first error, in the file's terms: the entry counted from 1, the member by name. */
function problemOf(error: SchemaError, list: readonly unknown[], command: IgnoreCommand): string {
  const fields = IGNORE_FIELDS[command]
  // `/ignore/3/side` and `/3/side` are the same place: the fourth entry's side.
  const [index, member] = error.instancePath
    .replace(/^\/ignore(?=\/|$)/, '')
    .split('/')
    .slice(1)
  const expected = `expected a list of accepted findings (${EXAMPLE[command]}), or { ignore: [...] }`
  if (index === undefined) {
    if (error.keyword === 'maxItems') return `${figure(list.length)} entries, more than ${figure(IGNORE_LIMITS.entries)}`
    if (error.keyword === 'additionalProperties') return `${expected}; "${String(error.params.additionalProperty)}" is no member of it`
    return expected
  }
  const at = `entry ${Number(index) + 1}`
  const entry = list[Number(index)] as Record<string, unknown>
  if (member === undefined) {
    if (error.keyword === 'type') return `${at} is not an object (${fields.join(', ')}, and a reason); got ${shown(entry)}`
    if (error.keyword === 'additionalProperties')
      return `${at}, member ${String(error.params.additionalProperty)}: not a member of an entry of ${command} --ignore, which names ${fields.join(', ')} (and a reason)`
    // `required` (of one branch) or `anyOf`: none of the members that name a finding.
    return `${at} names nothing to accept (${fields.join(', ')})`
  }
  const value = entry[member]
  const what =
    error.keyword === 'enum'
      ? `must be one of ${(error.params.allowedValues as string[]).join(', ')}`
      : error.keyword === 'type'
        ? 'must be a text'
        : error.keyword === 'minLength'
          ? 'must not be empty (leave the member out, or write "*", to accept any)'
          : error.keyword === 'maxLength'
            ? `longer than ${figure(IGNORE_LIMITS.textLength)} characters`
            : `does not fit the ignore file's schema (${error.keyword})`
  return `${at}, member ${member}: ${what}; got ${shown(value)}`
}

/**
 * Reads and checks the ignore file of a command. Throws an IgnoreFileError, naming the file, for a
 * file that cannot be read, is over IGNORE_LIMITS.fileBytes (before it is read whole), is neither
 * YAML nor JSON, or does not fit the schema (with the entry from 1 and the member). An empty file
 * accepts nothing.
 */
export function readIgnoreFile(path: string, command: IgnoreCommand): IgnoreEntry[] {
  let read: ReturnType<typeof readBounded>
  try {
    read = readBounded(path, IGNORE_LIMITS.fileBytes)
  } catch (error) {
    throw new IgnoreFileError(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
  if ('over' in read)
    throw new IgnoreFileError(
      `${path}: ${figure(read.over)} bytes or more, over the limit of ${figure(IGNORE_LIMITS.fileBytes)} bytes (1 MiB) on an ignore file's size`,
    )
  let value: unknown
  try {
    value = YAML.parse(new TextDecoder('utf-8', { ignoreBOM: true }).decode(read))
  } catch (error) {
    throw new IgnoreFileError(`${path}: neither YAML nor JSON (${(error as Error).message.split('\n')[0]})`)
  }
  if (value === null || value === undefined) return []
  const validate = VALIDATORS[command]
  const list = Array.isArray(value) ? value : ((value as { ignore?: unknown }).ignore ?? [])
  if (!validate(value)) throw new IgnoreFileError(`${path}: ${problemOf(validate.errors![0]!, Array.isArray(list) ? list : [], command)}`)
  return (list as IgnoreEntry[]).map((entry) => ({ ...entry }))
}
