import { relationKeyOf } from './guid.ts'
import { describeValue } from './model/field-values.ts'
import { Plan, type TablePlan } from './plan.ts'
import { LockedRows, nameRow } from './refusals.ts'
import type { AppTables, StoreState } from './state.ts'
import type { DeleteCommand, DeleteOutcome, ReturnState } from './model/types.ts'

/**
 * Checks a whole delete and decides every removal, changing nothing.
 *
 * - Each row must exist (NOT_FOUND) with the TIMESTAMP sent (CONCURRENCY). A null TIMESTAMP,
 *   which the description allows in delete requests, matches no row version: CONCURRENCY too.
 * - A row named twice in one request is DUPLICATE_ROW: the second sight would delete a row the
 *   first has already removed.
 * - Deleting a master deletes its detail rows too, in every detail table, and the attachments
 *   of every deleted row. The description is silent; a detail row cannot outlive its master here
 *   because nothing could reach it (queries select details by master).
 * - `deleted` counts exactly the rows the request named; detail rows removed with their master
 *   are counted in `cascaded`, so `DeletedItems` matches what the client sent.
 * - A locked row (locks.ts) is not deleted: LOCKED. A master's lock covers its detail rows, so
 *   deleting a detail row of a locked master is LOCKED (naming the master), and a master whose
 *   detail rows would go with it cannot be deleted while one of them is locked (naming that row).
 * - All or nothing: any problem and nothing is removed.
 */
export function planDelete(state: StoreState, cmd: DeleteCommand): DeleteOutcome {
  const planning = beginDelete(state, cmd)
  planning.step()
  return planning.finish()
}

/**
 * A delete's plan made a slice at a time (`planDelete` is this, run to the end in one go): `step`
 * plans until `stop` says so (asked between two rows named, and between two masters whose detail
 * rows are looked at) or the plan is made, and answers whether it is; `finish` then gives the outcome,
 * exactly `planDelete`'s for the same data. Changes nothing. As a save's plan (save.ts's
 * `beginSave`), it reads the store as it is at each step, so it holds only while no write lands
 * between the steps: its changes carry the generation it began at, and the caller plans again if the
 * store's moved.
 */
export interface DeletePlanning {
  step(stop?: () => boolean): boolean
  finish(): DeleteOutcome
}

/** Begins a delete's plan against the store as it is now (`DeletePlanning`). */
export function beginDelete(state: StoreState, cmd: DeleteCommand): DeletePlanning {
  const app = state.apps.get(cmd.applicationId)
  if (app === undefined) {
    const outcome: DeleteOutcome = {
      ok: false,
      returnStates: [{ code: 'NOT_FOUND', message: `application ${cmd.applicationId} does not exist`, relationKey: null, id: 0 }],
    }
    return { step: () => true, finish: () => outcome }
  }
  // A generator, so the plan stops where a slice ends and goes on from there.
  const work = planning(state, app, cmd)
  let outcome: DeleteOutcome | undefined
  return {
    step(stop) {
      while (outcome === undefined) {
        const next = work.next()
        if (next.done === true) outcome = next.value
        else if (stop?.() === true) break
      }
      return outcome !== undefined
    },
    finish() {
      if (outcome === undefined) throw new Error('the delete is not planned to its end yet: step until it answers true')
      return outcome
    },
  }
}

/** Problems named (refusals.ts) between two chances for a slice to end. */
const NAMED_PER_PAUSE = 1024

