import { planDelete } from './delete.ts'
import { planSave } from './save.ts'
import { PrimaryKeys } from './model/primary-keys.ts'
import type { StoreState } from './state.ts'
import type { DeleteCommand, DeleteResult, Deps, ReturnState, SaveCommand, SaveResult, StoreChanges, WriteOutcome } from './model/types.ts'

/** Writes one row's planned changes: the store's commit, so each row is logged and applied as one write. */
export type ApplyChanges = (changes: StoreChanges) => void

/**
 * The per-row save mode (an application's `saveMode: "per-row"`; the product's user guide, Save
 * rows): each master row with its details is saved in an operation of its own, so rows without
 * problems are written (temporary Ids remapped as in one operation) and failing rows are reported,
 * one `ReturnState` per problem naming the row's Id and table. The result counts what was
 * written; `ok` (IsSaveSuccessfully) is true only when every row was saved, the mock's choice.
 */
export function saveRowByRow(state: StoreState, cmd: SaveCommand, deps: Deps, apply: ApplyChanges): WriteOutcome<SaveResult> {
  let written: SaveResult | undefined
  const problems: ReturnState[] = []
  const tempIds = new Set<number>()
  for (const master of cmd.masters) {
    // PrimaryKeyData is keyed by the temporary Id, so a second master with the same one fails on its own.
    const tempId = master.row.Id
    if (Number.isSafeInteger(tempId) && tempId < 0 && tempIds.has(tempId)) {
      problems.push({
        code: 'DUPLICATE_TEMPORARY_ID',
        message: `temporary Id ${tempId} is used twice among the masters of this request`,
        relationKey: null,
        id: tempId,
        field: 'Id',
      })
      continue
    }
    tempIds.add(tempId)
    const outcome = planSave(state, { ...cmd, masters: [master] }, deps)
    if (!outcome.ok) {
      problems.push(...outcome.returnStates)
      continue
    }
    apply(outcome.changes)
    const { result } = outcome
    written =
      written === undefined
        ? result
        : {
            ...written,
            created: written.created + result.created,
            updated: written.updated + result.updated,
            primaryKeys: written.primaryKeys.merged(result.primaryKeys),
            firstMasterId: written.firstMasterId ?? result.firstMasterId,
          }
  }
  if (problems.length === 0 && written !== undefined) return { ok: true, result: written }
  if (problems.length === 0) return { ok: true, result: emptySave(state, cmd) }
  return written === undefined ? { ok: false, returnStates: problems } : { ok: false, returnStates: problems, written }
}

/** Deletes in the per-row mode: each row named (with its cascaded details) on its own. */
export function deleteRowByRow(state: StoreState, cmd: DeleteCommand, apply: ApplyChanges): WriteOutcome<DeleteResult> {
  const written: DeleteResult = { deleted: 0, cascaded: 0 }
  const problems: ReturnState[] = []
  for (const group of cmd.groups) {
    for (const row of group.rows) {
      const outcome = planDelete(state, { ...cmd, groups: [{ relationKey: group.relationKey, rows: [row] }] })
      if (!outcome.ok) {
        problems.push(...outcome.returnStates)
        continue
      }
      apply(outcome.changes)
      written.deleted += outcome.result.deleted
      written.cascaded += outcome.result.cascaded
    }
  }
  if (problems.length === 0) return { ok: true, result: written }
  return { ok: false, returnStates: problems, written }
}

function emptySave(state: StoreState, cmd: SaveCommand): SaveResult {
  const master = state.apps.get(cmd.applicationId)?.def.master
  return {
    created: 0,
    updated: 0,
    primaryKeys: new PrimaryKeys(),
    identityField: master?.identityField ?? '',
    storageName: master?.name ?? '',
    firstMasterId: null,
  }
}
