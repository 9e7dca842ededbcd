import { deleteRowByRow, saveRowByRow } from './per-row.ts'
import { planAction } from './actions.ts'
import { changeRecord, locksRecord, replayRecord, reservationRecord, uploadRecord } from './change-record.ts'
import { attachTo } from './attach.ts'
import { imageOf, type DataImage } from './image.ts'
import { beginDelete, planDelete } from './delete.ts'
import { reserveIdentities } from './identities.ts'
import { applyChanges, stageChanges, stageDeletes } from './plan.ts'
import { countRows, getRow, prepareFilter, queryRows, tableFor } from './query.ts'
import { beginSave, planSave } from './save.ts'
import { beginState, buildState, versionsNeeded, type StoreState } from './state.ts'
import { snapshotOf } from './snapshot.ts'
import { withinSequence } from './sequence.ts'
import { requireEpoch } from './epoch.ts'
import type { ReadyBytes } from '../wire/ready-bytes.ts'
import type { LockEntry } from './locks.ts'
import type {
  ActionCommand,
  ActionOutcome,
  ApplicationDef,
  AttachmentDef,
  DeleteCommand,
  DeleteResult,
  Deps,
  Fixture,
  NewAttachment,
  OrganizationDef,
  ParsedQuery,
  QueryError,
  Row,
  RowGenerator,
  SaveCommand,
  SaveResult,
  StoreChanges,
  StoreError,
  WriteOutcome,
  ChangeRecord,
} from './model/types.ts'

/**
 * Who keeps the data durable (the state file: src/state), as the store hands it over: every
 * acknowledged change as a record, and the whole data a reset or fixture load is about to put in
 * place. A keeper that throws refuses the change, and the store changes nothing.
 */
export interface DataKeeper {
  /**
   * A committed save, delete or action, before it is applied (throwing stops it: the request
   * fails with nothing changed); an identity reservation, an upload or a lock change just after it
   * (throwing takes it back).
   */
  record(record: ChangeRecord): void
  /** The data a reset or fixture load is about to put in place, kept before it takes effect (throwing refuses it). */
  replace(next: DataImage): void
  /**
   * replace, without holding the event loop: kept a slice at a time, awaiting `pause` between
   * slices. Resolves with the step that puts it in place for good, which the store takes in the
   * same turn as it puts the data in place in memory.
   */
  prepareReplace(next: DataImage, pause: () => Promise<void>): Promise<PreparedReplace>
}

/** Data a keeper has written out and not yet put in place (DataKeeper.prepareReplace). */
export interface PreparedReplace {
  /** Puts it in place; throws, changing nothing, when that fails. */
  commit(): void
  /** Drops it. */
  discard(): void
}

/**
 * The mock's in-memory installation: one organization's applications with their master and
 * detail tables, attachments and custom actions. The only shared mutable object of the mock
 * (decorated once in app.ts). Business failures come back as values, never as exceptions.
 */
export interface Store {
  /** The fixture loaded last (by createStore or reset). */
  readonly fixture: Fixture
  organization(): OrganizationDef
  application(id: string): ApplicationDef | undefined
  /** Back to the loaded fixture, or load another. Row versions keep growing across resets, so a TIMESTAMP read before a reset is stale after it. */
  reset(fixture?: Fixture): void
  /**
   * As reset, without holding other clients: the new data is built a slice of rows at a time
   * (about `sliceMs` each, awaiting `pause()` between), while the old goes on serving and taking
   * writes, then kept by the keeper (in slices too), then put in place in one synchronous step:
   * the epoch moves there. Such resets run one after another, in the order asked.
   */
  resetInSlices(fixture: Fixture | undefined, pause: () => Promise<void>, sliceMs?: number): Promise<void>
  /** The last row version handed out (the count result's `Timestamp`). */
  currentRowVersion(): number
  /** The data as it is now, as a fixture that loads back into the same rows, versions and attachments. */
  snapshot(): Fixture
  /** The data as it is now, to be read a table and a chunk at a time while writes go on (image.ts); close it when done. */
  image(): DataImage
  /** Grows with every write: a snapshot taken at the same generation holds the same data. */
  generation(): number
  /**
   * The data's epoch: 1 when built, one more at each reset or fixture load. A write command stamped
   * with an older one (`epoch`, the epoch its request was received under) is refused: it throws
   * epoch.ts's DataReplaced and writes nothing, so a reset or load is a clean cut for requests held
   * across it.
   */
  epoch(): number

