import type { Profile } from '../../spec/profiles.ts'
import type { ApplicationDef, ReturnState } from '../store/types.ts'

/** A business problem as the wire carries it in `ReturnStates` (shape chosen by the mock). */
export function wireReturnState(state: ReturnState): Record<string, unknown> {
  return {
    Code: state.code,
    Message: state.message,
    RelationKey: state.relationKey,
    ...(state.table === undefined ? {} : { Table: state.table }),
    Id: state.id,
    ...(state.row === undefined ? {} : { Row: state.row }),
    ...(state.field === undefined ? {} : { Field: state.field }),
  }
}

interface Counters {
  created: number
  updated: number
  deleted: number
}

/**
 * The save/delete result object in the release's spelling (`IsSaveSuccesfully` below 3.0).
 * Failures still answer 200: the description reports the outcome in the flag, not in the status.
 */
export function resultObject(
  profile: Profile,
  application: ApplicationDef,
  outcome: { ok: boolean; returnStates: readonly ReturnState[]; counters: Counters; masterRowLink: string | null },
): Record<string, unknown> {
  return {
    [profile.saveFlag]: outcome.ok,
    ReturnStates: outcome.returnStates.map(wireReturnState),
    MasterToRecalculate: [],
    CreatedItems: outcome.counters.created,
    UpdatedItems: outcome.counters.updated,
    DeletedItems: outcome.counters.deleted,
    // Each locked row the request touched is one LOCKED entry (the store names a row once).
    LockedItems: outcome.returnStates.reduce((locked, state) => (state.code === 'LOCKED' ? locked + 1 : locked), 0),
    MasterRowLink: outcome.masterRowLink,
    RowIdentifier: application.master.identityField,
    StorageName: application.master.name,
    SavedItems: null,
  }
}
