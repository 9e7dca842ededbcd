import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import type { ErrorObject } from 'ajv/dist/2020.js'
import { KNOWN_RELEASES, SHAPE_AT_LIMIT, USAGE_LIMITS } from './limits.ts'
import { MAX_DEPTH, ROW_FIELD_TYPES, SHAPE_TYPES } from './shape.ts'
import { validate as validateUsageSchema } from './usage-validator.generated.ts'

/**
 * The door every usage file passes before any command uses it: its size (before it is read whole),
 * then the published schema (spec/usage.schema.json, compiled ahead of time), which holds its types
 * and every other bound. A problem is one line naming the file, the interaction (counted from 1)
 * and the JSON pointer, or the limit passed.
 */

/** What is wrong with a usage file: the message names the file and where. */
export class UsageFileError extends Error {
  override name = 'UsageFileError'
}

type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null }

const L = USAGE_LIMITS

/** 268435456 as `268,435,456`. */
const figure = (n: number) => n.toLocaleString('en-US')

/** Reads at most `limit` + 1 bytes of a file: its bytes, or how many there are when more than `limit`. */
export function readBounded(path: string, limit: number): Uint8Array | { over: number } {
  const fd = openSync(path, 'r')
  try {
    const stat = fstatSync(fd)
    if (stat.isFile() && stat.size > limit) return { over: stat.size }
    // A file may grow after fstat, and a pipe (`--usage <(...)`) or a device says nothing of its size:
    // whatever it says, no more than one byte past the limit is read.
    const chunks: Buffer[] = []
    let length = 0
    // A regular file is read in one piece of the size it says (and one byte more, to see it grew).
    for (let size = stat.isFile() ? stat.size + 1 : 1 << 20; length <= limit; size = 1 << 20) {
      const chunk = Buffer.allocUnsafe(Math.min(size, limit + 1 - length))
      const read = readSync(fd, chunk, 0, chunk.length, null)
      if (read === 0) break
      chunks.push(chunk.subarray(0, read))
      length += read
    }
    if (length > limit) return { over: length }
    return chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, length)
  } finally {
    closeSync(fd)
  }
}

/**
 * The text of a usage file, refused before it is read whole when it is larger than the limit on a
 * usage file's size. `label` names the file as the command took it (`--usage usage.json`).
 */
