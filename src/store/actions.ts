import { dateTimeIn } from './model/data-types.ts'
import { Plan } from './plan.ts'
import { LockedRows } from './refusals.ts'
import { ownValue, setOwn } from './model/field-values.ts'
import type { StoreState } from './state.ts'
import type { ActionCommand, ActionOutcome, Deps, Row, StoreChanges, StoreError } from './model/types.ts'

/**
 * Runs a custom action (the description, Run Action) as the fixture describes it. An action that succeeds
 * and has an `effect` changes master rows the way its stored procedure would: it sets the
 * effect's fields on the master rows whose Ids the client passes, comma-separated, in the
 * parameter the effect names (`Ids=1,2,3`). Ids that are not numbers or not rows are skipped,
 * as an UPDATE ... WHERE Id IN (...) would. Changed rows get a new TIMESTAMP, DT_LAST_UPDATE
 * and USER_ID_LAST_UPDATE like any update. An action reporting failure changes nothing. Changes
 * nothing itself: the store applies `changes` (through the one place every committed write passes).
 *
 * A locked row (locks.ts) is written by nothing, an action's effect included: when the effect would
 * change a locked master row, the action changes no row at all and answers `isSuccessful: false`
 * with a message naming the locked rows (the mock's choice: the description is silent, and a
 * procedure that meets a row another user holds fails as a whole, as the fixture's failing action
 * does, rather than skipping the row unseen).
 */
export function planAction(
  state: StoreState,
  cmd: ActionCommand,
  deps: Deps,
): { outcome: ActionOutcome; changes?: StoreChanges } | StoreError<'UNKNOWN_APPLICATION' | 'UNKNOWN_ACTION'> {
  const app = state.apps.get(cmd.applicationId)
  if (app === undefined) return { error: 'UNKNOWN_APPLICATION', message: `application ${cmd.applicationId} does not exist` }
  const action = state.fixture.actions.find((a) => a.id === cmd.actionId)
  if (action === undefined || (action.applicationId !== undefined && action.applicationId !== cmd.applicationId)) {
    return { error: 'UNKNOWN_ACTION', message: `custom action ${cmd.actionId} does not exist in application ${app.def.name}` }
  }
  const outcome: ActionOutcome = {
    message: action.message,
    isSuccessful: action.isSuccessful,
    result: action.result,
    isAsync: action.isAsync,
    changedIds: [],
  }
  const effect = action.effect
  if (!action.isSuccessful || effect === undefined) return { outcome }
  const text = cmd.parameters.find((p) => p.key === effect.rowsFromParameter)?.value ?? ''
  const ids = [...new Set(text.split(',').map((part) => Number(part.trim())))].filter((id) => Number.isSafeInteger(id) && id > 0)
  const locks = new LockedRows(state.locks, cmd.applicationId)
  const locked = ids.filter((id) => app.master.get(id) !== undefined && locks.has(null, id))
  if (locked.length > 0) {
    const storage = app.master.storage
    const named = locked.map((id) => {
      const identity = ownValue(app.master.get(id) ?? {}, storage.identityField)
      return typeof identity === 'number' ? `${id} (${storage.identityField} ${identity})` : String(id)
    })
    const rows = `${locked.length === 1 ? 'Row' : 'Rows'} ${named.join(', ')} of ${storage.name} ${locked.length === 1 ? 'is' : 'are'} locked by another user`
    return { outcome: { ...outcome, message: `${rows}; ${action.procedureName} changed nothing.`, isSuccessful: false, result: '' } }
  }
  const plan = new Plan(state)
  const masters = plan.of(app.master)
  const now = dateTimeIn(deps.now(), state.fixture.organization.timeZone)
  for (const id of ids) {
    const current = app.master.get(id)
    if (current === undefined) continue
    const next: Row = { ...current }
    for (const [field, value] of Object.entries(effect.set)) if (app.master.fields.has(field)) setOwn(next, field, value)
    next.DT_LAST_UPDATE = now
    next.USER_ID_LAST_UPDATE = cmd.userId
    next.TIMESTAMP = plan.takeVersion()
    masters.puts.set(id, app.master.makeRow(next))
    outcome.changedIds.push(id)
  }
  return { outcome, changes: plan.changes() }
}
