import { columnFor, columnKindOf, numbersOf, valuesOf, type Column } from './columns.ts'
import { IntMap } from './int-map.ts'
import { slotOrder, sortSlots, type SlotOrder } from './order-slots.ts'
import { ReadyBytes } from '../../wire/ready-bytes.ts'
import { RowBytes } from './row-bytes.ts'
import { projectionKey, projectionOf, serializeRow, type Projection } from '../model/row-json.ts'
import { Selections } from './selections.ts'
import { columnsOf, fieldLookupOf } from '../model/system-fields.ts'
import { ownValue, setOwn } from '../model/field-values.ts'
import type { ChunkValues, ColumnChunk, ColumnKind, FieldDef, FieldLookup, FieldValue, OrderItem, Row, StorageDef } from '../model/types.ts'

const OPEN_BRACKET = Buffer.from('[')
const CLOSE_BRACKET = Buffer.from(']')
const COMMA = Buffer.from(',')
/** Pieces of a page written as they are; a page of more is joined into one buffer (see Table.page). */
const MAX_PIECES = 64

/** Slots a new table has room for; it doubles as rows come. */
const INITIAL_CAPACITY = 64

/** Bytes of ready row texts a table keeps per projection; past it the oldest are serialized again when read. */
export const ROW_BYTES_LIMIT = 128 * 1024 * 1024

/**
 * The rows a table held when the image was opened, read a chunk at a time in Id order however the
 * table changes meanwhile: before a row not read yet is written over or removed, the table hands
 * the image its values as they were, and rows added after the opening are left out. So a snapshot
 * written in slices, with writes landing between them, holds the data of one moment.
 */
export interface TableImage {
  readonly columns: readonly string[]
  readonly kinds: readonly ColumnKind[]
  /** Rows in the image: the rows the table held at the opening. */
  readonly rows: number
  /** The next rows (at most `maxRows`), or undefined when every row was read (the image is closed then). */
  read(maxRows: number): ColumnChunk | undefined
  /** Stops keeping rows for the image. */
  close(): void
}

/** What an open image needs of the table between its reads. */
interface ImageState {
  /** The next Id to read. */
  cursor: number
  /** Rows with this Id or a larger one came after the opening. */
  readonly cutoff: number
  /** Rows written over or removed since the opening, as they were, by Id (values in column order). */
  readonly saved: Map<number, FieldValue[]>
}

/** A filter as the engine runs it: a test of one row (read through a cursor, never built). */
export type RowTest = (row: Row) => boolean

/** What a query selects: slots (in order), read forwards or backwards. */
export interface Selected {
  slots: readonly number[] | null
  /** Rows selected; with `slots` null, the first `count` alive slots in order (a table without deletions). */
  count: number
  reversed: boolean
}

/**
 * One storage's rows (a master table, or one detail table), stored by column (see columns.ts)
 * in slots that follow Id order (Ids only grow; deleted slots are reclaimed by compaction), with
 * everything that makes reads fast: identity values in use, detail rows by master Id, compiled
 * filters, the results of recent queries kept across writes, and each row's JSON text as bytes
 * per projection. `get` gives a row as an object, a copy: rows change only through `put`.
 */
export class Table {
  readonly applicationId: string
  /** null for the master table. */
  readonly relationKey: string | null
  readonly storage: StorageDef
  /** Field holding the master's Id (detail tables), null for the master table. */
  readonly masterField: string | null
  readonly columns: readonly string[]
  readonly fields: FieldLookup
  /** The storage's own fields by name (the first of a name, as `storage.fields.find` would give). */
  readonly fieldDefs: ReadonlyMap<string, FieldDef>

  /** Next database Id; Ids only grow, so slots follow Id order. */
  nextId = 1
  /** Next Identity value the sequence would offer (taken values are skipped when handed out). */
  nextIdentity = 1
  /** Position of the next created row within this table. */
  nextRowOrder = 1

  #capacity = INITIAL_CAPACITY
  /** Slots used, alive or dead. */
  #count = 0
  #size = 0
  #alive = new Uint8Array(INITIAL_CAPACITY)
  readonly #data: Column[]
  readonly #byName = new Map<string, Column>()
  readonly #ids: Column
  readonly #identityColumn: Column
  /** The master Id column (detail tables), null for the master table. */
  readonly #masterColumn: Column | null
  readonly #identities = new IntMap<number>()
  /**
   * Rows hidden by `hide` and not yet swept out of the identities index: while there are any, a
   * look-up through it passes over rows that are not alive.
   */
  #unswept = 0
  #identityCeiling = Number.NEGATIVE_INFINITY
  /**
   * The detail rows of each master (detail tables), as lists in ascending Id order threaded
   * through the slots: the first detail Id per master Id here, and each slot's next detail Id of
   * the same master in `#nextDetail` (NaN: the last). No array per master: a million of them, each
   * made while a million orders load, were most of what the young generation's collections had to
   * copy then (pauses of 100 ms beside a reset), and 40 MB more heap.
   */
  readonly #firstDetail: IntMap<number> | null
  #nextDetail: Float64Array
  readonly #materialize: (columns: readonly Column[], slot: number) => Row
  readonly #blank: () => Row
  readonly #writeRow: RowWriter
  readonly #selections = new Selections()
  readonly #bytes = new Map<string, RowBytes>()
  readonly #projections = new Map<string, Projection>()
  readonly #cursor: { row: Row; position: { slot: number } }
  /** Images being read (see TableImage); empty but while a snapshot is written. */
  readonly #images = new Set<ImageState>()

