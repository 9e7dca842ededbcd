import type { FastifyReply } from 'fastify'
import type { Profile } from '../../spec/profiles.ts'
import type { ApplicationDef, ReturnState } from '../store/model/types.ts'
import { runInSlices } from '../http/json-slices.ts'

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

/** What a save or delete answers, before it is put in the release's spelling. */
interface ResultOutcome {
  ok: boolean
  returnStates: readonly ReturnState[]
  counters: Counters
  masterRowLink: string | null
}

/**
 * The save/delete result object in the release's spelling (`IsSaveSuccesfully` below 3.0).
 * Failures still answer 200: the description reports the outcome in the flag, not in the status.
 */
export function resultObject(profile: Profile, application: ApplicationDef, outcome: ResultOutcome): Record<string, unknown> {
  return resultWith(profile, application, outcome, outcome.returnStates.map(wireReturnState), lockedItems(outcome.returnStates))
}

/** Each locked row the request touched is one LOCKED entry (the store names a row once). */
function lockedItems(states: readonly ReturnState[]): number {
  return states.reduce((locked, state) => (state.code === 'LOCKED' ? locked + 1 : locked), 0)
}

/** The result object's members, in the order the answer writes them, `ReturnStates` the second (`answerPieces` counts on it). */
function resultWith(profile: Profile, application: ApplicationDef, outcome: ResultOutcome, returnStates: unknown[], locked: number): Record<string, unknown> {
  return {
    [profile.saveFlag]: outcome.ok,
    ReturnStates: returnStates,
    MasterToRecalculate: [],
    CreatedItems: outcome.counters.created,
    UpdatedItems: outcome.counters.updated,
    DeletedItems: outcome.counters.deleted,
    LockedItems: locked,
    MasterRowLink: outcome.masterRowLink,
    RowIdentifier: application.master.identityField,
    StorageName: application.master.name,
    SavedItems: null,
  }
}

/** Characters of a big answer encoded between two chances for a slice to end. */
const ANSWER_PIECE = 64 * 1024

/**
 * The result object of a big save or delete, written a slice of its `ReturnStates` at a time (one
 * per problem: hundreds of thousands for a refused write of many rows) with turns of the event loop
 * between: the bytes `JSON.stringify(resultObject(...))` writes, followed for a save by
 * `ReturnData.PrimaryKeyData`, given as the pieces of its text (src/store/model/primary-keys.ts; null for
 * a delete, whose answer has no `ReturnData`). onSend hooks see the bytes, as they see every
 * serialized answer.
 */
export async function sendResultInSlices(
  reply: FastifyReply,
  profile: Profile,
  application: ApplicationDef,
  outcome: ResultOutcome,
  primaryKeyData: Iterable<string> | null,
): Promise<FastifyReply> {
  const bytes = await runInSlices(answerPieces(profile, application, outcome, primaryKeyData))
  return reply.type('application/json; charset=utf-8').send(bytes)
}

function* answerPieces(
  profile: Profile,
  application: ApplicationDef,
  outcome: ResultOutcome,
  primaryKeyData: Iterable<string> | null,
): Generator<void, Buffer, void> {
  const pieces: Buffer[] = []
  let text = `{${JSON.stringify(profile.saveFlag)}:${JSON.stringify(outcome.ok)},"ReturnStates":[`
  const flush = (): void => {
    pieces.push(Buffer.from(text))
    text = ''
  }
  const states = outcome.returnStates
  let locked = 0
  for (let i = 0; i < states.length; i++) {
    const state = states[i] as ReturnState
    if (state.code === 'LOCKED') locked++
    text += `${i === 0 ? '' : ','}${JSON.stringify(wireReturnState(state))}`
    if (text.length >= ANSWER_PIECE) {
      flush()
      yield
    }
  }
  // The members after `ReturnStates`, small: the flag and `ReturnStates` are the first two, written above.
  const after = Object.entries(resultWith(profile, application, outcome, [], locked)).slice(2)
  text += `],${JSON.stringify(Object.fromEntries(after)).slice(1, -1)}`
  if (primaryKeyData !== null) {
    text += ',"ReturnData":{"PrimaryKeyData":'
    for (const piece of primaryKeyData) {
      // An empty piece is where the keys' writer may pause (primary-keys.ts).
      if (piece === '') {
        yield
        continue
      }
      text += piece
      if (text.length >= ANSWER_PIECE) {
        flush()
        yield
      }
    }
    text += '}'
  }
  text += '}'
  flush()
  // Copied into one buffer a piece at a time: Buffer.concat of a 20 MB answer is one call, and the
  // first write to fresh memory costs about 0.6 ms a megabyte on two cores.
  const bytes = Buffer.allocUnsafe(pieces.reduce((sum, piece) => sum + piece.length, 0))
  let at = 0
  for (const piece of pieces) {
    at += piece.copy(bytes, at)
    yield
  }
  return bytes
}
