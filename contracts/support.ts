import { rowVersion, successOf, type Answer, type Client, type ReadRow } from '../src/client/client.ts'
import { userFields } from './facts.ts'
import { linksTo, newKeyIds, saveAndClaim } from './ownership.ts'
import { readById } from './reads.ts'
import type { ContractContext } from './types.ts'

export { shown } from './show.ts'
export { readById } from './reads.ts'

/**
 * Whether an answer refuses the call. The description defines no error status (Errors, 4), so a
 * gateway in front of an installation that sends the caller to its sign-in page (a 3xx with a
 * Location) refuses as well as a 4xx does.
 */
export function isRefusal(answer: Answer): boolean {
  return answer.status >= 400 || (answer.status >= 300 && answer.status < 400 && (answer.headers.location ?? '') !== '')
}

export const idsOf = (rows: readonly ReadRow[]): number[] => rows.map((row) => row.Id)

/**
 * A storage's Identity field guessed from read rows: an integer field named like an id whose
 * values differ between the rows. The description names it only by example (`IdRow`, section
 * Resources), so the guess is made for the mock alone; an installation's must be given.
 */
export function identityFieldOf(rows: readonly ReadRow[]): string | undefined {
  const [first] = rows
  if (first === undefined) return undefined
  const candidates = Object.keys(first).filter(
    (name) => /id/i.test(name) && !/^(Id|USER_ID_CREATION|USER_ID_LAST_UPDATE)$/.test(name) && !/master|parent/i.test(name),
  )
  return candidates.find((name) => {
    const values = rows.map((row) => row[name])
    return values.every((v) => Number.isSafeInteger(v)) && new Set(values).size === values.length
  })
}

/**
 * The Identity field of the rows a contract writes: the one `--identity-field` names, checked to
 * be a field of those rows, or, against the mock alone, a guess. A wrong guess would copy a real
 * identity value into a new row, so against an installation a contract that needs it is skipped.
 */
export function identityFieldFor(ctx: ContractContext, rows: readonly ReadRow[], table: string): string | undefined {
  const given = ctx.target.identityField
  const [first] = rows
  if (given !== undefined) {
    if (first !== undefined && !(given in first)) ctx.skip(`the ${table} rows have no field ${given} (--identity-field), so their Identity field is not known`)
    return given
  }
  if (ctx.target.holdTo !== 'mock') ctx.skip('needs --identity-field: the Identity field is never guessed on an installation')
  return identityFieldOf(rows)
}

/** Fields of a detail row that point at other rows: named for the master or a parent, or holding master Ids. Never copied. */
export function linkFieldsOf(details: readonly ReadRow[], masters: readonly ReadRow[]): string[] {
  const [first] = details
  if (first === undefined) return []
  const masterIds = new Set(masters.map((m) => m.Id))
  return Object.keys(first).filter(
    (name) =>
      name !== 'Id' &&
      (/master|parent/i.test(name) ||
        (/(id|ref|key)$/i.test(name) && details.every((row) => Number.isSafeInteger(row[name]) && masterIds.has(row[name] as number)))),
  )
}

/** A master row this contract created, as read back. */
/** A relation key no application has (a name, as relation keys may be): what reads that name a wrong detail table send. */
export const UNKNOWN_RELATION_KEY = 'AppdataKitNoSuchDetailTable'

export interface OwnRow {
  id: number
  version: number
  row: ReadRow
  identityField: string | undefined
  /** The user fields it was created with. */
  fields: Record<string, string | number | boolean | null>
  /** The result of the save that created it. */
  createResult: unknown
}

/**
 * Creates a master row for the contract, a copy of the installation's first row's user fields
 * (so fields the application requires are filled) with a temporary Id, no version and no
 * Identity value, and reads it back through the Id `PrimaryKeyData` names for it (Resources,
 * "Save / delete result object"). Only a row that did not exist before the save is taken as its
 * own; it is removed at the end of the run.
 */
export async function createOwnMaster(ctx: ContractContext): Promise<OwnRow> {
  const masters = await ctx.facts.masters(ctx.client)
  const [template] = masters
  if (template === undefined) ctx.skip('the application has no master row to copy the fields of')
  const identityField = identityFieldFor(ctx, masters, 'master')
  const fields = userFields(template, identityField === undefined ? [] : [identityField])
  const row = { Id: -1, TIMESTAMP: null, ...(identityField === undefined ? {} : { [identityField]: null }), ...fields }
  const { outcome, reported, found } = await saveAndClaim(ctx, {
    relationKey: null,
    count: 1,
    fields: claimedBy(fields),
    save: () => ctx.client.save({ Rows: [{ Row: row, Details: [] }] }),
    reported: (result) => newKeyIds(result, '-1'),
  })
  ctx.require(outcome.ok, { expected: 'a new master row to be saved (success flag true)', received: ctx.show(outcome.result) })
  const [own] = reported
  ctx.require(own !== undefined, {
    expected: 'ReturnData.PrimaryKeyData["-1"].newKeys to name the new row\'s Id, readable with Get Items',
    received: `${ctx.show((outcome.result as { ReturnData?: unknown }).ReturnData)}${found.length > 0 ? ` (the row was found as Id ${found.map((r) => String(r.Id)).join(', ')} and is removed again)` : ''}`,
  })
  return {
    id: Number(own.Id),
    version: rowVersion(String(own.TIMESTAMP)),
    row: own,
    identityField: identityField ?? outcome.result.RowIdentifier ?? undefined,
    fields,
    createResult: outcome.result,
  }
}