  constructor(applicationId: string, relationKey: string | null, storage: StorageDef, masterField: string | null) {
    this.applicationId = applicationId
    this.relationKey = relationKey
    this.storage = storage
    this.masterField = masterField
    this.columns = columnsOf(storage)
    this.fields = fieldLookupOf(storage)
    const defs = new Map<string, FieldDef>()
    for (const field of storage.fields) if (!defs.has(field.name)) defs.set(field.name, field)
    this.fieldDefs = defs
    this.#firstDetail = masterField === null ? null : new IntMap()
    this.#nextDetail = new Float64Array(masterField === null ? 0 : INITIAL_CAPACITY)
    this.#data = this.columns.map((name) => columnFor(this.fields.get(name) ?? 'String', INITIAL_CAPACITY))
    this.columns.forEach((name, i) => this.#byName.set(name, this.#data[i] as Column))
    this.#ids = this.#byName.get('Id') as Column
    this.#identityColumn = this.#byName.get(storage.identityField) as Column
    this.#masterColumn = masterField === null ? null : (this.#byName.get(masterField) as Column)
    this.#materialize = materializer(this.columns)
    this.#blank = blankRow(this.columns)
    this.#writeRow = rowWriter(this.columns, [])
    this.#cursor = cursorOver(this.columns, this.#data)
  }

  get size(): number {
    return this.#size
  }

  /** How each column holds its values, in column order. */
  get kinds(): ColumnKind[] {
    return this.columns.map((name) => columnKindOf(this.fields.get(name) ?? 'String'))
  }

  get(id: number): Row | undefined {
    const slot = this.#slotOf(id)
    return slot < 0 ? undefined : this.#materialize(this.#data, slot)
  }

  /** Id of the row holding an Identity value, if any. */
  identityOwner(value: number): number | undefined {
    const id = this.#identities.get(value)
    // A row a big delete hid may still be named here until it is swept (see `hide`): it holds nothing.
    return id === undefined || this.#unswept === 0 || this.#slotOf(id) >= 0 ? id : undefined
  }

  /**
   * No row has ever held an Identity value above this one (deletes leave it as it was): the
   * sequence's values past it are free without looking each one up.
   */
  get identityCeiling(): number {
    return this.#identityCeiling
  }

  /** Ids of the detail rows under a master (detail tables only; empty otherwise). */
  detailIdsOf(masterId: number): readonly number[] {
    let id = this.#firstDetail?.get(masterId)
    if (id === undefined) return EMPTY
    const ids: number[] = []
    while (id === id) {
      ids.push(id as number)
      id = this.#nextDetail[this.#slotOf(id as number)] as number
    }
    return ids
  }

  /** A row object with every column (null when absent), in column order. */
  makeRow(values: Readonly<Record<string, FieldValue | undefined>>): Row {
    const row = {} as Row
    for (const name of this.columns) setOwn(row, name, ownValue(values, name) ?? null)
    return row
  }

  /**
   * A row object with every column null, in column order: one shape for every row of the table
   * made this way (a row built field by field, or by spreading, ends in a slow dictionary shape).
   */
  blankRow(): Row {
    return this.#blank()
  }

  /**
   * Writes rows: new ones (Ids larger than every Id so far, ascending) are appended, in one pass
   * with the room for all of them made once; the others replace the rows with their Ids.
   */
  putAll(rows: readonly Readonly<Row>[]): void {
    // Room for the new rows only: a table loaded to the brim (a million orders) must not double
    // every column, a second's work, for a save that updates one row.
    const last = this.#count === 0 ? Number.NEGATIVE_INFINITY : (this.#ids.get(this.#count - 1) as number)
    let added = 0
    for (const row of rows) if (row.Id > last) added++
    if (this.#count + added > this.#capacity) {
      let capacity = this.#capacity
      while (capacity < this.#count + added) capacity *= 2
      this.#grow(capacity)
    }
    for (const row of rows) this.put(row)
  }

  /** Slots used, alive or dead: where rows appended next go (`stage` writes there). */
  get slots(): number {
    return this.#count
  }

  /**
   * Writes new rows `rows[from..to)` (Ids larger than every Id so far, ascending) into slots
   * `base + i`, past the table's last slot: no read looks there (reads stop at the table's count),
   * so rows can be written a few at a time while reads go on. `publish` makes them rows in one
   * step. Slots staged and never published are written over by the next rows appended.
   */
  stage(rows: readonly Readonly<Row>[], from: number, to: number, base: number): void {
    if (base + rows.length > this.#capacity) {
      let capacity = this.#capacity
      while (capacity < base + rows.length) capacity *= 2
      this.#grow(capacity)
    }
    for (let i = from; i < to; i++) this.#write(base + i, rows[i] as Readonly<Row>)
  }

  /**
   * Makes rows of the rows staged from slot `base` on (all of `rows`, as `stage` wrote them): what
   * appending them does, less the writing. The table must not have changed since (`base` is still
   * its count).
   */
  publish(base: number, rows: readonly Readonly<Row>[]): void {
    if (rows.length === 0) return
    if (base !== this.#count) throw new Error(`rows of ${this.storage.name} were staged from slot ${base}, but the table has ${this.#count} now`)
    const last = this.#count === 0 ? Number.NEGATIVE_INFINITY : (this.#ids.get(this.#count - 1) as number)
    if ((this.#ids.get(base) as number) <= last)
      throw new Error(`row ${this.#ids.get(base)} of ${this.storage.name} comes after row ${last}: rows are appended in Id order`)
    for (let i = 0; i < rows.length; i++) {
      const slot = base + i
      this.#alive[slot] = 1
      this.#count++
      this.#size++
      this.#index(slot)
    }
  }

  /** Adds a new row (its Id larger than every Id so far), or replaces the row with the same Id. */
  put(row: Readonly<Row>): void {
    // A new row comes after the last one: no slot to look for.
    if (this.#count === 0 || row.Id > (this.#ids.get(this.#count - 1) as number)) {
      // Kept results see it as a slot past the ones they have seen (see selections.ts).
      this.load(row)
      return
    }
    const slot = this.#slotOf(row.Id)
    if (slot >= 0) {
      if (this.#images.size > 0) this.#preserve(slot)
      this.#unindex(slot)
      this.#write(slot, row)
      this.#index(slot)
      this.#forget(slot)
      return
    }
    this.load(row)
  }

  remove(id: number): void {
    const slot = this.#slotOf(id)
    if (slot < 0) return
    if (this.#images.size > 0) this.#preserve(slot)
    this.#unindex(slot)
    this.#alive[slot] = 0
    this.#size--
    this.#forget(slot)
    // Many dead slots: the table is rebuilt without them (results and texts are slot-based, so they go too).
    if (this.#count > 1024 && this.#size * 2 < this.#count) this.#compact()
  }

  /**
   * Finds the slots of rows to remove and what indexes them (`removal.ids`, every one a row of this
   * table), until `stop` says so (asked after every row) or all are found; true when they are.
   * Changes nothing: the first of the three steps a big delete removes rows in (`hide`, `sweep`),
   * so that it can be done a slice at a time while reads go on.
   */
  prepareRemoval(removal: Removal, stop: () => boolean): boolean {
    const { ids, slots, identities, masters } = removal
    while (removal.prepared < ids.length) {
      const i = removal.prepared++
      const slot = this.#slotOf(ids[i] as number)
      slots[i] = slot
      if (slot >= 0) {
        const identity = this.#identityColumn.get(slot)
        identities[i] = typeof identity === 'number' ? identity : Number.NaN
        const masterId = this.#masterColumn?.get(slot)
        masters[i] = typeof masterId === 'number' ? masterId : Number.NaN
      }
      if (stop()) break
    }
    return removal.prepared >= ids.length
  }

  /**
   * Removes the rows `prepareRemoval` found, all at once, for every read: one write per row, and
   * the results kept for queries dropped. The table must not have changed since they were found.
   * Detail rows leave their masters' lists here, before their slots can be freed; the identities
   * index still names the rows until `sweep` takes them out, a slice at a time, and meanwhile
   * `identityOwner` passes over them. The row texts
   * kept for them stay where they are (no read looks at a slot that is not alive) until compaction
   * forgets them with the slots it frees.
   */
  hide(removal: Removal): void {
    if (removal.prepared < removal.ids.length)
      throw new Error(`the removal from ${this.storage.name} is not prepared yet: ${removal.prepared} of ${removal.ids.length} rows found`)
    const { ids, slots, masters } = removal
    // Out of their masters' lists first, while every slot of a list can still be followed: the lists
    // run through the slots, which compaction may free once the rows are gone. Ids come in order,
    // so a master's rows mostly leave from the head of its list.
    if (this.#firstDetail !== null) {
      for (let i = 0; i < slots.length; i++) {
        const slot = slots[i] as number
        const masterId = masters[i] as number
        if (slot >= 0 && masterId === masterId && this.#alive[slot] === 1) this.#unlink(masterId, ids[i] as number, slot)
      }
    }
    for (let i = 0; i < slots.length; i++) {
      const slot = slots[i] as number
      if (slot < 0 || this.#alive[slot] !== 1) continue
      this.#alive[slot] = 0
      this.#size--
    }
    this.#unswept += slots.length
    removal.hidden = true
    this.#selections.clear()
    if (this.#count > 1024 && this.#size * 2 < this.#count) this.#compact()
  }

  /**
   * Takes rows `hide` removed out of the identities index until `stop` says so (asked after every
   * row) or all are; true when they are. Safe between any two writes: an Identity value a new row
   * holds by now stays its own.
   */
  sweep(removal: Removal, stop: () => boolean): boolean {
    if (!removal.hidden) throw new Error(`the removal from ${this.storage.name} is not hidden yet`)
    const { ids, slots, identities } = removal
    while (removal.swept < ids.length) {
      const i = removal.swept++
      this.#unswept--
      if ((slots[i] as number) < 0) continue
      const id = ids[i] as number
      const identity = identities[i] as number
      if (identity === identity && this.#identities.get(identity) === id) this.#identities.delete(identity)
      if (stop()) break
    }
    return removal.swept >= ids.length
  }

  /** Appends a row; Ids must come in ascending order (start-up loads and new rows both do). */
  load(row: Readonly<Row>): void {
    this.#write(this.#append(row.Id), row)
    this.#index(this.#count - 1)
  }

  /**
   * A function that appends rows at start-up from a fixture's (or the generator's) values, with
   * the fields the store assigns given apart: `assigned[i]` is the value of `assignedNames[i]`
   * (number columns all; NaN for null, as the columns hold it). No row object is built for a row,
   * and its columns are read by name in code made for this table (see rowWriter), because reading
   * a row's fields by computed names cost more than the rest of loading a million rows.
   */
  loader(assignedNames: readonly string[]): (source: Readonly<Record<string, FieldValue | undefined>>, assigned: Float64Array) => void {
    for (const name of assignedNames)
      if (numbersOf(this.#byName.get(name) as Column) === undefined) throw new Error(`${name} of ${this.storage.name} is not a number column`)
    const write = rowWriter(this.columns, assignedNames)
    return (source, assigned) => {
      const slot = this.#append(source.Id as number)
      write(this.#data, slot, source, assigned)
      this.#index(slot)
    }
  }

  /**
   * Appends the rows of a chunk (Ids in `columns[0]`, ascending, larger than every Id so far), each
   * column copied in one pass: how a snapshot's rows come back without a row object each.
   */
  appendChunk(chunk: ColumnChunk): void {
    const count = chunk.count
    if (count === 0) return
    if (chunk.columns.length !== this.#data.length)
      throw new Error(`a chunk of ${chunk.columns.length} columns for ${this.storage.name}, which has ${this.#data.length}`)
    const ids = chunk.columns[0] as ChunkValues
    if (!(ids instanceof Float64Array)) throw new Error(`the Ids of a chunk of ${this.storage.name} are not numbers`)
    let last = this.#count === 0 ? Number.NEGATIVE_INFINITY : (this.#ids.get(this.#count - 1) as number)
    for (let i = 0; i < count; i++) {
      const id = ids[i] as number
      if (!(id > last)) throw new Error(`row ${id} of ${this.storage.name} comes after row ${last}: rows are appended in Id order`)
      last = id
    }
    if (this.#count + count > this.#capacity) this.#grow(Math.max(this.#count + count, this.#capacity * 2))
    const first = this.#count
    this.#data.forEach((column, c) => column.setRange(first, chunk.columns[c] as ChunkValues, count))
    this.#alive.fill(1, first, first + count)
    this.#count += count
    this.#size += count
    for (let slot = first; slot < this.#count; slot++) this.#index(slot)
  }

  /** The rows as they are now, to be read a chunk at a time whatever happens to the table meanwhile (see TableImage). */
  openImage(): TableImage {
    const ids = numbersOf(this.#ids) as Float64Array
    const state: ImageState = {
      cursor: Number.NEGATIVE_INFINITY,
      cutoff: this.#count === 0 ? Number.NEGATIVE_INFINITY : (ids[this.#count - 1] as number) + 1,
      saved: new Map(),
    }
    this.#images.add(state)
    const close = (): void => {
      this.#images.delete(state)
      state.saved.clear()
    }
    return {
      columns: this.columns,
      kinds: this.kinds,
      rows: this.#size,
      read: (maxRows) => {
        if (!this.#images.has(state)) return undefined
        const chunk = this.#readImage(state, maxRows)
        if (chunk === undefined) close()
        return chunk
      },
      close,
    }
  }

  /** A row about to be written over or removed, kept as it is for each image that has not read it yet. */
  #preserve(slot: number): void {
    const id = this.#ids.get(slot) as number
    for (const image of this.#images) {
      if (id >= image.cursor && id < image.cutoff && !image.saved.has(id))
        image.saved.set(
          id,
          this.#data.map((column) => column.get(slot)),
        )
    }
  }

  /** The image's next rows: alive rows from its cursor on, below its cutoff, with the kept ones in their place. */
  #readImage(image: ImageState, maxRows: number): ColumnChunk | undefined {
    const ids = numbersOf(this.#ids) as Float64Array
    // The first slot at or past the cursor (slots follow Id order, dead ones included).
    let low = 0
    let high = this.#count
    while (low < high) {
      const mid = (low + high) >>> 1
      if ((ids[mid] as number) < image.cursor) low = mid + 1
      else high = mid
    }
    let slot = low
    const savedIds = image.saved.size === 0 ? EMPTY : [...image.saved.keys()].filter((id) => id >= image.cursor).sort((a, b) => a - b)
    // Where each row of the chunk comes from: a slot, or (negative) the kept row savedIds[-source - 1].
    const sources: number[] = []
    let k = 0
    let lastId = image.cursor
    while (sources.length < maxRows) {
      while (slot < this.#count && this.#alive[slot] !== 1) slot++
      const liveId = slot < this.#count && (ids[slot] as number) < image.cutoff ? (ids[slot] as number) : Number.POSITIVE_INFINITY
      const savedId = k < savedIds.length ? (savedIds[k] as number) : Number.POSITIVE_INFINITY
      if (liveId === Number.POSITIVE_INFINITY && savedId === Number.POSITIVE_INFINITY) break
      if (savedId <= liveId) {
        sources.push(-(k + 1))
        // Written over since the opening: the kept values stand for the row.
        if (savedId === liveId) slot++
        k++
        lastId = savedId
      } else {
        sources.push(slot)
        slot++
        lastId = liveId
      }
    }
    if (sources.length === 0) return undefined
    const count = sources.length
    const kept = savedIds.slice(0, k).map((id) => image.saved.get(id) as FieldValue[])
    const columns = this.#data.map((column, c): ChunkValues => {
      const values = valuesOf(column)
      if (values instanceof Float64Array) {
        const out = new Float64Array(count)
        for (let i = 0; i < count; i++) {
          const source = sources[i] as number
          if (source >= 0) out[i] = values[source] as number
          else {
            const value = (kept[-source - 1] as FieldValue[])[c]
            out[i] = typeof value === 'number' ? value : Number.NaN
          }
        }
        return out
      }
      const out = new Array<FieldValue>(count)
      for (let i = 0; i < count; i++) {
        const source = sources[i] as number
        out[i] = source >= 0 ? (values[source] ?? null) : ((kept[-source - 1] as FieldValue[])[c] ?? null)
      }
      return out
    })
    for (const id of savedIds.slice(0, k)) image.saved.delete(id)
    image.cursor = lastId + 1
    return { count, columns }
  }

  /** Room for `rows` rows in all, so a bulk load does not copy its columns while growing. */
  reserve(rows: number): void {
    for (const _step of this.reserveInSteps(rows));
  }

  /**
   * reserve, a column per step: for a table nobody reads yet (a state being built), since between
   * two steps its columns differ in length. A dozen columns of two million rows are about 40 ms of
   * filling at once.
   */
  *reserveInSteps(rows: number): Generator<void, void> {
    if (rows <= this.#capacity) return
    for (const column of this.#data) {
      yield* column.growInSteps(rows)
      yield
    }
    this.#growRest(rows)
  }

  /** A new alive slot for an Id larger than every Id so far. */
  #append(id: number): number {
    const last = this.#count === 0 ? Number.NEGATIVE_INFINITY : (this.#ids.get(this.#count - 1) as number)
    if (id <= last) throw new Error(`row ${id} of ${this.storage.name} comes after row ${last}: rows are appended in Id order`)
    if (this.#count === this.#capacity) this.#grow(this.#capacity * 2)
    const slot = this.#count++
    this.#alive[slot] = 1
    this.#size++
    return slot
  }

  /** Every row, in Id order. */
  forEachRow(fn: (row: Readonly<Row>) => void): void {
    for (let slot = 0; slot < this.#count; slot++) if (this.#alive[slot] === 1) fn(this.#materialize(this.#data, slot))
  }

  /** One column's value of every row, with the row's Id, in Id order, without building the rows (unique field checks). */
  forEachValue(name: string, fn: (id: number, value: FieldValue) => void): void {
    const column = this.#byName.get(name)
    if (column === undefined) return
    for (let slot = 0; slot < this.#count; slot++) if (this.#alive[slot] === 1) fn(this.#ids.get(slot) as number, column.get(slot))
  }

  /**
   * The projection for a hidden-fields set, built once per distinct set. Names that are not
   * columns of this table do not count, so a set hiding only master fields shares the detail
   * rows' full texts instead of caching identical copies.
   */
  projection(hidden: readonly string[]): Projection {
    const requested = projectionKey(hidden)
    let projection = this.#projections.get(requested)
    if (projection === undefined) {
      projection = projectionOf(
        this.columns,
        hidden.filter((name) => this.columns.includes(name)),
      )
      this.#projections.set(requested, projection)
    }
    return projection
  }

  /**
   * The slots a filter selects, in the order asked for (ties and no order: ascending Id). Kept per
   * (filter text, order) and brought up to date after writes (see selections.ts). `Id asc` is the
   * table's own order and `Id desc` reads it backwards: neither sorts anything. `masterId`, on a
   * detail table, is the master Id the filter requires (`MasterId eq N`): that master's details are
   * tested, not every detail.
   */
  select(filterText: string | null, predicate: RowTest | null, orderBy: readonly OrderItem[], masterId: number | null = null): Selected {
    const reversed = orderBy.length === 1 && orderBy[0]?.field === 'Id' && orderBy[0].direction === 'desc'
    const order = orderBy.length === 1 && orderBy[0]?.field === 'Id' ? [] : orderBy
    if (predicate === null && order.length === 0) {
      // A table without deleted rows is its own list: slot i is the i-th row.
      if (this.#size === this.#count) return { slots: null, count: this.#size, reversed }
      return {
        slots: this.#selections.get('', this.#isAlive, this.#count, () => ({ slots: this.#aliveSlots(), test: () => true, order: [] })),
        count: this.#size,
        reversed,
      }
    }
    if (masterId !== null && this.masterField !== null) {
      const test = this.#tester(predicate)
      let slots = this.detailIdsOf(masterId)
        .map((id) => this.#slotOf(id))
        .filter((slot) => slot >= 0 && test(slot))
      if (order.length > 0) slots = sortSlots(slots, this.#order(order))
      return { slots, count: slots.length, reversed }
    }
    const key = `${filterText ?? ''}\u0000${order.map((o) => `${o.field} ${o.direction}`).join(',')}`
    const slots = this.#selections.get(key, this.#isAlive, this.#count, () => {
      const test = this.#tester(predicate)
      const slotOrders = this.#order(order)
      const selected: number[] = []
      for (let slot = 0; slot < this.#count; slot++) if (this.#alive[slot] === 1 && test(slot)) selected.push(slot)
      return { slots: order.length > 0 ? sortSlots(selected, slotOrders) : selected, test, order: slotOrders }
    })
    return { slots, count: slots.length, reversed }
  }

  /** The slot of the i-th selected row. */
  slotAt(selected: Selected, i: number): number {
    const index = selected.reversed ? selected.count - 1 - i : i
    return selected.slots === null ? index : (selected.slots[index] as number)
  }

  /**
   * Rows `from` to `to` (exclusive) of a selection as a JSON array in UTF-8 bytes: each row's
   * text is serialized at most once between writes to it and kept as bytes, and the page is made
   * of views of those bytes, one per run of rows stored one after the other, with the brackets
   * and commas between: nothing is copied. A page of many short runs (rows written one by one
   * since they were read in this order) is joined into one buffer instead, since a write per
   * piece would cost more than the copy.
   */
  page(selected: Selected, from: number, to: number, projection: Projection): ReadyBytes {
    const bytes = this.#bytesFor(projection)
    // Rows not held are stored first, in page order, so that they follow one another.
    for (let i = from; i < to; i++) {
      const slot = this.slotAt(selected, i)
      if (bytes.lengthOf(slot) < 0) bytes.store(slot, serializeRow(this.#materialize(this.#data, slot), projection))
    }
    const chunks: Buffer[] = [OPEN_BRACKET]
    let length = 2
    let i = from
    while (i < to) {
      if (i > from) {
        chunks.push(COMMA)
        length += 1
      }
      const first = this.slotAt(selected, i)
      // Stored just above unless an arena was dropped meanwhile; then it is serialized again.
      if (bytes.lengthOf(first) < 0) bytes.store(first, serializeRow(this.#materialize(this.#data, first), projection))
      let last = first
      for (i += 1; i < to; i++) {
        const next = this.slotAt(selected, i)
        if (!bytes.follows(last, next)) break
        last = next
      }
      const run = bytes.run(first, last)
      chunks.push(run)
      length += run.length
    }
    chunks.push(CLOSE_BRACKET)
    return chunks.length > MAX_PIECES ? new ReadyBytes([Buffer.concat(chunks, length)], length) : new ReadyBytes(chunks, length)
  }

  #bytesFor(projection: Projection): RowBytes {
    let bytes = this.#bytes.get(projection.key)
    if (bytes === undefined) this.#bytes.set(projection.key, (bytes = new RowBytes(this.#capacity, ROW_BYTES_LIMIT)))
    return bytes
  }

  readonly #isAlive = (slot: number): boolean => slot < this.#count && this.#alive[slot] === 1

  #tester(predicate: RowTest | null): (slot: number) => boolean {
    if (predicate === null) return () => true
    const { row, position } = this.#cursor
    return (slot) => {
      position.slot = slot
      return predicate(row)
    }
  }

  #order(orderBy: readonly OrderItem[]): SlotOrder[] {
    return slotOrder(orderBy, (field) => this.#byName.get(field))
  }

  #aliveSlots(): number[] {
    const slots: number[] = []
    for (let slot = 0; slot < this.#count; slot++) if (this.#alive[slot] === 1) slots.push(slot)
    return slots
  }

  /** The slot of a row Id, or -1: slots follow Id order, so a binary search (a direct hit when Ids are dense). */
  #slotOf(id: number): number {
    const ids = numbersOf(this.#ids) as Float64Array
    const first = ids[0] as number
    const guess = id - first
    let slot = -1
    if (guess >= 0 && guess < this.#count && ids[guess] === id) slot = guess
    else {
      let low = 0
      let high = this.#count - 1
      while (low <= high) {
        const mid = (low + high) >>> 1
        const value = ids[mid] as number
        if (value === id) {
          slot = mid
          break
        }
        if (value < id) low = mid + 1
        else high = mid - 1
      }
    }
    return slot >= 0 && this.#alive[slot] === 1 ? slot : -1
  }

  #write(slot: number, row: Readonly<Record<string, FieldValue | undefined>>): void {
    this.#writeRow(this.#data, slot, row, NO_NUMBERS)
  }

  #grow(capacity: number): void {
    for (const column of this.#data) column.grow(capacity)
    this.#growRest(capacity)
  }

  /** What grows with the columns: the alive marks, the row texts, the capacity. */
  #growRest(capacity: number): void {
    if (this.#firstDetail !== null) {
      const next = new Float64Array(capacity)
      next.set(this.#nextDetail.subarray(0, Math.min(this.#nextDetail.length, capacity)))
      this.#nextDetail = next
    }
    const alive = new Uint8Array(capacity)
    alive.set(this.#alive.subarray(0, this.#count))
    this.#alive = alive
    for (const bytes of this.#bytes.values()) bytes.grow(capacity)
    this.#capacity = capacity
  }

  #index(slot: number): void {
    const id = this.#ids.get(slot) as number
    const identity = this.#identityColumn.get(slot)
    if (typeof identity === 'number') {
      this.#identities.set(identity, id)
      if (identity > this.#identityCeiling) this.#identityCeiling = identity
    }
    if (this.#firstDetail !== null && this.#masterColumn !== null) {
      const masterId = this.#masterColumn.get(slot)
      if (typeof masterId === 'number') this.#link(masterId, id, slot)
    }
  }

  /** Puts a detail row (its Id, its slot) in its master's list, in Id order (most often at the end). */
  #link(masterId: number, id: number, slot: number): void {
    const first = this.#firstDetail as IntMap<number>
    const next = this.#nextDetail
    const head = first.get(masterId)
    if (head === id) return
    if (head === undefined || id < head) {
      next[slot] = head ?? Number.NaN
      first.set(masterId, id)
      return
    }
    let at = this.#slotOf(head)
    for (;;) {
      const following = next[at] as number
      if (following === id) return
      if (following !== following || following > id) {
        next[slot] = following
        next[at] = id
        return
      }
      at = this.#slotOf(following)
    }
  }

  #unindex(slot: number): void {
    const id = this.#ids.get(slot) as number
    const identity = this.#identityColumn.get(slot)
    if (typeof identity === 'number' && this.#identities.get(identity) === id) this.#identities.delete(identity)
    if (this.#firstDetail !== null && this.#masterColumn !== null) {
      const masterId = this.#masterColumn.get(slot)
      if (typeof masterId === 'number') this.#unlink(masterId, id, slot)
    }
  }

  /** Takes a detail row out of its master's list. */
  #unlink(masterId: number, id: number, slot: number): void {
    const first = this.#firstDetail as IntMap<number>
    const next = this.#nextDetail
    const head = first.get(masterId)
    if (head === undefined) return
    if (head === id) {
      const following = next[slot] as number
      if (following === following) first.set(masterId, following)
      else first.delete(masterId)
      return
    }
    for (let at = this.#slotOf(head); at >= 0; ) {
      const following = next[at] as number
      if (following !== following) return
      if (following === id) {
        next[at] = next[slot] as number
        return
      }
      at = this.#slotOf(following)
    }
  }

  /** A written or removed row: its texts go, and kept results look at it again. */
  #forget(slot: number): void {
    for (const bytes of this.#bytes.values()) bytes.forget(slot)
    this.#selections.touched(slot)
  }

  /** Moves the alive rows down over the dead slots; slot-keyed results start over. */
  #compact(): void {
    let to = 0
    for (let from = 0; from < this.#count; from++) {
      if (this.#alive[from] !== 1) continue
      if (from !== to) {
        for (const column of this.#data) column.move(from, to)
        for (const bytes of this.#bytes.values()) bytes.move(from, to)
        if (this.#firstDetail !== null) this.#nextDetail[to] = this.#nextDetail[from] as number
        this.#alive[to] = 1
      }
      to++
    }
    this.#alive.fill(0, to, this.#count)
    for (const column of this.#data) column.clear(to, this.#count)
    // Rows hidden by a big delete kept their texts (see `hide`): the slots freed take no text along to the rows appended there next.
    for (const bytes of this.#bytes.values()) bytes.clear(to, this.#count)
    this.#count = to
    this.#selections.clear()
  }
}

const EMPTY: readonly number[] = []
const NO_NUMBERS = new Float64Array(0)

/**
 * Rows of one table a big delete removes, and how far `Table.prepareRemoval`, `hide` and `sweep`
 * have got with them: their slots and what indexes them (Identity value, master Id; NaN for none),
 * found before they are hidden, since compaction may move or free their slots after.
 */
export class Removal {
  readonly ids: readonly number[]
  readonly slots: Int32Array
  readonly identities: Float64Array
  readonly masters: Float64Array
  prepared = 0
  hidden = false
  swept = 0

  constructor(ids: readonly number[]) {
    this.ids = ids
    this.slots = new Int32Array(ids.length)
    this.identities = new Float64Array(ids.length)
    this.masters = new Float64Array(ids.length)
  }
}

/**
 * A function returning a row object with the columns in order, read from a slot. Rows built
 * property by property go through many hidden-class transitions; a literal gives every row of
 * the table one shape. Column names are embedded with JSON.stringify, so any name is quoted safely;
 * `__proto__` as a computed key, since `"__proto__": v` in a literal sets the prototype instead.
 */
function materializer(columns: readonly string[]): (data: readonly Column[], slot: number) => Row {
  const body = columns.map((c, i) => `${c === '__proto__' ? '["__proto__"]' : JSON.stringify(c)}: d[${i}].get(s)`).join(',\n')
  return new Function('d', 's', `return {\n${body}\n}`) as (data: readonly Column[], slot: number) => Row
}

/** A function returning a row with every column null, as one literal (see materializer). */
function blankRow(columns: readonly string[]): () => Row {
  const body = columns.map((c) => `${c === '__proto__' ? '["__proto__"]' : JSON.stringify(c)}: null`).join(',\n')
  return new Function(`return {\n${body}\n}`) as () => Row
}

/**
 * A function writing one row into the columns at a slot: a column named in `assigned` from that
 * position of the numbers given, every other column from `source` (null when absent). Written out
 * per table like the materializer, so each read is of a fixed property name and each column's
 * `set` call meets one kind of column: a loop over names makes both generic and several times slower.
 */
type RowWriter = (data: readonly Column[], slot: number, source: Readonly<Record<string, FieldValue | undefined>>, assigned: Float64Array) => void

function rowWriter(columns: readonly string[], assigned: readonly string[]): RowWriter {
  // A name Object.prototype has (`constructor`, `__proto__`) is read only as the source's own member (see setOwn).
  const read = (c: string) =>
    c in Object.prototype ? `(Object.hasOwn(r, ${JSON.stringify(c)}) ? r[${JSON.stringify(c)}] : undefined)` : `r[${JSON.stringify(c)}]`
  const body = columns.map((c, i) => `d[${i}].set(s, ${assigned.includes(c) ? `a[${assigned.indexOf(c)}]` : read(c)});`).join('\n')
  return new Function('d', 's', 'r', 'a', body) as RowWriter
}

/**
 * One object a filter reads rows through without building them: each column is a getter on the
 * slot `position` points at. Filters read `row[field]`, so they run over it unchanged.
 */
function cursorOver(columns: readonly string[], data: readonly Column[]): { row: Row; position: { slot: number } } {
  const position = { slot: 0 }
  const row = {} as Row
  columns.forEach((name, i) => {
    const column = data[i] as Column
    Object.defineProperty(row, name, { get: () => column.get(position.slot), enumerable: true })
  })
  return { row, position }
}
