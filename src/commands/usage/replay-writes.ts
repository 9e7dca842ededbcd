import { createOwnMaster, identityFieldFor, linkFieldsOf } from '../../../contracts/support.ts'
import { newKeyIds, saveAndClaim, type SentFields } from '../../../contracts/ownership.ts'
import { readById } from '../../../contracts/reads.ts'
import { SYSTEM_FIELDS } from '../../../contracts/facts.ts'
import type { ContractContext } from '../../../contracts/types.ts'
import { rowVersion, type ReadRow, type SaveRequest } from '../../client/client.ts'
import { successfulAnswer, type Interaction } from '../../usage-file/file.ts'
import type { RowKind } from '../../usage-file/request-shape.ts'
import { typesOf, type Shape } from '../../usage-file/shape.ts'

/**
 * Saves and deletes of a usage file, replayed with `--allow-writes` only, on rows verify creates
 * itself and removes again at the end of the run (the contracts' cleanup): the rows carry the
 * fields the client sent, with values copied from the installation's own rows.
 */
export type Fail = (ok: boolean, what: string) => boolean

export interface WriteReplay {
  ctx: ContractContext
  interaction: Interaction
  fail: Fail
  relationKey(recorded: string): string
  /** Problems of an answer against the shape the client received. */
  shapeProblems(recorded: Shape, value: unknown): string[]
}

/** The Identity field of a table and the value a replayed create sends in it when the client sent one. */
interface Identity {
  field: string
  /** A value no row of the table holds (see freeIdentity). */
  value: number
}

/**
 * A value of a table's Identity field that no row holds: one above the largest, read from the
 * target as the table is now. A replayed create that copied the value the client sent, or a row's,
 * would meet a duplicate key (the description, Errors, 3): a replay artefact, not a fault of the
 * installation. Nothing is reserved: Get Identities reserves values no cleanup can give back.
 */
async function freeIdentity(ctx: ContractContext, field: string, relationKey: string | null): Promise<number> {
  const [top] = await ctx.client.rows({ top: 1, orderBy: `${field} desc`, ...(relationKey === null ? {} : { relationKey }) })
  const value = top?.[field]
  return typeof value === 'number' && Number.isSafeInteger(value) ? value + 1 : 1
}

/**
 * The recorded fields of a kind of row, with values from a row of the installation; fields the
 * client sent as null stay null. The Identity field, when the client sent a value in it, gets one
 * no row holds; when some of its requests left it out, it is left out.
 */
function valuesFor(kind: RowKind, template: ReadRow, skip: readonly string[], fail: Fail, table: string, identity?: Identity): SentFields {
  const values: SentFields = {}
  for (const [name, type] of Object.entries(kind.fields)) {
    if (name === 'Id' || name === 'TIMESTAMP' || skip.includes(name)) continue
    if (identity !== undefined && name === identity.field && type !== 'null') {
      const types = typesOf(type)
      if (types.includes('absent')) continue
      values[name] = types.includes('null') ? null : identity.value
      continue
    }
    if (type === 'null') {
      // The Identity field on creation, or a field the client empties: null, as it sent it.
      if (name in template) values[name] = null
      continue
    }
    if (!fail(name in template, `the installation's ${table} rows have no field ${name}, which the client saves`)) continue
    const value = template[name]
    values[name] = value === undefined || typeof value === 'object' ? null : (value as string | number | boolean)
  }
  return values
}

/** The Identity field of a table and a free value for it, when a kind of row the client creates sends one (not null). */
async function identityOf(ctx: ContractContext, kind: RowKind, rows: readonly ReadRow[], relationKey: string | null): Promise<Identity | undefined> {
  const field = identityFieldFor(ctx, rows, relationKey ?? 'master')
  const type = field === undefined ? undefined : kind.fields[field]
  if (field === undefined || type === undefined || type === 'null') return undefined
  return { field, value: await freeIdentity(ctx, field, relationKey) }
}

function checkResult(replay: WriteReplay, ok: boolean, result: unknown, what: string): boolean {
  const { ctx, fail } = replay
  if (!fail(ok, `the installation does not ${what} (${ctx.show((result as { ReturnStates?: unknown } | null)?.ReturnStates ?? result)})`)) return false
  const recorded = successfulAnswer(replay.interaction)
  if (recorded?.body !== undefined) for (const line of replay.shapeProblems(recorded.body, result)) fail(false, line)
  return true
}