export function readUsageText(path: string, label: string): string {
  let read: ReturnType<typeof readBounded>
  try {
    read = readBounded(path, L.fileBytes)
  } catch (error) {
    throw new UsageFileError(`${label}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
  if ('over' in read)
    throw new UsageFileError(
      `${label}: ${figure(read.over)} bytes or more, over the limit of ${figure(L.fileBytes)} bytes (256 MiB) on a usage file's size (see docs/usage.md, Limits)`,
    )
  // ignoreBOM keeps a byte order mark as text, so the JSON check names it (TextDecoder drops it otherwise).
  return new TextDecoder('utf-8', { ignoreBOM: true }).decode(read)
}

/** The value at a JSON pointer of a parsed file. */
function at(root: unknown, pointer: string): unknown {
  let node = root
  for (const part of pointer.split('/').slice(1)) {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~')
    node = node !== null && typeof node === 'object' && Object.hasOwn(node, key) ? (node as Record<string, unknown>)[key] : undefined
  }
  return node
}

/** A value as a message shows it: a scalar as JSON (a text cut to its first 60 characters), an object or a list by its size, never walked. */
function shown(value: unknown): string {
  if (typeof value === 'string') return value.length > 60 ? `${JSON.stringify(value.slice(0, 57))}...` : JSON.stringify(value)
  if (Array.isArray(value)) return `a list of ${figure(value.length)} item${value.length === 1 ? '' : 's'}`
  if (value !== null && typeof value === 'object') return 'an object'
  return String(value)
}

const TYPE_WORDS: Record<string, string> = {
  string: 'a text',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  object: 'an object',
  array: 'a list',
  null: 'null',
}

/** Ajv's first error as a sentence about the value at `pointer`. */
function sentence(error: ErrorObject, root: unknown, pointer: string): string {
  const params = error.params as Record<string, unknown>
  const value = at(root, pointer)
  // A member name that breaks a rule: Ajv names it beside the error, at the object's pointer.
  const name = (error as { propertyName?: string }).propertyName
  if ((error.parentSchema as { $comment?: unknown } | undefined)?.$comment === SHAPE_AT_LIMIT)
    return `holds a shape whose members nest deeper than ${L.shapeDepth} levels, the limit on a shape's nesting (a recorder writes at most ${MAX_DEPTH})`
  switch (error.keyword) {
    case 'type':
      return `is ${shown(value)}; it must be ${String(params.type)
        .split(',')
        .map((type) => TYPE_WORDS[type] ?? type)
        .join(' or ')}`
    case 'required':
      return `lacks the member ${String(params.missingProperty)}`
    case 'additionalProperties':
      return `has a member ${shown(params.additionalProperty)}, which a usage file does not have there`
    case 'const':
      return `is ${shown(value)}; it must be ${shown(params.allowedValue)}${pointer === '/appdataKitUsage' ? " (the format's version, as --record-usage writes it)" : ''}`
    case 'enum':
      return `is ${shown(value)}; it must be one of ${(params.allowedValues as unknown[]).map((allowed) => shown(allowed)).join(', ')}`
    case 'minimum':
      return `is ${shown(value)}; it must be at least ${String(params.limit)}`
    case 'maximum':
      return `is ${shown(value)}; it must be at most ${figure(params.limit as number)}`
    case 'uniqueItems':
      return `lists ${shown((value as unknown[])[params.i as number])} twice`
    case 'maxItems':
      return pointer === '/interactions'
        ? `holds ${figure((value as unknown[]).length)} interactions, over the limit of ${figure(L.interactions)} interactions in a usage file`
        : `lists ${figure((value as unknown[]).length)} items, over the limit of ${figure(L.listItems)} items in a list`
    case 'maxProperties':
      return `has ${figure(Object.keys(value as object).length)} members, over the limit of ${figure(L.members)} members in an object`
    case 'maxLength':
      return name !== undefined
        ? `has a member name of ${figure(name.length)} characters (${shown(name)}), over the limit of ${figure(L.nameLength)} characters on a member name`
        : `is a text of ${figure((value as string).length)} characters, over the limit of ${figure(L.textLength)} characters on a text`
    case 'pattern':
      if (name !== undefined) {
        return /\/answers$/.test(pointer)
          ? `has the status ${shown(name)}, which is no HTTP status (three digits, 100 to 599)`
          : `has the member name ${shown(name)}: a shape's members are names (a letter, _ or $ first) or * for keys that are data`
      }
      if (/^\/interactions\/\d+\/release$/.test(pointer))
        return `names the release ${shown(value)}, which appdata-kit does not know: it knows the releases ${KNOWN_RELEASES}`
      return `is ${shown(value)}, which is no type a recorder writes: ${(/\/rows\/\d+\/fields\/[^/]+$/.test(pointer) ? ROW_FIELD_TYPES : SHAPE_TYPES).join(', ')}, or several of them joined by |`
    default:
      return error.message ?? `fails ${error.keyword}`
  }
}

/**
 * Checks parsed JSON against the usage file's schema; a UsageFileError naming `label`, the
 * interaction (from 1) and the pointer of the first problem.
 */
export function checkUsageJson(value: unknown, label: string): void {
  const validate = validateUsageSchema as Validate
  if (validate(value)) return
  const [error] = validate.errors ?? []
  if (error === undefined) throw new UsageFileError(`${label}: not a usage file`)
  // The root lacking the format's members is no usage file at all, rather than a broken one.
  if (
    error.instancePath === '' &&
    (error.keyword === 'required' ||
      error.keyword === 'type' ||
      (error.keyword === 'additionalProperties' && (value as { appdataKitUsage?: unknown }).appdataKitUsage === undefined))
  ) {
    throw new UsageFileError(
      `${label}: not a usage file of this appdata-kit (expected {"appdataKitUsage": 1, "interactions": [...]}, as --record-usage writes)`,
    )
  }
  const pointer = error.instancePath
  const index = /^\/interactions\/(\d+)(?:\/|$)/.exec(pointer)?.[1]
  const where = index === undefined ? (pointer === '' ? 'the file' : pointer) : `interaction ${Number(index) + 1} (${pointer})`
  throw new UsageFileError(`${label}: ${where} ${sentence(error, value, pointer)}`)
}
