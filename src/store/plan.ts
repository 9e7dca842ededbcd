import type { StoreState } from './state.ts'
import { Removal, type Table } from './engine/table.ts'
import type { Row, StoreChanges } from './model/types.ts'
import { withinSequence } from './sequence.ts'
import { SegmentedMap, SegmentedSet } from './model/segmented-map.ts'

/** Rows copied out of a plan between two chances to pause (changesInSteps). */
const COPY_STEP = 8192

/** A table grown to fewer rows than this is grown at once (a millisecond or so); a bigger one a column at a time. */
const RESERVE_IN_STEPS_ROWS = 65_536

/**
 * A table as a plan sees it: the real rows overlaid with the plan's own writes, and the table's
 * sequences advanced only in the plan. Nothing here touches the table; `applyChanges` does.
 */
export class TablePlan {
  readonly table: Table
  nextId: number
  nextIdentity: number
  nextRowOrder: number
  /** New and updated rows by Id, in the order the plan wrote them. Segmented, as the other maps a big save fills row by row (model/segmented-map.ts). */
  readonly puts = new SegmentedMap<number, Row>()
  readonly deletes = new SegmentedSet<number>()
  /** The Id each new row was sent with (its temporary Id), by the Id the plan gave it: what a problem names. */
  readonly sentIds = new SegmentedMap<number, number>()
  /** Identity values rows of this plan were sent with, value to row Id. */
  readonly #claimed = new SegmentedMap<number, number>()
  /**
   * The sequence's values this plan handed out are those from here to `nextIdentity` that no row
   * of the table held: a block, kept as its two ends rather than a value per new row.
   */
  readonly #handedFrom: number
  /** No row of the table, and no value sent in this plan, is above this: past it the sequence is free. */
  #ceiling: number

  constructor(table: Table) {
    this.table = table
    this.nextId = table.nextId
    this.nextIdentity = table.nextIdentity
    this.nextRowOrder = table.nextRowOrder
    this.#handedFrom = table.nextIdentity
    this.#ceiling = table.identityCeiling
  }

  /** The row as it would be after the plan so far. */
  current(id: number): Row | undefined {
    if (this.deletes.has(id)) return undefined
    return this.puts.get(id) ?? this.table.get(id)
  }

  /** Whether an Identity value belongs to a row other than `rowId`, in the table or in the plan. */
  identityTaken(value: number, rowId: number | null): boolean {
    const owner = this.#claimed.get(value) ?? this.table.identityOwner(value)
    if (owner !== undefined) return owner !== rowId
    // Handed out by this plan to a new row, which is never the existing row `rowId`.
    return value >= this.#handedFrom && value < this.nextIdentity
  }

