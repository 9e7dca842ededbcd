import { renameSync, writeFileSync } from 'node:fs'
import type { RequestShape } from './request-shape.ts'
import { ShapeAccumulator, type Shape } from './shape.ts'
import { describeJsonSyntaxError, parseJsonText } from '../wire/json-syntax.ts'
import { checkUsageJson, readUsageText, UsageFileError } from './check.ts'

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

/** The interaction asked about last and its answer: a replay asks several times about the interaction it replays. */
let lastAsked: { interaction: Interaction; found: AnswerRecord | undefined } | undefined

/**
 * What the client received with a 2xx, the answer it relied on (`verify --usage` and `upgrade` check
 * what a release answers against it); undefined when it met only refusals.
 */
export function successfulAnswer(interaction: Interaction): AnswerRecord | undefined {
  if (lastAsked?.interaction === interaction) return lastAsked.found
  const found = Object.entries(interaction.answers).find(([status]) => /^2/.test(status))?.[1]
  lastAsked = { interaction, found }
  return found
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
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  )
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
  readonly #limit: number
  /** Requests of shapes past the limit: counted here, not kept (a recorder's file stays one the readers take). */
  unrecorded = 0

  /** `limit`: the most interactions kept (a recorder's: the readers' bound); none by default (a merge says itself when it passes it). */
  constructor(options: { limit?: number } = {}) {
    this.#limit = options.limit ?? Infinity
  }

  entry(operation: string, release: string, request: RequestShape): InteractionEntry {
    const key = interactionKey({ operation, release, request })
    let entry = this.#entries.get(key)
    if (entry !== undefined) return entry
    entry = { operation, release, request, count: 0, answers: new Map() }
    // Past the limit a new shape is counted, and its entry kept by no one.
    if (this.#entries.size >= this.#limit) this.unrecorded++
    else this.#entries.set(key, entry)
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

export { UsageFileError } from './check.ts'

/** How a command took the file, for its messages: the flag it came with (`--usage`), if any. */
export interface ReadOptions {
  flag?: string
}

/**
 * Reads and checks a usage file, the one reader of `upgrade`, `verify --usage`, `coverage` and
 * `usage merge`: refused (a UsageFileError naming the file, the interaction from 1 and the JSON
 * pointer, or the limit passed) when it is larger than a usage file may be (before it is read
 * whole), not JSON, or not what the published schema (spec/usage.schema.json) describes, its
 * bounds included (src/usage-file/limits.ts).
 */
export function readUsageFile(path: string, options: ReadOptions = {}): UsageFile {
  const label = options.flag === undefined ? path : `${options.flag} ${path}`
  const parsed = parseJsonText(readUsageText(path, label))
  if ('error' in parsed) throw new UsageFileError(`${label}: not JSON (${describeJsonSyntaxError(parsed.error)})`)
  checkUsageJson(parsed.value, label)
  return parsed.value as UsageFile
}

/** Joins usage files (of parallel test files or CI shards) into one: counts added, shapes joined. */
export function mergeUsage(files: readonly UsageFile[]): UsageFile {
  const accumulator = new UsageAccumulator()
  for (const file of files) accumulator.addFile(file)
  return accumulator.file()
}