  /** A page of rows as a JSON array in UTF-8 bytes, as pieces ready to write (`body` joins them); TIMESTAMP as base64, hidden fields left out. */
  queryRows(applicationId: string, relationKey: string | null, q: ParsedQuery, hiddenFields: readonly string[]): ReadyBytes | QueryError
  /**
   * Compiles a long `$filter` text of a table's queries ahead of them, reading it in slices of about
   * `sliceMs` and awaiting `pause()` between them; `queryRows` and `countRows` then find it compiled
   * (while it stays among a table's 500 last filters), with the same answer.
   */
  prepareFilter(applicationId: string, relationKey: string | null, text: string, pause: () => Promise<void>, sliceMs?: number): Promise<void>
  /** Rows the query's filter selects, ignoring `$top` / `$skip`. */
  countRows(applicationId: string, relationKey: string | null, q: ParsedQuery, hiddenFields?: readonly string[]): { count: number } | QueryError
  /** One row with its JSON text (hidden fields left out), or null when it does not exist. */
  getRow(applicationId: string, relationKey: string | null, id: number, hiddenFields?: readonly string[]): { row: Readonly<Row>; json: string } | null

  /**
   * Checks a whole save and decides its writes (save.ts), then applies them all, or, with any
   * problem, writes nothing; in an application's per-row save mode, one master row at a time.
   */
  save(cmd: SaveCommand): WriteOutcome<SaveResult>
  /**
   * As save, with the same outcome, for a big save: the plan is made a slice of masters at a time,
   * each slice about `sliceMs` long, awaiting `pause()` (the caller's turn of the event loop) between
   * slices, so whatever else is waiting is served; its new rows are then written where no read looks
   * yet, in slices too (plan.ts's `stageChanges`), and made visible with the rest of the save in one
   * synchronous step, so no read sees half of it and no two saves interleave. A write that lands
   * between slices (a new store generation) makes the plan void: it is made again, in slices, as if
   * the save had come after that write (after SLICED_ATTEMPTS such voids, in one go). A reset or
   * fixture load between slices refuses the save instead (DataReplaced, nothing written): it was
   * planned under data that is gone. The per-row save mode is not sliced (save).
   */
  saveInSlices(cmd: SaveCommand, pause: () => Promise<void>, sliceMs?: number): Promise<WriteOutcome<SaveResult>>
  /** As save, for deletes (delete.ts). */
  delete(cmd: DeleteCommand): WriteOutcome<DeleteResult>
  /**
   * As delete, with the same outcome, for a big delete, as saveInSlices is for a big save: planned a
   * slice of rows at a time (delete.ts's `beginDelete`), its rows then found in slices too, changing
   * nothing (plan.ts's `stageDeletes`), and removed for every read in one synchronous step, so no read
   * sees part of it and no two writes interleave; they are taken out of the tables' indexes in slices
   * after that, before it answers. A write between slices voids the plan, which is made again (after
   * SLICED_ATTEMPTS such voids, in one go); a reset or fixture load between slices refuses the delete
   * (DataReplaced, nothing written). The per-row save mode is not sliced (delete).
   */
  deleteInSlices(cmd: DeleteCommand, pause: () => Promise<void>, sliceMs?: number): Promise<WriteOutcome<DeleteResult>>
  /** `count` consecutive Identity values that later automatic assignments will not hand out; `epoch` as a write command's. */
  reserveIdentities(
    applicationId: string,
    storageId: string,
    fieldName: string,
    count: number,
    epoch?: number,
  ): number[] | StoreError<'UNKNOWN_APPLICATION' | 'UNKNOWN_STORAGE' | 'INVALID_COUNT'>

  /** A custom action's result, its effect applied. */
  runAction(cmd: ActionCommand): ActionOutcome | StoreError<'UNKNOWN_APPLICATION' | 'UNKNOWN_ACTION'>