/** A Save interaction: new master rows with their new detail rows, and updates of master rows. */
export async function replaySave(replay: WriteReplay): Promise<void> {
  const { ctx, interaction, fail } = replay
  const kinds = interaction.request.rows ?? []
  const masters = await ctx.facts.masters(ctx.client)
  const [template] = masters
  if (template === undefined) return ctx.skip('the application has no master row to copy values from')
  if (kinds.some((kind) => kind.table !== null && kind.action === 'update')) ctx.note('updates of detail rows are not replayed')
  const create = kinds.find((kind) => kind.table === null && kind.action === 'create')
  let own: { id: number; version: number } | undefined
  if (create !== undefined) {
    const fields = valuesFor(create, template, [], fail, 'master', await identityOf(ctx, create, masters, null))
    const details: SaveRequest['Rows'][number]['Details'] = []
    for (const kind of kinds.filter((k) => k.table !== null && k.action === 'create')) {
      const relationKey = replay.relationKey(kind.table as string)
      const sample = await ctx.client.rows({ top: 20, relationKey })
      const [detail] = sample
      if (detail === undefined) return ctx.skip(`the installation has no ${relationKey} row to copy values from`)
      // Fields that point at the master are the service's to fill for a new master's rows.
      const links = linkFieldsOf(sample, masters)
      details.push({
        RelationKey: relationKey,
        Rows: [{ Id: -1, TIMESTAMP: null, ...valuesFor(kind, detail, links, fail, relationKey, await identityOf(ctx, kind, sample, relationKey)) }],
      })
    }
    const body: SaveRequest = { Rows: [{ Row: { Id: -1, TIMESTAMP: null, ...fields }, Details: details }] }
    const { outcome, reported } = await saveAndClaim(ctx, {
      relationKey: null,
      count: 1,
      fields,
      save: () => ctx.client.save(body),
      reported: (result) => newKeyIds(result, '-1'),
    })
    if (!checkResult(replay, outcome.ok, outcome.result, 'save the new rows')) return
    const [row] = reported
    if (row === undefined) return void fail(false, 'the save names no Id for the new master row (ReturnData.PrimaryKeyData)')
    own = { id: Number(row.Id), version: rowVersion(String(row.TIMESTAMP)) }
    // The new detail rows go at the end too, before their master.
    for (const { RelationKey } of details) {
      const rows = await ctx.client.rows({ top: 50, relationKey: RelationKey, orderBy: 'Id desc' })
      for (const detail of rows.filter((r) =>
        Object.entries(r).some(([name, value]) => !SYSTEM_FIELDS.has(name) && value === own?.id && /master|parent/i.test(name)),
      ))
        ctx.cleanup.add({ relationKey: RelationKey, id: Number(detail.Id) })
    }
  }
  const update = kinds.find((kind) => kind.table === null && kind.action === 'update')
  if (update === undefined) return
  if (own === undefined) {
    const created = await createOwnMaster(ctx)
    own = { id: created.id, version: created.version }
  } else {
    const read = await readById(ctx.client, own.id)
    if (read === undefined) return void fail(false, `the new master row ${own.id} cannot be read back`)
    own.version = rowVersion(String(read.TIMESTAMP))
  }
  const current = await readById(ctx.client, own.id)
  if (current === undefined) return void fail(false, `row ${own.id} cannot be read back to update it`)
  // The fields the client updates, written back with the row's own values: the shape is what counts.
  const values = valuesFor(update, current, [], fail, 'master')
  const saved = await ctx.client.save({ Rows: [{ Row: { Id: own.id, TIMESTAMP: own.version, ...values }, Details: [] }] })
  checkResult(replay, saved.ok, saved.result, 'save an update with the row version read last')
}

/** A Delete interaction of master rows: a row verify creates, deleted in the client's body form. */
export async function replayDelete(replay: WriteReplay): Promise<void> {
  const { ctx, interaction } = replay
  const shape = interaction.request.delete
  if (shape === undefined || !shape.tables.includes(null)) ctx.skip('deletes of detail rows alone are not replayed')
  const own = await createOwnMaster(ctx)
  const outcome = await ctx.client.delete([{ relationKey: null, rows: [{ Id: own.id, TIMESTAMP: own.version }] }])
  if (checkResult(replay, outcome.ok, outcome.result, 'delete the row')) ctx.cleanup.done({ relationKey: null, id: own.id })
}
