import { relationKeyOf } from './guid.ts'
import type { Locks } from './model/types.ts'

/** The key of an application's master rows in a fixture's `locks` (detail tables go by relation key). */
export const MASTER_LOCKS = 'master'

/** One table's locked rows, as the control plane lists them. */
export interface LockEntry {
  applicationId: string
  /** null for master rows. */
  relationKey: string | null
  ids: number[]
}

/**
 * Rows locked as if another user had them open (the result object's `LockedItems`): per
 * application, per table (null for the master table), a set of row Ids. Set by a fixture's `locks`
 * and by the control plane; a reset returns to the fixture's. Knows nothing of rows: whether an Id
 * exists is the caller's to check.
 */
export class RowLocks {
  readonly #byApp = new Map<string, Map<string | null, Set<number>>>()

  constructor(locks: Locks | undefined) {
    for (const [applicationId, tables] of Object.entries(locks ?? {})) {
      for (const [key, ids] of Object.entries(tables)) this.add(applicationId, key === MASTER_LOCKS ? null : key, ids)
    }
  }

  has(applicationId: string, relationKey: string | null, id: number): boolean {
    return (
      this.#byApp
        .get(applicationId)
        ?.get(relationKey === null ? null : relationKeyOf(relationKey))
        ?.has(id) ?? false
    )
  }

  /** Whether any row at all is locked: saves of a mock without locks skip every look-up. */
  get empty(): boolean {
    return this.#byApp.size === 0
  }

  /** Locks the rows; returns how many were not locked before. */
  add(applicationId: string, relationKey: string | null, ids: readonly number[]): number {
    let tables = this.#byApp.get(applicationId)
    if (tables === undefined) this.#byApp.set(applicationId, (tables = new Map()))
    const key = relationKey === null ? null : relationKeyOf(relationKey)
    let set = tables.get(key)
    if (set === undefined) tables.set(key, (set = new Set()))
    const before = set.size
    for (const id of ids) set.add(id)
    return set.size - before
  }

  /** Unlocks the rows; returns how many were locked. */
  remove(applicationId: string, relationKey: string | null, ids: readonly number[]): number {
    const tables = this.#byApp.get(applicationId)
    const key = relationKey === null ? null : relationKeyOf(relationKey)
    const set = tables?.get(key)
    if (tables === undefined || set === undefined) return 0
    let removed = 0
    for (const id of ids) if (set.delete(id)) removed++
    if (set.size === 0) tables.delete(key)
    if (tables.size === 0) this.#byApp.delete(applicationId)
    return removed
  }

  /** Every locked row, table by table, Ids ascending. */
  list(): LockEntry[] {
    const entries: LockEntry[] = []
    for (const [applicationId, tables] of this.#byApp) {
      for (const [relationKey, ids] of tables) entries.push({ applicationId, relationKey, ids: [...ids].sort((a, b) => a - b) })
    }
    return entries
  }

  /** In the fixture's form, for a snapshot; undefined when nothing is locked. */
  toLocks(): Locks | undefined {
    if (this.empty) return undefined
    const locks: Locks = {}
    for (const { applicationId, relationKey, ids } of this.list()) (locks[applicationId] ??= {})[relationKey ?? MASTER_LOCKS] = ids
    return locks
  }
}