  /** Files and folders at a row's top level (`folderId` null or absent) or inside one of its folders. */
  listAttachments(applicationId: string, relationKey: string | null, parentId: number, folderId?: number | null): AttachmentDef[] | QueryError
  getAttachment(applicationId: string, relationKey: string | null, id: number): AttachmentDef | undefined
  /** Every file below a folder with its path inside it (folder names, then its own), for the folder's .zip download. */
  folderFiles(folder: AttachmentDef): Array<{ path: string[]; attachment: AttachmentDef }>
  /**
   * One upload, all or nothing: `upload` adds files and folders to existing rows through `add`
   * (updating CT_ATTACHMENTS); the keeper is handed their record once, after it. When `upload` or
   * the keeper throws, every attachment it added is taken back and the error goes on.
   */
  addAttachments<T>(upload: (add: (input: NewAttachment) => AttachmentDef | StoreError<'UNKNOWN_APPLICATION' | 'UNKNOWN_RELATION_KEY' | 'UNKNOWN_ROW'>) => T): T

  /**
   * Locks rows as if another user had them open: a save or delete touching one is refused for it
   * (LOCKED, counted in `LockedItems`). Every Id must be a row of the table; returns how many rows
   * were not locked before. A reset or fixture load puts back the fixture's locks.
   */
  lock(
    applicationId: string,
    relationKey: string | null,
    ids: readonly number[],
  ): { locked: number } | StoreError<'UNKNOWN_APPLICATION' | 'UNKNOWN_RELATION_KEY' | 'UNKNOWN_ROW'>
  /** Unlocks rows (Ids not locked are passed over); returns how many were locked. */
  unlock(
    applicationId: string,
    relationKey: string | null,
    ids: readonly number[],
  ): { unlocked: number } | StoreError<'UNKNOWN_APPLICATION' | 'UNKNOWN_RELATION_KEY'>
  /** Every locked row, table by table. */
  locks(): LockEntry[]

  /** Who keeps every acknowledged change and every replaced data (the state file); none by default, which costs nothing. */
  keep(keeper: DataKeeper | undefined): void
  /** Applies a record of the change log, as at start-up; hands the keeper nothing. */
  replay(record: ChangeRecord): void
}

/**
 * How many times a big save or delete is planned (and its rows staged) in slices before it is planned
 * and applied in one go: each time, a write landed between its slices and voided it. Two big writes
 * side by side take two; only writes that keep landing faster than it can be planned reach the end.
 */
const SLICED_ATTEMPTS = 8

/**
 * Builds the store from a fixture. `deps` supplies time (DT_CREATION of rows a fixture leaves
 * undated, DT_LAST_UPDATE of writes); nothing in the store reads the clock otherwise. `generator`
 * makes the rows a fixture's `generated` asks for, at the start and at every reset (the mock
 * passes src/fixtures/generate.ts's rowGenerator).
 */
