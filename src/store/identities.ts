import type { StoreState } from './state.ts'
import type { StoreError } from './model/types.ts'
import { MAX_IDENTITY_COUNT } from '../../spec/descriptions.ts'
import { withinSequence } from './sequence.ts'

/** Most values one Get Identities call may reserve (the document's cap); keeps a typo from exhausting the sequence. */
export const MAX_RESERVATION = MAX_IDENTITY_COUNT

/**
 * Reserves `count` consecutive Identity values of a storage (the description, Get Identities). The sequence
 * moves past them, so automatic assignment never hands them out; a client may still send one of
 * them explicitly in a save, which is what reserving is for. The run starts at the sequence's
 * next value, moved forward past any value a row already holds, so every value is free.
 * Mutates the state (there is nothing to check beyond the look-ups); throws SequenceExhausted, changing
 * nothing, when the run would pass Number.MAX_SAFE_INTEGER.
 */
export function reserveIdentities(
  state: StoreState,
  applicationId: string,
  storageId: string,
  fieldName: string,
  count: number,
): number[] | StoreError<'UNKNOWN_APPLICATION' | 'UNKNOWN_STORAGE' | 'INVALID_COUNT'> {
  const app = state.apps.get(applicationId)
  if (app === undefined) return { error: 'UNKNOWN_APPLICATION', message: `application ${applicationId} does not exist` }
  const table = state.storages.get(storageId)
  if (table === undefined || table.applicationId !== applicationId) {
    return { error: 'UNKNOWN_STORAGE', message: `storage ${storageId} is not a storage of application ${app.def.name}` }
  }
  if (fieldName !== table.storage.identityField) {
    return {
      error: 'UNKNOWN_STORAGE',
      message: `${fieldName} is not the Identity field of storage ${table.storage.name} (it is ${table.storage.identityField})`,
    }
  }
  if (!Number.isSafeInteger(count) || count < 1 || count > MAX_RESERVATION) {
    return { error: 'INVALID_COUNT', message: `count must be an integer from 1 to ${MAX_RESERVATION}, got ${count}` }
  }
  // Every value is checked before it is looked at: past 2^53 `value++` stops moving and the loop would never end.
  const what = `${count} values of ${fieldName} of storage ${table.storage.name}`
  let start = table.nextIdentity
  for (let value = start; value < start + count; value++) {
    if (table.identityOwner(withinSequence(value, what)) !== undefined) start = value + 1
  }
  // Also when the loop ran no step: at 2^53, `start + count` rounds back down to `start`.
  withinSequence(start, what, count - 1)
  table.nextIdentity = start + count
  state.generation++
  return Array.from({ length: count }, (_, i) => start + i)
}
