import { rowVersion, successOf, type Client, type ReadRow } from '../src/client/client.ts'
import { userFields } from './facts.ts'
import type { ContractContext } from './types.ts'

/** A value as a failure shows it: JSON, cut to a readable length. */
export function shown(value: unknown, max = 300): string {
  const text = typeof value === 'string' ? JSON.stringify(value) : (JSON.stringify(value) ?? String(value))
  return text.length > max ? `${text.slice(0, max)}...` : text
}

export const idsOf = (rows: readonly ReadRow[]): number[] => rows.map((row) => row.Id)

/**
 * The storage's Identity field among a read row's fields: the one the flag names, else the field
 * that looks like one (an integer field named like an id whose values differ between the rows).
 * The description names it only by example (`IdRow`); a save result's `RowIdentifier` confirms it.
 */
export function identityFieldOf(rows: readonly ReadRow[], given: string | undefined): string | undefined {
  if (given !== undefined) return given
  const [first] = rows
  if (first === undefined) return undefined
  const candidates = Object.keys(first).filter((name) => /id/i.test(name) && !/^(Id|USER_ID_CREATION|USER_ID_LAST_UPDATE)$/.test(name) && !/master|parent/i.test(name))
  return candidates.find((name) => {
    const values = rows.map((row) => row[name])
    return values.every((v) => Number.isSafeInteger(v)) && new Set(values).size === values.length
  })
}

/** The detail field that holds the master's Id: integer, named for the master, with values that are master Ids. */
export function masterLinkFieldOf(details: readonly ReadRow[], masters: readonly ReadRow[]): string | undefined {
  const [first] = details
  if (first === undefined) return undefined
  const masterIds = new Set(masters.map((m) => m.Id))
  const named = Object.keys(first).filter((name) => /master|parent/i.test(name))
  return named.find((name) => details.every((row) => Number.isSafeInteger(row[name])) && details.some((row) => masterIds.has(Number(row[name]))))
}

/** One row by its Id (of a detail table with `relationKey`), or undefined when there is none. */
export async function readById(client: Client, id: number, relationKey?: string | null): Promise<ReadRow | undefined> {
  // The value quoted, in the form the description shows (`<field> <operator> '<value>'`).
  const rows = await client.rows({ filter: `Id eq '${id}'`, ...(relationKey === undefined || relationKey === null ? {} : { relationKey }) })
  return rows.find((row) => row.Id === id)
}

/** A master row this contract created, as read back. */
export interface OwnRow {
  id: number
  version: number
  row: ReadRow
  identityField: string | undefined
  /** The user fields it was created with. */
  fields: Record<string, string | number | boolean | null>
}

/**
 * Creates a master row for the contract, a copy of the installation's first row's user fields
 * (so fields the application requires are filled) with a temporary Id, no version and no
 * Identity value, reads it back through one of the Ids `PrimaryKeyData` names, and registers it
 * for removal at the end of the run.
 */
export async function createOwnMaster(ctx: ContractContext): Promise<OwnRow> {
  const masters = await ctx.facts.masters(ctx.client)
  const [template] = masters
  if (template === undefined) ctx.skip('the application has no master row to copy the fields of')
  const identityField = identityFieldOf(masters, ctx.target.identityField)
  const fields = userFields(template, identityField === undefined ? [] : [identityField])
  const row = { Id: -1, TIMESTAMP: null, ...(identityField === undefined ? {} : { [identityField]: null }), ...fields }
  const saved = await ctx.client.save({ Rows: [{ Row: row, Details: [] }] })
  ctx.require(saved.ok, { expected: 'a new master row to be saved (success flag true)', received: shown(saved.result) })
  const keys = (saved.result.ReturnData as { PrimaryKeyData?: Record<string, { newKeys?: Record<string, string> }> } | undefined)?.PrimaryKeyData?.['-1']?.newKeys
  ctx.require(keys !== undefined, { expected: 'ReturnData.PrimaryKeyData["-1"].newKeys for the row sent with Id -1', received: shown(saved.result.ReturnData) })
  for (const value of Object.values(keys)) {
    const id = Number(value)
    if (!Number.isSafeInteger(id) || id <= 0) continue
    const found = await readById(ctx.client, id)
    if (found === undefined || Object.entries(fields).some(([name, v]) => typeof v === 'string' && found[name] !== v)) continue
    ctx.cleanup.add({ relationKey: null, id })
    return { id, version: rowVersion(found.TIMESTAMP), row: found, identityField: identityField ?? (saved.result.RowIdentifier ?? undefined), fields }
  }
  ctx.require(false, { expected: 'one of the newKeys values to be the new row\'s Id, readable with Get Items', received: shown(keys) })
}

/** An own row updated once: its current row, and the version it had before, now stale. */
export async function ownRowWithStaleVersion(ctx: ContractContext): Promise<{ own: OwnRow; stale: number; current: ReadRow }> {
  const own = await createOwnMaster(ctx)
  const updated = await updateMaster(ctx.client, own.id, own.version, fieldToRewrite(own))
  ctx.require(updated.ok, { expected: 'an update with the TIMESTAMP read last to be saved', received: shown(updated.result) })
  const current = await readById(ctx.client, own.id)
  ctx.require(current !== undefined, { expected: `row ${own.id} to be readable after its update`, received: 'no row' })
  return { own, stale: own.version, current }
}

/** Saves one change of a master row; the outcome's flag and result. */
export async function updateMaster(client: Client, id: number, version: number, fields: Record<string, unknown>) {
  const saved = await client.save({ Rows: [{ Row: { Id: id, TIMESTAMP: version, ...(fields as Record<string, string | number | boolean | null>) }, Details: [] }] })
  return { ok: saved.ok && successOf(saved.result) === true, result: saved.result }
}

/** A user field of a row to write back in an update: the first text field, else any user field. */
export function fieldToRewrite(own: OwnRow): Record<string, string | number | boolean | null> {
  const entries = Object.entries(own.fields)
  const [name, value] = entries.find(([, v]) => typeof v === 'string') ?? entries[0] ?? []
  return name === undefined ? {} : { [name]: value ?? null }
}