export function createStore(initial: Fixture, deps: Deps, generator: RowGenerator): Store {
  let loaded = initial
  let state: StoreState = buildState(initial, deps, generator, 1, 0)
  let keeper: DataKeeper | undefined
  // Resets made in slices, one after another.
  let replacing: Promise<void> = Promise.resolve()
  // Counted by the store itself, not read off the state: a reset builds a new state, and a write
  // stamped before it must meet a number that moved.
  let epoch = 1
  /** The big save writing its new rows out of sight now (saveInSlices), if any: one at a time. */
  let stager: object | null = null

  // The one place every committed save, delete and action passes: logged first, then applied.
  const commit = (changes: StoreChanges): void => {
    if (keeper !== undefined && changes.generation === state.generation) keeper.record(changeRecord(changes))
    applyChanges(state, changes)
  }

  // Locks are part of the data a snapshot holds: a new generation, and a record of every lock held
  // after the change; when it cannot be kept, `undo` takes the change back.
  const lockChanged = (undo: () => void): void => {
    state.generation++
    if (keeper === undefined) return
    try {
      keeper.record(locksRecord(state))
    } catch (error) {
      undo()
      state.generation--
      throw error
    }
  }

  // Puts a built state in place (after its keeper has it): versions go on from the larger counter.
  const putInPlace = (next: StoreState, fixture: Fixture | undefined): void => {
    if (state.nextVersion > next.nextVersion) next.nextVersion = state.nextVersion
    next.generation = state.generation + 1
    if (fixture !== undefined) loaded = fixture
    state = next
    epoch++
  }

  /**
   * How a big save or delete runs its steps: `inSlices` runs `step` in slices of about `sliceMs`,
   * awaiting `pause()` between them, while `holds()`, and answers false as soon as it does not (a
   * write landed between slices); `current` tells whether the store is still as the plan read it.
   * A reset or fixture load since the plan began refuses the write in both (DataReplaced): it was
   * received under data that is gone.
   */
  const slicer = (plannedEpoch: number, pause: () => Promise<void>, sliceMs: number) => ({
    async inSlices(step: (stop: () => boolean) => boolean, holds: () => boolean): Promise<boolean> {
      for (;;) {
        const until = performance.now() + sliceMs
        if (step(() => performance.now() >= until)) return true
        await pause()
        requireEpoch(plannedEpoch, epoch)
        if (!holds()) return false
      }
    },
    current(holds: () => boolean): boolean {
      requireEpoch(plannedEpoch, epoch)
      return holds()
    },
  })

  const store: Store = {
    get fixture() {
      return loaded
    },
    organization: () => state.fixture.organization,
    application: (id) => state.apps.get(id)?.def,
    reset(fixture) {
      const next = buildState(fixture ?? loaded, deps, generator, state.nextVersion, state.generation + 1)
      // Kept before the data is replaced: when the keeper cannot keep the new data (its state
      // file not written), memory, snapshot and change log all stay as they were.
      if (keeper !== undefined) {
        const image = imageOf(next)
        try {
          keeper.replace(image)
        } finally {
          image.close()
        }
      }
      putInPlace(next, fixture)
    },
    resetInSlices(fixture, pause, sliceMs = 8) {
      const run = async (): Promise<void> => {
        const target = fixture ?? loaded
        const firstVersion = state.nextVersion
        // The versions the new rows take are set aside: writes to the old data meanwhile take
        // later ones, so no version handed out before the reset comes back after it.
        state.nextVersion += versionsNeeded(target, generator)
        const building = beginState(target, deps, generator, firstVersion, 0)
        await inSlices(building.steps[Symbol.iterator](), pause, sliceMs)
        const next = building.state
        if (keeper === undefined) return putInPlace(next, fixture)
        const image = imageOf(next)
        let prepared: PreparedReplace
        try {
          prepared = await keeper.prepareReplace(image, pause)
        } finally {
          image.close()
        }
        // One step from here: on disk, then in memory, nothing between.
        prepared.commit()
        putInPlace(next, fixture)
      }
      const done = replacing.then(run, run)
      replacing = done.catch(() => undefined)
      return done
    },
    currentRowVersion: () => state.nextVersion - 1,
    snapshot: () => snapshotOf(state),
    image: () => imageOf(state),
    generation: () => state.generation,
    epoch: () => epoch,

    queryRows: (applicationId, relationKey, q, hiddenFields) => queryRows(state, applicationId, relationKey, q, hiddenFields),
    prepareFilter: (applicationId, relationKey, text, pause, sliceMs) => prepareFilter(state, applicationId, relationKey, text, pause, sliceMs),
    countRows: (applicationId, relationKey, q, hiddenFields = []) => countRows(state, applicationId, relationKey, q, hiddenFields),
    getRow: (applicationId, relationKey, id, hiddenFields = []) => getRow(state, applicationId, relationKey, id, hiddenFields),

    save(cmd) {
      requireEpoch(cmd.epoch, epoch)
      if (state.apps.get(cmd.applicationId)?.def.saveMode === 'per-row') return saveRowByRow(state, cmd, deps, commit)
      const outcome = planSave(state, cmd, deps)
      if (outcome.ok) commit(outcome.changes)
      return outcome
    },
    async saveInSlices(cmd, pause, sliceMs = 8) {
      if (state.apps.get(cmd.applicationId)?.def.saveMode === 'per-row') return store.save(cmd)
      requireEpoch(cmd.epoch, epoch)
      const plannedEpoch = epoch
      const { inSlices, current } = slicer(plannedEpoch, pause, sliceMs)
      for (let attempt = 1; attempt <= SLICED_ATTEMPTS; attempt++) {
        const planned = state
        const generation = planned.generation
        const holds = (): boolean => state === planned && state.generation === generation
        const planning = beginSave(planned, cmd, deps)
        // A write that lands between slices voids the plan: it is made again, in slices too, as if the save came after that write.
        // (Awaiting even a finished slice lets other work run: the store is looked at again after each wait.)
        if (!(await inSlices(planning.step, holds)) || !current(holds)) continue
        // The plan finished in the step that checked it: a refusal is the store's answer as it is now.
        const outcome = planning.finish()
        if (!outcome.ok) return outcome
        // One save stages at a time (two would write the same slots): wait for another to end (its commit voids this plan).
        while (stager !== null && current(holds)) await pause()
        if (!current(holds)) continue
        const claim = {}
        stager = claim
        try {
          const staged = stageChanges(state, outcome.changes)
          if (!(await inSlices(staged.step, holds)) || !current(holds)) continue
          // The commit: kept by the keeper, then made visible, in one step (no read sees part of it).
          if (keeper !== undefined) keeper.record(changeRecord(outcome.changes))
          staged.finish()
          return outcome
        } finally {
          if (stager === claim) stager = null
        }
      }
      // Writes kept landing faster than the save could be planned: planned and applied in one go, as a small save is.
      requireEpoch(plannedEpoch, epoch)
      const outcome = planSave(state, cmd, deps)
      if (outcome.ok) commit(outcome.changes)
      return outcome
    },
    delete(cmd) {
      requireEpoch(cmd.epoch, epoch)
      if (state.apps.get(cmd.applicationId)?.def.saveMode === 'per-row') return deleteRowByRow(state, cmd, commit)
      const outcome = planDelete(state, cmd)
      if (outcome.ok) commit(outcome.changes)
      return outcome
    },
    async deleteInSlices(cmd, pause, sliceMs = 8) {
      if (state.apps.get(cmd.applicationId)?.def.saveMode === 'per-row') return store.delete(cmd)
      requireEpoch(cmd.epoch, epoch)
      const plannedEpoch = epoch
      const { inSlices, current } = slicer(plannedEpoch, pause, sliceMs)
      for (let attempt = 1; attempt <= SLICED_ATTEMPTS; attempt++) {
        const planned = state
        const generation = planned.generation
        const holds = (): boolean => state === planned && state.generation === generation
        const planning = beginDelete(planned, cmd)
        // A write that lands between slices voids the plan: it is made again, in slices too, as if the delete came after that write.
        if (!(await inSlices(planning.step, holds)) || !current(holds)) continue
        const outcome = planning.finish()
        if (!outcome.ok) return outcome
        // Its rows found out of sight (only read: another write may go on meanwhile, and voids this plan).
        const staged = stageDeletes(state, outcome.changes)
        if (!(await inSlices(staged.step, holds)) || !current(holds)) continue
        // The commit: kept by the keeper (a refusal there changes nothing), then every row removed for every read, in one step.
        if (keeper !== undefined && outcome.changes.generation === state.generation) keeper.record(changeRecord(outcome.changes))
        staged.finish()
        // Written: what follows cannot undo it, so no reset refuses it now. The rows go out of the indexes a slice at
        // a time (the tables' look-ups pass over them meanwhile); data a reset put in place has nothing to sweep.
        for (;;) {
          const until = performance.now() + sliceMs
          if (staged.sweep(() => performance.now() >= until)) break
          await pause()
          if (state !== planned) break
        }
        return outcome
      }
      // Writes kept landing faster than the delete could be planned: planned and applied in one go, as a small delete is.
      requireEpoch(plannedEpoch, epoch)
      const outcome = planDelete(state, cmd)
      if (outcome.ok) commit(outcome.changes)
      return outcome
    },
    reserveIdentities(applicationId, storageId, fieldName, count, received) {
      requireEpoch(received, epoch)
      const table = state.storages.get(storageId)
      const before = table?.nextIdentity
      const reserved = reserveIdentities(state, applicationId, storageId, fieldName, count)
      if (keeper !== undefined && Array.isArray(reserved) && table !== undefined) {
        try {
          keeper.record(reservationRecord(state, storageId))
        } catch (error) {
          // Not kept: not handed out either.
          table.nextIdentity = before as number
          throw error
        }
      }
      return reserved
    },

    runAction(cmd) {
      requireEpoch(cmd.epoch, epoch)
      const planned = planAction(state, cmd, deps)
      if ('error' in planned) return planned
      if (planned.changes !== undefined) commit(planned.changes)
      return planned.outcome
    },

    listAttachments(applicationId, relationKey, parentId, folderId = null) {
      const table = tableFor(state, applicationId, relationKey)
      if ('error' in table) return table
      return state.attachments.list(applicationId, relationKey, parentId, folderId)
    },
    getAttachment: (applicationId, relationKey, id) => state.attachments.get(applicationId, relationKey, id),
    folderFiles: (folder) => state.attachments.filesUnder(folder),
    addAttachments(upload) {
      const undo: Array<() => void> = []
      const added: AttachmentDef[] = []
      const generation = state.generation
      try {
        const result = upload((input) => addAttachment(state, input, deps, undo, added))
        if (added.length > 0) keeper?.record(uploadRecord(added))
        return result
      } catch (error) {
        for (const step of undo.reverse()) step()
        state.generation = generation
        throw error
      }
    },

    lock(applicationId, relationKey, ids) {
      const table = tableFor(state, applicationId, relationKey)
      if ('error' in table) return { error: table.error === 'UNKNOWN_APPLICATION' ? 'UNKNOWN_APPLICATION' : 'UNKNOWN_RELATION_KEY', message: table.message }
      const missing = ids.filter((id) => table.get(id) === undefined)
      if (missing.length > 0)
        return {
          error: 'UNKNOWN_ROW',
          message: `${missing.length === 1 ? 'row' : 'rows'} ${missing.join(', ')} ${missing.length === 1 ? 'does' : 'do'} not exist in storage ${table.storage.name}`,
        }
      const before = new Set(ids.filter((id) => state.locks.has(applicationId, relationKey, id)))
      const locked = state.locks.add(applicationId, relationKey, ids)
      lockChanged(() =>
        state.locks.remove(
          applicationId,
          relationKey,
          ids.filter((id) => !before.has(id)),
        ),
      )
      return { locked }
    },
    unlock(applicationId, relationKey, ids) {
      const table = tableFor(state, applicationId, relationKey)
      if ('error' in table) return { error: table.error === 'UNKNOWN_APPLICATION' ? 'UNKNOWN_APPLICATION' : 'UNKNOWN_RELATION_KEY', message: table.message }
      const held = ids.filter((id) => state.locks.has(applicationId, relationKey, id))
      const unlocked = state.locks.remove(applicationId, relationKey, ids)
      if (unlocked > 0) lockChanged(() => state.locks.add(applicationId, relationKey, held))
      return { unlocked }
    },
    locks: () => state.locks.list(),

    keep(next) {
      keeper = next
    },
    replay: (record) => replayRecord(state, record),
  }
  return store
}