  /** An Identity value a row was sent with (values the sequence hands out are the plan's already). */
  claimIdentity(value: number, rowId: number): void {
    this.#claimed.set(value, rowId)
    if (value > this.#ceiling) this.#ceiling = value
  }

  takeId(): number {
    withinSequence(this.nextId, `the next Id of storage ${this.table.storage.name}`)
    return this.nextId++
  }

  /**
   * The sequence's next value that no row holds; reserved values lie behind the sequence already.
   * Checked at every step: past 2^53 the increment stops moving and the loop would never end.
   */
  takeIdentity(): number {
    // Past every value held or sent, the next one is free: no lookup per new row.
    if (this.nextIdentity > this.#ceiling && Number.isSafeInteger(this.nextIdentity)) return this.nextIdentity++
    const what = `the next ${this.table.storage.identityField} value of storage ${this.table.storage.name}`
    while (this.#held(withinSequence(this.nextIdentity, what))) this.nextIdentity++
    return this.nextIdentity++
  }

  /** Whether a row of the table or a value sent in this plan holds an Identity value (those handed out lie behind `nextIdentity`). */
  #held(value: number): boolean {
    return this.#claimed.has(value) || this.table.identityOwner(value) !== undefined
  }
}

/** What one table's part of the changes holds; opaque outside the store. */
export interface TableChange {
  table: Table
  puts: Row[]
  deletes: number[]
  nextId: number
  nextIdentity: number
  nextRowOrder: number
}

/** A plan across tables, with the installation's row-version counter advanced only in the plan. */
export class Plan {
  readonly #tables = new Map<Table, TablePlan>()
  /** The store's generation when the plan began: its changes hold only if no write came since (a plan may be made in slices). */
  readonly #generation: number
  #nextVersion: number

  constructor(state: StoreState) {
    this.#generation = state.generation
    this.#nextVersion = state.nextVersion
  }

  of(table: Table): TablePlan {
    let plan = this.#tables.get(table)
    if (plan === undefined) this.#tables.set(table, (plan = new TablePlan(table)))
    return plan
  }

  /** The tables the plan has touched so far. */
  tablePlans(): Iterable<TablePlan> {
    return this.#tables.values()
  }

  /** A fresh row version; every written row gets its own, as a database rowversion does. */
  takeVersion(): number {
    withinSequence(this.#nextVersion, 'the next row version (TIMESTAMP)')
    return this.#nextVersion++
  }

  /**
   * The plan's writes. `deletesOf` gives a table's deletes when the caller kept them in order as it
   * added them (a big delete), instead of their being copied out of the set here.
   */
  changes(deletesOf: (plan: TablePlan) => number[] = (p) => [...p.deletes]): StoreChanges {
    const work = this.changesInSteps(deletesOf)
    for (;;) {
      const step = work.next()
      if (step.done === true) return step.value
    }
  }

  /**
   * changes, as work that may pause every `COPY_STEP` rows: the rows of a 300,000-row save copied out
   * of the plan's maps at once held the loop about 25 ms.
   */
  *changesInSteps(deletesOf: (plan: TablePlan) => number[] = (p) => [...p.deletes]): Generator<void, StoreChanges, void> {
    const tables: TableChange[] = []
    for (const p of this.#tables.values()) {
      const puts: Row[] = []
      for (const row of p.puts.values()) {
        puts.push(row)
        if (puts.length % COPY_STEP === 0) yield
      }
      tables.push({ table: p.table, puts, deletes: deletesOf(p), nextId: p.nextId, nextIdentity: p.nextIdentity, nextRowOrder: p.nextRowOrder })
    }
    return { kind: 'changes', generation: this.#generation, tables, nextVersion: this.#nextVersion }
  }
}

/**
 * Planned changes applied in two steps, so that a big save is written with turns of the event loop
 * between slices and still seen whole or not at all: `step` writes the new rows of each table into
 * the slots past its last row, where no read looks (engine/table.ts's `stage`), a few at a time;
 * `finish` then makes them rows and writes the rest (updated rows, deletes, sequences) in one
 * synchronous step, as `applyChanges` does. Both hold only while the store is at the changes'
 * generation: the caller checks it before each step (a write that lands between slices may have
 * appended rows into the same slots), and plans again if it moved. Staged rows left behind are
 * written over by the next rows appended.
 */
export interface StagedChanges {
  /** Stages new rows until `stop` says so (asked after every row); true when every new row is staged. */
  step(stop: () => boolean): boolean
  /** Applies the changes, the staged rows made visible in one step (the store must still be at the changes' generation). */
  finish(): void
}

/** Begins applying planned changes in slices (`StagedChanges`). */
export function stageChanges(state: StoreState, changes: StoreChanges): StagedChanges {
  // Rows are sorted as they are staged, a slice at a time: new rows have Ids from the table's next one
  // on (ascending, as the plan took them), and are staged; the others are updates, written by `finish`.
  const tables = (changes.tables as TableChange[]).map((change) => ({
    change,
    read: 0,
    creates: [] as Row[],
    updates: [] as Row[],
    base: change.table.slots,
    reserving: undefined as Generator<void, void> | undefined,
  }))
  let current = 0
  return {
    step(stop) {
      for (; current < tables.length; current++) {
        const part = tables[current] as (typeof tables)[number]
        const { puts, table } = part.change
        // Room for every row at once (a table grown row by row would copy its columns again and again);
        // for a big table a column at a time: a dozen columns of 300,000 rows grown in one go held the
        // loop 20 ms. Between steps the columns differ in length, past the rows any read looks at; a
        // write meanwhile voids the plan.
        if (part.read === 0) {
          const rows = part.base + puts.length
          if (rows < RESERVE_IN_STEPS_ROWS) table.reserve(rows)
          else {
            part.reserving ??= table.reserveInSteps(rows)
            while (part.reserving.next().done !== true) if (stop()) return false
          }
        }
        while (part.read < puts.length) {
          const row = puts[part.read++] as Row
          if (row.Id < table.nextId) {
            part.updates.push(row)
            continue
          }
          part.creates.push(row)
          table.stage(part.creates, part.creates.length - 1, part.creates.length, part.base)
          if (stop()) return current === tables.length - 1 && part.read === puts.length
        }
      }
      return true
    },
    finish() {
      if (changes.generation !== state.generation) {
        throw new Error(`changes were planned at store generation ${changes.generation} but the store is at ${state.generation}; plan again`)
      }
      for (const { change, creates, updates, base } of tables) {
        const { table } = change
        for (const id of change.deletes) {
          table.remove(id)
          state.attachments.removeForRow(table.applicationId, table.relationKey, id)
        }
        table.putAll(updates)
        table.publish(base, creates)
        table.nextId = change.nextId
        table.nextIdentity = change.nextIdentity
        table.nextRowOrder = change.nextRowOrder
      }
      state.nextVersion = changes.nextVersion
      state.generation++
    },
  }
}

/**
 * A big delete's changes applied in three steps, so that it is written with turns of the event loop
 * between slices and still seen whole or not at all: `step` finds the rows to remove, table by table
 * (engine/table.ts's `prepareRemoval`), and their attachments, a few at a time, changing nothing;
 * `finish` removes them all for every read in one step (a write per row, `hide`) and applies the
 * rest as `applyChanges` does; `sweep` then takes the rows out of the tables' indexes, a few at a
 * time (until it has, the tables' look-ups pass over them). `step` and `finish` hold only while the
 * store is at the changes' generation (the caller checks it after each wait, and plans again if it
 * moved); `sweep` holds whatever was written since.
 */
export interface StagedDeletes {
  /** Finds rows and attachments until `stop` says so (asked after every row); true when all are found. */
  step(stop: () => boolean): boolean
  /** Applies the changes, every row removed in one step (the store must still be at the changes' generation). */
  finish(): void
  /** Takes removed rows out of the indexes until `stop` says so; true when all are out. */
  sweep(stop: () => boolean): boolean
}

/** Attachments looked through between two chances for a slice to end. */
const ATTACHMENTS_PER_PAUSE = 1024

/** Begins applying a big delete's planned changes in slices (`StagedDeletes`). */
export function stageDeletes(state: StoreState, changes: StoreChanges): StagedDeletes {
  const parts = (changes.tables as TableChange[]).map((change) => ({ change, removal: new Removal(change.deletes) }))
  let attachmentIds: number[] = []
  const findAttachments = attachmentsOf(
    state,
    parts.map(({ change }) => change),
  )
  let found = false
  return {
    step(stop) {
      for (const { change, removal } of parts) if (!change.table.prepareRemoval(removal, stop)) return false
      while (!found) {
        const next = findAttachments.next()
        if (next.done === true) {
          attachmentIds = next.value
          found = true
        } else if (stop()) return false
      }
      return true
    },
    finish() {
      if (changes.generation !== state.generation) {
        throw new Error(`changes were planned at store generation ${changes.generation} but the store is at ${state.generation}; plan again`)
      }
      if (!found) throw new Error('the delete is not staged yet: step until it answers true')
      for (const { change, removal } of parts) {
        const { table } = change
        table.hide(removal)
        table.putAll(change.puts)
        table.nextId = change.nextId
        table.nextIdentity = change.nextIdentity
        table.nextRowOrder = change.nextRowOrder
      }
      state.attachments.removeIds(attachmentIds)
      state.nextVersion = changes.nextVersion
      state.generation++
    },
    sweep(stop) {
      for (const { change, removal } of parts) if (!change.table.sweep(removal, stop)) return false
      return true
    },
  }
}

/** The Ids of the attachments of the rows the changes delete (what `removeForRow` forgets for each); work that may pause. */
function* attachmentsOf(state: StoreState, changes: readonly TableChange[]): Generator<void, number[], void> {
  // Each table's attachments by row first, in one look through them all: most tables have none, and their rows are not looked up.
  const byTable = new Map<Table, Map<number, number[]>>()
  const tables = new Map<string, Table>()
  const keyOf = (applicationId: string, relationKey: string | null): string => JSON.stringify([applicationId, relationKey])
  for (const { table } of changes) tables.set(keyOf(table.applicationId, table.relationKey), table)
  let looked = 0
  for (const attachment of state.attachments.values()) {
    if (++looked % ATTACHMENTS_PER_PAUSE === 0) yield
    const table = tables.get(keyOf(attachment.applicationId, attachment.relationKey))
    if (table === undefined) continue
    let byRow = byTable.get(table)
    if (byRow === undefined) byTable.set(table, (byRow = new Map()))
    const ids = byRow.get(attachment.parentId)
    if (ids === undefined) byRow.set(attachment.parentId, [attachment.id])
    else ids.push(attachment.id)
  }
  const found: number[] = []
  for (const { table, deletes } of changes) {
    const byRow = byTable.get(table)
    if (byRow === undefined) continue
    for (let i = 0; i < deletes.length; i++) {
      const ids = byRow.get(deletes[i] as number)
      if (ids !== undefined) for (const id of ids) found.push(id)
      if ((i + 1) % ATTACHMENTS_PER_PAUSE === 0) yield
    }
  }
  return found
}

/**
 * Writes planned changes. Business checks all happened in the plan, so nothing here can fail
 * for a business reason; applying changes planned before another write is a programming error
 * (the checks may no longer hold) and throws.
 */
export function applyChanges(state: StoreState, changes: StoreChanges): void {
  if (changes.generation !== state.generation) {
    throw new Error(`changes were planned at store generation ${changes.generation} but the store is at ${state.generation}; plan again`)
  }
  for (const change of changes.tables as TableChange[]) {
    const { table } = change
    for (const id of change.deletes) {
      table.remove(id)
      state.attachments.removeForRow(table.applicationId, table.relationKey, id)
    }
    table.putAll(change.puts)
    table.nextId = change.nextId
    table.nextIdentity = change.nextIdentity
    table.nextRowOrder = change.nextRowOrder
  }
  state.nextVersion = changes.nextVersion
  state.generation++
}
