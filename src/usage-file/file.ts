import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import type { RequestShape } from './request-shape.ts'
import { ShapeAccumulator, type Shape } from './shape.ts'
import { describeJsonSyntaxError, parseJsonText } from '../wire/json-syntax.ts'

/**
 * The usage file: what a client used of the API while its tests ran against the mock, one
 * interaction per operation, release and request shape, with the answers it received by status.
 * Stable JSON (members sorted, interactions sorted by their key), so that the same tests give the
 * same file and a change of the client shows as a small diff in a pull request.
 */
export interface UsageFile {
  appdataKitUsage: 1
  interactions: Interaction[]
}

export interface Interaction {
  operation: string
  release: string
  request: RequestShape
  /** Requests of this shape. */
  count: number
  /** By status: how many, the body's shape (JSON answers), the media type (files), the problem codes (refusals). */
  answers: Record<string, AnswerRecord>
}

export interface AnswerRecord {
  count: number
  body?: Shape
  mediaTypes?: string[]
  problems?: string[]
}

export const USAGE_VERSION = 1

/** The key an interaction is found by: operation, release and request shape. */
export function interactionKey(interaction: Pick<Interaction, 'operation' | 'release' | 'request'>): string {
  return stableJson([interaction.operation, interaction.release, interaction.request])
}

/** JSON with every object's members sorted: the same value always gives the same text. */
export function stableJson(value: unknown, indent?: number): string {
  return JSON.stringify(sortKeys(value), null, indent)
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (value === null || typeof value !== 'object') return value
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]))
}

/** One answer record being built: counts, and the body's shape accumulated over the answers seen. */
export class AnswerAccumulator {
  count = 0
  bodies = 0
  body: ShapeAccumulator | undefined
  readonly mediaTypes = new Set<string>()
  readonly problems = new Set<string>()

  record(): AnswerRecord {
    const out: AnswerRecord = { count: this.count }
    if (this.body !== undefined) out.body = this.body.shape()
    if (this.mediaTypes.size > 0) out.mediaTypes = [...this.mediaTypes].sort()
    if (this.problems.size > 0) out.problems = [...this.problems].sort()
    return out
  }

  addRecord(record: AnswerRecord): void {
    this.count += record.count
    if (record.body !== undefined) (this.body ??= new ShapeAccumulator()).addShape(record.body)
    for (const type of record.mediaTypes ?? []) this.mediaTypes.add(type)
    for (const code of record.problems ?? []) this.problems.add(code)
  }
}

/** One interaction being built. */
export interface InteractionEntry {
  operation: string
  release: string
  request: RequestShape
  count: number
  answers: Map<string, AnswerAccumulator>
}

/** Interactions being built, by key; `file()` gives the usage file. */
export class UsageAccumulator {
  readonly #entries = new Map<string, InteractionEntry>()

  entry(operation: string, release: string, request: RequestShape): InteractionEntry {
    const key = interactionKey({ operation, release, request })
    let entry = this.#entries.get(key)
    if (entry === undefined) this.#entries.set(key, (entry = { operation, release, request, count: 0, answers: new Map() }))
    return entry
  }

  answer(entry: InteractionEntry, status: number): AnswerAccumulator {
    let answer = entry.answers.get(String(status))
    if (answer === undefined) entry.answers.set(String(status), (answer = new AnswerAccumulator()))
    return answer
  }

  addFile(file: UsageFile): void {
    for (const interaction of file.interactions) {
      const entry = this.entry(interaction.operation, interaction.release, interaction.request)
      entry.count += interaction.count
      for (const [status, record] of Object.entries(interaction.answers)) this.answer(entry, Number(status)).addRecord(record)
    }
  }

  file(): UsageFile {
    const keys = [...this.#entries.keys()].sort()
    return { appdataKitUsage: USAGE_VERSION, interactions: keys.map((key) => interactionOf(this.#entries.get(key) as InteractionEntry)) }
  }
}

/** An interaction being built as the file writes it (its answers by status, in order). */
export function interactionOf(entry: InteractionEntry): Interaction {
  const answers = Object.fromEntries([...entry.answers.keys()].sort().map((status) => [status, entry.answers.get(status)?.record() as AnswerRecord]))
  return { operation: entry.operation, release: entry.release, request: entry.request, count: entry.count, answers }
}

/** The file's text: stable JSON, two-space indented, one final newline. */
export function usageText(file: UsageFile): string {
  return `${stableJson(file, 2)}\n`
}

/** Writes a usage file whole or not at all: to a temporary file beside it, renamed over it. */
export function writeUsageFile(path: string, file: UsageFile): void {
  const temporary = `${path}.${process.pid}.tmp`
  writeFileSync(temporary, usageText(file))
  renameSync(temporary, path)
}

/** A usage file that cannot be read: the message names the file and what is wrong. */
export class UsageFileError extends Error {
  override name = 'UsageFileError'
}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value)

/** What is wrong with a request shape, as `member is not ...`; undefined when it has the form the recorder writes. */
function requestProblem(request: Partial<RequestShape>): string | undefined {
  if (!Array.isArray(request.headers) || !request.headers.every((name) => typeof name === 'string')) return 'headers is not a list of header names'
  if (request.query !== undefined && !isObject(request.query)) return 'query is not an object of query options'
  if (request.rows !== undefined && !(Array.isArray(request.rows) && request.rows.every((kind) => isObject(kind) && isObject(kind.fields) && (kind.table === null || typeof kind.table === 'string')))) {
    return 'rows is not a list of kinds of rows ({ table, action, fields })'
  }
  if (request.delete !== undefined && !(isObject(request.delete) && Array.isArray(request.delete.tables))) return 'delete is not { form, tables }'
  if (request.path !== undefined && !isObject(request.path)) return 'path is not an object of path parameters'
  return undefined
}

/** Reads and checks a usage file. */
export function readUsageFile(path: string): UsageFile {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    throw new UsageFileError(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`)
  }
  const parsed = parseJsonText(text)
  if ('error' in parsed) throw new UsageFileError(`${path}: not JSON (${describeJsonSyntaxError(parsed.error)})`)
  const file = parsed.value as Partial<UsageFile> | null
  if (file === null || typeof file !== 'object' || file.appdataKitUsage !== USAGE_VERSION || !Array.isArray(file.interactions)) {
    throw new UsageFileError(`${path}: not a usage file of this appdata-kit (expected {"appdataKitUsage": ${USAGE_VERSION}, "interactions": [...]}, as --record-usage writes)`)
  }
  for (const [i, interaction] of file.interactions.entries()) {
    const ok = interaction !== null && typeof interaction === 'object' && typeof interaction.operation === 'string' && typeof interaction.release === 'string' &&
      interaction.request !== null && typeof interaction.request === 'object' && Number.isInteger(interaction.count) && interaction.answers !== null && typeof interaction.answers === 'object'
    if (!ok) throw new UsageFileError(`${path}: interactions[${i}] is not an interaction (operation, release, request, count, answers)`)
    const wrong = requestProblem(interaction.request as Partial<RequestShape>)
    if (wrong !== undefined) throw new UsageFileError(`${path}: interactions[${i}].request.${wrong}`)
  }
  return file as UsageFile
}

/** Joins usage files (of parallel test files or CI shards) into one: counts added, shapes joined. */
export function mergeUsage(files: readonly UsageFile[]): UsageFile {
  const accumulator = new UsageAccumulator()
  for (const file of files) accumulator.addFile(file)
  return accumulator.file()
}