/** Runs steps until none is left, in slices of about `sliceMs`, awaiting `pause()` between slices. */
async function inSlices(steps: Iterator<void>, pause: () => Promise<void>, sliceMs: number): Promise<void> {
  for (;;) {
    const until = performance.now() + sliceMs
    for (;;) {
      if (steps.next().done === true) return
      if (performance.now() >= until) break
    }
    await pause()
  }
}

function addAttachment(
  state: StoreState,
  input: NewAttachment,
  deps: Deps,
  undo: Array<() => void>,
  added: AttachmentDef[],
): AttachmentDef | StoreError<'UNKNOWN_APPLICATION' | 'UNKNOWN_RELATION_KEY' | 'UNKNOWN_ROW'> {
  const table = tableFor(state, input.applicationId, input.relationKey)
  if ('error' in table) return { error: table.error === 'UNKNOWN_APPLICATION' ? 'UNKNOWN_APPLICATION' : 'UNKNOWN_RELATION_KEY', message: table.message }
  const row = table.get(input.parentId)
  if (row === undefined) return { error: 'UNKNOWN_ROW', message: `row ${input.parentId} does not exist in storage ${table.storage.name}` }
  if (input.folderId !== null) {
    const folder = state.attachments.get(input.applicationId, input.relationKey, input.folderId)
    if (folder === undefined || !folder.isFolder || folder.parentId !== input.parentId) {
      return { error: 'UNKNOWN_ROW', message: `folder ${input.folderId} is not a folder of row ${input.parentId}` }
    }
  }
  const attachment: AttachmentDef = {
    id: withinSequence(state.attachments.nextId, 'the next attachment Id'),
    applicationId: input.applicationId,
    relationKey: input.relationKey,
    parentId: input.parentId,
    folderId: input.folderId,
    isFolder: input.isFolder,
    name: input.name,
    description: input.description ?? '',
    mediaType: input.mediaType,
    createdAt: new Date(deps.now()).toISOString(),
    userId: input.userId,
    ...(input.content === undefined ? {} : { content: input.content }),
  }
  undo.push(attachTo(state, attachment))
  added.push(attachment)
  return attachment
}
