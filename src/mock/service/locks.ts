import { violationsProblem } from '../../document/violations.ts'
import { ProblemError } from '../../errors.ts'
import { guidKey } from '../../store/guid.ts'
import type { Store } from '../../store/store.ts'
import type { LockEntry } from '../../store/locks.ts'

/** Rows of one table to lock or unlock (the control plane's `LockRequest`). */
export interface LockRequest {
  applicationId: string
  /** null or absent: master rows. */
  relationKey?: string | null
  ids: number[]
}

/** Every locked row (the `HeldLocks` schema): what `GET /__mock/locks` and `locks()` answer. */
export interface HeldLocks {
  locks: LockEntry[]
}

/** Every locked row after a lock or unlock, and how many rows the call changed (the `LockList` schema). */
export interface LockList extends HeldLocks {
  changed: number
}

/** The locks the store holds now. */
export function heldLocks(store: Store): HeldLocks {
  return { locks: store.locks() }
}

/**
 * Checks what the document checks over HTTP, for callers of `startMock()`'s controls, which no
 * schema stands in front of: the same refusal (400 VALIDATION) either way.
 */
function checked(request: LockRequest): { applicationId: string; relationKey: string | null; ids: number[] } {
  const violations: Array<{ pointer: string; keyword: string; message: string }> = []
  if (typeof request?.applicationId !== 'string' || request.applicationId === '')
    violations.push({ pointer: '/body/applicationId', keyword: 'type', message: 'must be an application Id' })
  const key = request?.relationKey ?? null
  if (key !== null && (typeof key !== 'string' || key === ''))
    violations.push({ pointer: '/body/relationKey', keyword: 'type', message: 'must be a relation key or null' })
  if (!Array.isArray(request?.ids) || request.ids.length === 0)
    violations.push({ pointer: '/body/ids', keyword: 'minItems', message: 'must name at least one row Id' })
  else
    request.ids.forEach((id, i) => {
      if (!Number.isSafeInteger(id) || id < 1) violations.push({ pointer: `/body/ids/${i}`, keyword: 'type', message: 'must be a row Id (a positive integer)' })
    })
  if (violations.length > 0) throw violationsProblem(violations)
  return { applicationId: guidKey(request.applicationId), relationKey: key, ids: request.ids }
}

function refused(error: { error: 'UNKNOWN_APPLICATION' | 'UNKNOWN_RELATION_KEY' | 'UNKNOWN_ROW'; message: string }): never {
  throw new ProblemError(error.error, `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}.`)
}

/** Locks rows (all or none: an unknown application, relation key or row refuses the call with 404). */
export function lockRows(store: Store, request: LockRequest): LockList {
  const { applicationId, relationKey, ids } = checked(request)
  const outcome = store.lock(applicationId, relationKey, ids)
  if ('error' in outcome) refused(outcome)
  return { changed: outcome.locked, locks: store.locks() }
}

/** Unlocks rows; Ids not locked are passed over. */
export function unlockRows(store: Store, request: LockRequest): LockList {
  const { applicationId, relationKey, ids } = checked(request)
  const outcome = store.unlock(applicationId, relationKey, ids)
  if ('error' in outcome) refused(outcome)
  return { changed: outcome.unlocked, locks: store.locks() }
}