/** The plan's work, in the order `planDelete` has always done it; each `yield` is where a slice may end. */
function* planning(state: StoreState, app: AppTables, cmd: DeleteCommand): Generator<void, DeleteOutcome, void> {
  const problems: ReturnState[] = []
  const plan = new Plan(state)
  const locked = new LockedRows(state.locks, cmd.applicationId)
  let deleted = 0
  const deletedMasters: number[] = []
  const named = new Set<string>()
  // Each table's deletes in the order they were added, as `Plan.changes` would copy them out of its
  // set: ready when the plan ends, rather than copied in one step then.
  const added = new Map<TablePlan, number[]>()
  const remove = (tablePlan: TablePlan, id: number): void => {
    tablePlan.deletes.add(id)
    const ids = added.get(tablePlan)
    if (ids === undefined) added.set(tablePlan, [id])
    else ids.push(id)
  }
  for (const group of cmd.groups) {
    yield
    const table = group.relationKey === null ? app.master : app.details.get(relationKeyOf(group.relationKey))
    if (table === undefined) {
      const known = [...app.details.keys()].join(', ') || '(none)'
      problems.push({
        code: 'UNKNOWN_RELATION_KEY',
        message: `relation key ${group.relationKey} is not one of application ${app.def.name}'s (${known})`,
        relationKey: group.relationKey,
        id: 0,
      })
      continue
    }
    const what = group.relationKey === null ? 'master row' : `${group.relationKey} row`
    const tablePlan = plan.of(table)
    for (const { Id, TIMESTAMP } of group.rows) {
      yield
      const key = `${group.relationKey ?? ''}:${Id}`
      if (named.has(key)) {
        problems.push({ code: 'DUPLICATE_ROW', message: `${what} ${Id} is named more than once in this request`, relationKey: group.relationKey, id: Id })
        continue
      }
      named.add(key)
      const row = table.get(Id)
      if (row === undefined) {
        problems.push({ code: 'NOT_FOUND', message: `${what} ${Id} does not exist in storage ${table.storage.name}`, relationKey: group.relationKey, id: Id })
        continue
      }
      if (TIMESTAMP === null) {
        problems.push({
          code: 'CONCURRENCY',
          message: `${what} ${Id}: TIMESTAMP null matches no row version; send the one read with Get Items`,
          relationKey: group.relationKey,
          id: Id,
          field: 'TIMESTAMP',
        })
        continue
      }
      if (!Number.isSafeInteger(TIMESTAMP)) {
        problems.push({
          code: 'INVALID_VALUE',
          message: `${what} ${Id}: TIMESTAMP must be the row version read with Get Items, got ${describeValue(TIMESTAMP)}`,
          relationKey: group.relationKey,
          id: Id,
          field: 'TIMESTAMP',
        })
        continue
      }
      if (TIMESTAMP !== row.TIMESTAMP) {
        problems.push({
          code: 'CONCURRENCY',
          message: `${what} ${Id} was changed by someone else: TIMESTAMP ${TIMESTAMP} is not the current ${row.TIMESTAMP}`,
          relationKey: group.relationKey,
          id: Id,
          field: 'TIMESTAMP',
        })
        continue
      }
      if (locked.has(group.relationKey, Id)) {
        locked.report(problems, group.relationKey, Id, `${what} ${Id} is locked by another user; it is not deleted`)
        continue
      }
      const masterId = table.masterField === null ? null : row[table.masterField]
      if (typeof masterId === 'number' && locked.has(null, masterId)) {
        locked.report(problems, null, masterId, `master row ${masterId} is locked by another user, and with it its detail rows: ${what} ${Id} is not deleted`)
        continue
      }
      remove(tablePlan, Id)
      deleted++
      if (group.relationKey === null) deletedMasters.push(Id)
    }
  }
  // A locked detail row would go with its master: the master is refused for it. (No row locked
  // anywhere, none can be: the look-up of every detail row is skipped.)
  if (!state.locks.empty) {
    for (const [relationKey, table] of app.details) {
      for (const masterId of deletedMasters) {
        yield
        for (const detailId of table.detailIdsOf(masterId)) {
          if (locked.has(relationKey, detailId))
            locked.report(
              problems,
              relationKey,
              detailId,
              `${relationKey} row ${detailId} is locked by another user, so its master row ${masterId} cannot be deleted with it`,
            )
        }
      }
    }
  }
  if (problems.length > 0) {
    const returnStates: ReturnState[] = []
    for (const problem of problems) {
      returnStates.push(nameRow(app, problem))
      if (returnStates.length % NAMED_PER_PAUSE === 0) yield
    }
    return { ok: false, returnStates }
  }
  let cascaded = 0
  for (const table of app.details.values()) {
    const tablePlan = plan.of(table)
    for (const masterId of deletedMasters) {
      yield
      for (const detailId of table.detailIdsOf(masterId)) {
        if (tablePlan.deletes.has(detailId)) continue
        remove(tablePlan, detailId)
        cascaded++
      }
    }
  }
  return { ok: true, changes: plan.changes((tablePlan) => added.get(tablePlan) ?? []), result: { deleted, cascaded } }
}