/**
 * The sent fields a new row is recognised by: its texts, when it has any. A number or a flag an
 * installation stored otherwise must not keep verify from claiming (and removing) its own row;
 * the contracts that read a row back hold it to every field.
 */
export function claimedBy(fields: Record<string, string | number | boolean | null>): Record<string, string | number | boolean | null> {
  const texts = Object.fromEntries(Object.entries(fields).filter(([, value]) => typeof value === 'string' && value.trim() !== ''))
  return Object.keys(texts).length > 0 ? texts : fields
}

/** Whether a value read back is the one sent: numbers by value, texts as a case- and trailing-space-insensitive collation compares them. */
export function sameValue(sent: unknown, read: unknown): boolean {
  if (sent === null || sent === undefined) return read === null || read === undefined || read === ''
  if (typeof sent === 'number') return typeof read === 'number' && read === sent
  if (typeof sent === 'string') return typeof read === 'string' && read.trimEnd().toLowerCase() === sent.trimEnd().toLowerCase()
  return JSON.stringify(sent) === JSON.stringify(read)
}

/**
 * Adds `count` new detail rows, copies of the table's first row (without its Identity value and
 * the fields that link it to other rows), to an own master "in the same way" as an update
 * (Save, update procedure); the rows claimed for the cleanup.
 */
export async function addOwnDetails(ctx: ContractContext, own: OwnRow, count: number) {
  const relationKey = ctx.target.relationKey as string
  const details = (await ctx.facts.details(ctx.client)) ?? []
  const [template] = details
  if (template === undefined) ctx.skip('no detail row to copy the fields of')
  const identity = identityFieldFor(ctx, details, relationKey)
  // Fields that point at other rows are left out: the master a detail row is saved under links it (Save, Rows[].Details).
  const fields = userFields(template, [...(identity === undefined ? [] : [identity]), ...linkFieldsOf(details, await ctx.facts.masters(ctx.client))])
  const line = { Id: -1, TIMESTAMP: null, ...(identity === undefined ? {} : { [identity]: null }), ...fields }
  return saveAndClaim(ctx, {
    relationKey,
    count,
    fields,
    save: () =>
      ctx.client.save({
        Rows: [{ Row: { Id: own.id, TIMESTAMP: own.version }, Details: [{ RelationKey: relationKey, Rows: Array.from({ length: count }, () => line) }] }],
      }),
    reported: (result) => newKeyIds(result),
    belongs: linksTo(own.id),
  })
}

/**
 * An own row whose one user field is updated to a value another row of the application holds
 * (a value the application takes), the update sending only that field with Id and TIMESTAMP
 * (Save, update procedure): the row before and after.
 */
export async function updateOneField(ctx: ContractContext): Promise<{ own: OwnRow; field: string; value: string | number; before: ReadRow; after: ReadRow }> {
  const own = await createOwnMaster(ctx)
  const masters = await ctx.facts.masters(ctx.client)
  const candidates = Object.entries(own.fields)
    .filter(([_name, value]) => typeof value === 'string' || typeof value === 'number')
    .map(([name]) => name)
  // A text first: its change is the easiest to see; then a number.
  const ordered = [...candidates.filter((name) => typeof own.fields[name] === 'string'), ...candidates.filter((name) => typeof own.fields[name] === 'number')]
  let change: { field: string; value: string | number } | undefined
  for (const field of ordered) {
    const other = masters
      .map((row) => row[field])
      .find((value) => (typeof value === 'string' || typeof value === 'number') && !sameValue(own.fields[field], value))
    if (other !== undefined) {
      change = { field, value: other as string | number }
      break
    }
  }
  if (change === undefined) ctx.skip('no user field of the first rows holds two different values, so no update could show a change')
  const updated = await updateMaster(ctx.client, own.id, own.version, { [change.field]: change.value })
  ctx.require(updated.ok, { expected: `an update of ${change.field} alone (with Id and TIMESTAMP) to be saved`, received: ctx.show(updated.result) })
  const after = await readById(ctx.client, own.id)
  ctx.require(after !== undefined, { expected: `row ${own.id} to be readable after its update`, received: 'no row' })
  return { own, ...change, before: own.row, after }
}

/** An own row updated once: its current row, and the version it had before, now stale. */
export async function ownRowWithStaleVersion(ctx: ContractContext): Promise<{ own: OwnRow; stale: number; current: ReadRow }> {
  const own = await createOwnMaster(ctx)
  const updated = await updateMaster(ctx.client, own.id, own.version, fieldToRewrite(own))
  ctx.require(updated.ok, { expected: 'an update with the TIMESTAMP read last to be saved', received: ctx.show(updated.result) })
  const current = await readById(ctx.client, own.id)
  ctx.require(current !== undefined, { expected: `row ${own.id} to be readable after its update`, received: 'no row' })
  return { own, stale: own.version, current }
}

/** Saves one change of a master row; the outcome's flag and result. */
export async function updateMaster(client: Client, id: number, version: number, fields: Record<string, unknown>) {
  const saved = await client.save({
    Rows: [{ Row: { Id: id, TIMESTAMP: version, ...(fields as Record<string, string | number | boolean | null>) }, Details: [] }],
  })
  return { ok: saved.ok && successOf(saved.result) === true, result: saved.result }
}

/** A user field of a row to write back in an update: the first text field, else any user field. */
export function fieldToRewrite(own: OwnRow): Record<string, string | number | boolean | null> {
  const entries = Object.entries(own.fields)
  const [name, value] = entries.find(([, v]) => typeof v === 'string') ?? entries[0] ?? []
  return name === undefined ? {} : { [name]: value ?? null }
}
