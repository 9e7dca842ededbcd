import { ApiError, type Client, type ReadRow, type WriteOutcome } from '../src/client/client.ts'
import { SYSTEM_FIELDS } from './facts.ts'
import { Interrupted } from './halt.ts'
import { highestId, newestRows, readById } from './reads.ts'
import type { ContractContext } from './types.ts'

/** Field values a save sent for new rows. */
export type SentFields = Record<string, string | number | boolean | null>

/** What a save that creates rows is, for `saveAndClaim`. */
export interface Creation<R> {
  /** The table: null for master rows, the Detail Relation Key for detail rows. */
  relationKey: string | null
  /** How many rows the save creates; never more are claimed. */
  count: number
  fields: SentFields
  save(): Promise<WriteOutcome<R>>
  /** The Ids the save's result names for the new rows, most likely first. */
  reported(result: R): number[]
  /** Whether a read row can be one of the new rows besides its fields (a detail row under the right master). */
  belongs?(row: ReadRow): boolean
}

/** The rows a save created, as read back: those its result named, and those found otherwise. */
export interface Claimed<R> {
  outcome: WriteOutcome<R>
  reported: ReadRow[]
  found: ReadRow[]
}

const comparable = (value: unknown): unknown => (typeof value === 'string' ? value.trim().toLowerCase() : typeof value === 'number' ? value : value)

/** Whether a read row holds the values sent (texts compared as a case- and trailing-space-insensitive collation does). */
export function matchesSent(row: ReadRow, fields: SentFields): boolean {
  return Object.entries(fields).every(([name, sent]) => {
    if (sent === null || !(name in row)) return true
    const read = row[name]
    return typeof sent === 'number' ? Number(read) === sent : comparable(read) === comparable(sent)
  })
}

/** Every whole-number value of a save result's `PrimaryKeyData` entries (or of the one named), `Id` entries first. */
export function newKeyIds(result: unknown, entry?: string): number[] {
  const data = (result as { ReturnData?: { PrimaryKeyData?: Record<string, { newKeys?: Record<string, unknown> } | undefined> } } | null)?.ReturnData
    ?.PrimaryKeyData
  if (data === undefined || data === null || typeof data !== 'object') return []
  const entries = entry === undefined ? Object.values(data) : [data[entry]]
  const keys = entries.flatMap((value) => Object.entries(value?.newKeys ?? {}))
  const ordered = [...keys.filter(([name]) => name === 'Id'), ...keys.filter(([name]) => name !== 'Id')]
  return [...new Set(ordered.map(([, value]) => Number(value)).filter((id) => Number.isSafeInteger(id) && id > 0))]
}

/** A row that is no system field's and holds the master's Id: the detail rows under that master. */
export function linksTo(masterId: number): (row: ReadRow) => boolean {
  return (row) => Object.entries(row).some(([name, value]) => !SYSTEM_FIELDS.has(name) && value !== null && value !== '' && Number(value) === masterId)
}

/**
 * Sends a save that creates rows and claims exactly the rows it created, to remove them at the
 * end of the run: the Ids its result names, else rows that did not exist before it (above the
 * highest Id read just before) holding the values sent, never more than it created. A row that
 * existed before the save is never claimed, so a guess can never remove someone else's row.
 * Rows created but not found (no keys in the answer, no answer, not readable) are reported
 * in the cleanup as created with their Id unknown.
 */
export async function saveAndClaim<R>(ctx: ContractContext, creation: Creation<R>): Promise<Claimed<R>> {
  const above = await highestId(ctx.client, creation.relationKey)
  const claimed = { reported: [] as ReadRow[], found: [] as ReadRow[] }
  // Listed as perhaps created if the run quits before the rows are claimed (a second Ctrl-C).
  const settled = ctx.cleanup.underway(creation.relationKey, creation.count)
  try {
    let outcome: WriteOutcome<R>
    try {
      outcome = await creation.save()
    } catch (error) {
      // A refusal (4xx) created nothing, nor did a save an interrupt kept from being sent; without an answer, or with a server error, rows may have been created all the same.
      if (!(error instanceof ApiError && error.status < 500) && !(error instanceof Interrupted))
        await settle(ctx, creation, above, claimed, undefined, `the save got no answer (${(error as Error).message})`)
      throw error
    }
    if (outcome.ok)
      await settle(
        ctx,
        creation,
        above,
        claimed,
        outcome.result,
        'the save named no Id of it, and no row above the highest Id before the save holds the values sent',
      )
    return { outcome, ...claimed }
  } finally {
    settled()
  }
}

/** Claims the rows a save named, then rows found above `above`; leaves what stays unfound to the cleanup's last search. */
async function settle<R>(
  ctx: ContractContext,
  creation: Creation<R>,
  above: number,
  claimed: { reported: ReadRow[]; found: ReadRow[] },
  result: R | undefined,
  unfound: string,
): Promise<void> {
  const { relationKey, count, fields } = creation
  const total = () => claimed.reported.length + claimed.found.length
  const fits = (row: ReadRow | undefined): row is ReadRow =>
    row !== undefined &&
    Number(row.Id) > above &&
    !ctx.cleanup.has({ relationKey, id: Number(row.Id) }) &&
    matchesSent(row, fields) &&
    (creation.belongs?.(row) ?? true)
  const claim = (row: ReadRow, into: ReadRow[]) => {
    ctx.cleanup.add({ relationKey, id: Number(row.Id) })
    into.push(row)
  }
  // Newer rows of others may come between; a page of them is looked at, no more.
  const search = async (client: Client, wanted: number) => (await newestRows(client, relationKey, Math.max(50, count * 5))).filter(fits).slice(0, wanted)
  let why = unfound
  try {
    for (const id of result === undefined ? [] : creation.reported(result).filter((id) => id > above)) {
      if (total() === count) break
      const row = await readById(ctx.client, id, relationKey)
      if (fits(row)) claim(row, claimed.reported)
    }
    if (total() < count) for (const row of await search(ctx.client, count - total())) claim(row, claimed.found)
  } catch (error) {
    why = `the new rows could not be read back (${(error as Error).message})`
  }
  const missing = count - total()
  // The cleanup looks once more, also when the run was interrupted before the rows could be read back.
  if (missing > 0) ctx.cleanup.addUnknown(relationKey, missing, why, async (client) => (await search(client, missing)).map((row) => Number(row.Id)))
}
