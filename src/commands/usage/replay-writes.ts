import { createOwnMaster, identityFieldFor, linkFieldsOf } from '../../../contracts/support.ts'
import { newKeyIds, saveAndClaim, type SentFields } from '../../../contracts/ownership.ts'
import { SYSTEM_FIELDS } from '../../../contracts/facts.ts'
import type { ContractContext } from '../../../contracts/types.ts'
import type { SaveRequest } from '../../client/client.ts'
import { successfulAnswer, type Interaction } from '../../usage-file/file.ts'
import type { Shape } from '../../usage-file/shape.ts'
import { saveBody, Skip, type RowSource } from './replay-rows.ts'

/**
 * Saves and deletes of a usage file, replayed with `--allow-writes` only, on rows verify creates
 * itself and removes again at the end of the run (the contracts' cleanup): the rows carry the
 * fields the client sent, with values copied from the installation's own rows (replay-rows.ts, the
 * save bodies `upgrade` replays too).
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

/**
 * The installation as the rows of a replayed save see it (replay-rows.ts): rows read by the run's
 * client, the Identity field as the contracts know it (--identity-field), links to the master as
 * the contracts tell them; a field the client saves that the installation's rows lack is a finding.
 */
function rowSource(replay: WriteReplay): RowSource {
  const { ctx, fail } = replay
  return {
    rows: (relationKey, options) => ctx.client.rows({ ...options, ...(relationKey === null ? {} : { relationKey }) }),
    identityField: (relationKey, rows) => identityFieldFor(ctx, rows, relationKey ?? 'master'),
    linkFields: (_relationKey, rows, masters) => linkFieldsOf(rows, masters),
    missing: (relationKey, name, _type, template) => {
      const table = relationKey ?? 'master'
      if (template === undefined) return ctx.skip(`the installation has no ${table} row to copy values from`)
      // A field the row holds as null (or as more than a value) is sent as null.
      return fail(name in template, `the installation's ${table} rows have no field ${name}, which the client saves`) ? null : undefined
    },
  }
}

function checkResult(replay: WriteReplay, ok: boolean, result: unknown, what: string): boolean {
  const { ctx, fail } = replay
  if (!fail(ok, `the installation does not ${what} (${ctx.show((result as { ReturnStates?: unknown } | null)?.ReturnStates ?? result)})`)) return false
  const recorded = successfulAnswer(replay.interaction)
  if (recorded?.body !== undefined) for (const line of replay.shapeProblems(recorded.body, result)) fail(false, line)
  return true
}

/**
 * A Save interaction: new master rows with their new detail rows, then an update of a master row
 * this run created (replay-rows.ts builds both bodies). Detail rows the client updated are not
 * replayed: only rows this run creates are written.
 */
export async function replaySave(replay: WriteReplay): Promise<void> {
  const { ctx, interaction, fail } = replay
  const source = rowSource(replay)
  // The tables as the installation names them.
  const kinds = (interaction.request.rows ?? []).map((kind) => (kind.table === null ? kind : { ...kind, table: replay.relationKey(kind.table) }))
  if (kinds.some((kind) => kind.table !== null && kind.action === 'update')) ctx.note('updates of detail rows are not replayed')
  let own: number | undefined
  if (kinds.some((kind) => kind.table === null && kind.action === 'create')) {
    const body = await saveBody(
      source,
      kinds.filter((kind) => kind.action === 'create'),
    )
    if (body instanceof Skip) return ctx.skip(body.reason)
    const [entry] = body.Rows
    const { Id: _id, TIMESTAMP: _version, ...fields } = entry?.Row ?? {}
    const { outcome, reported } = await saveAndClaim(ctx, {
      relationKey: null,
      count: 1,
      fields: fields as SentFields,
      save: () => ctx.client.save(body as SaveRequest),
      reported: (result) => newKeyIds(result, '-1'),
    })
    if (!checkResult(replay, outcome.ok, outcome.result, 'save the new rows')) return
    const [row] = reported
    if (row === undefined) return void fail(false, 'the save names no Id for the new master row (ReturnData.PrimaryKeyData)')
    own = Number(row.Id)
    // The new detail rows go at the end too, before their master.
    for (const { RelationKey } of entry?.Details ?? []) {
      const rows = await ctx.client.rows({ top: 50, relationKey: RelationKey, orderBy: 'Id desc' })
      for (const detail of rows.filter((r) =>
        Object.entries(r).some(([name, value]) => !SYSTEM_FIELDS.has(name) && value === own && /master|parent/i.test(name)),
      ))
        ctx.cleanup.add({ relationKey: RelationKey, id: Number(detail.Id) })
    }
  }
  const update = kinds.find((kind) => kind.table === null && kind.action === 'update')
  if (update === undefined) return
  own ??= (await createOwnMaster(ctx)).id
  // The fields the client updates, written back with the row's own values and the version read last: the shape is what counts.
  const body = await saveBody(source, [update], own)
  if (body instanceof Skip) return void fail(false, body.reason)
  const saved = await ctx.client.save(body as SaveRequest)
  checkResult(replay, saved.ok, saved.result, 'save an update with the row version read last')
}

/** A Delete interaction of master rows: a row verify creates, deleted in the client's body form. */
export async function replayDelete(replay: WriteReplay): Promise<void> {
  const { ctx, interaction } = replay
  const shape = interaction.request.delete
  if (shape === undefined || !shape.tables.includes(null)) return ctx.skip('deletes of detail rows alone are not replayed')
  const own = await createOwnMaster(ctx)
  // In the form the client sent, whichever the installation's release shows: the client relies on it being taken.
  const outcome = await ctx.client.delete([{ relationKey: null, rows: [{ Id: own.id, TIMESTAMP: own.version }] }], shape.form)
  if (checkResult(replay, outcome.ok, outcome.result, 'delete the row')) ctx.cleanup.done({ relationKey: null, id: own.id })
}
