import { relationKeyOf } from './guid.ts'
import { ownValue } from './model/field-values.ts'
import type { RowLocks } from './locks.ts'
import type { AppTables } from './state.ts'
import type { ReturnState } from './model/types.ts'

/**
 * The locks a save or delete plan meets, each locked row named once however often the request
 * touches it, so `LockedItems` (the LOCKED entries) counts rows, not mentions.
 */
export class LockedRows {
  readonly #locks: RowLocks
  readonly #applicationId: string
  readonly #named = new Set<string>()

  constructor(locks: RowLocks, applicationId: string) {
    this.#locks = locks
    this.#applicationId = applicationId
  }

  has(relationKey: string | null, id: number): boolean {
    return !this.#locks.empty && this.#locks.has(this.#applicationId, relationKey, id)
  }

  /** Adds the LOCKED problem for a row, unless the plan named that row already. */
  report(problems: ReturnState[], relationKey: string | null, id: number, message: string): void {
    const key = `${relationKey === null ? '' : relationKeyOf(relationKey)}:${id}`
    if (this.#named.has(key)) return
    this.#named.add(key)
    problems.push({ code: 'LOCKED', message, relationKey, id })
  }
}

/**
 * The codes whose entries name the table and the row: those of locks and field rules. The older
 * codes keep the shape clients were written against (Id and RelationKey only).
 */
const NAMED_CODES: ReadonlySet<ReturnState['code']> = new Set([
  'LOCKED',
  'REQUIRED',
  'READ_ONLY',
  'BELOW_MINIMUM',
  'ABOVE_MAXIMUM',
  'TOO_LONG',
  'NOT_ALLOWED',
  'NOT_UNIQUE',
])

/**
 * Problems of locks and field rules with the row named as the product names a failed row (the
 * product's reference, Save rows: by its row identifier and its table): `table` the storage's
 * name, `row` its Identity value when it has one (an existing row's), else the Id sent (a new
 * row's temporary Id). Only refusals pay for the look-ups.
 */
export function nameRows(app: AppTables, problems: readonly ReturnState[]): ReturnState[] {
  return problems.map((problem) => nameRow(app, problem))
}

/** One problem as `nameRows` names it (a big delete's refusal names its problems a slice at a time). */
export function nameRow(app: AppTables, problem: ReturnState): ReturnState {
  if (!NAMED_CODES.has(problem.code)) return problem
  const table = problem.relationKey === null ? app.master : app.details.get(relationKeyOf(problem.relationKey))
  if (table === undefined) return problem
  let row = problem.row
  if (row === undefined) {
    const identity = problem.id > 0 ? ownValue(table.get(problem.id) ?? {}, table.storage.identityField) : undefined
    row = typeof identity === 'number' ? identity : problem.id
  }
  return { ...problem, table: table.storage.name, row }
}
