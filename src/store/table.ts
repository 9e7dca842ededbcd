import { FilterCache, type Predicate } from './filter.ts'
import type { FilterNode } from './filter-ast.ts'
import { IntMap } from './int-map.ts'
import { Lru } from './lru.ts'
import { orderRows } from './order-rows.ts'
import { projectionKey, projectionOf, serializeRow, type Projection } from './row-json.ts'
import { columnsOf, fieldLookupOf } from './system-fields.ts'
import type { FieldLookup, FieldValue, OrderItem, Row, StorageDef } from './types.ts'

/** How many distinct (filter, order) results a table keeps; each may hold an Id per row. */
const ORDER_CACHE_SIZE = 32

/**
 * One storage's rows (a master table, or one detail table) with everything that makes reads
 * fast: rows by Id, identity values in use, detail rows by master Id, compiled filters, the
 * ordered Id lists of recent queries, and each row's JSON text per projection.
 *
 * Rows are never changed in place: a write puts a new row object, and forgets that row's JSON
 * texts and every cached order, so a page never re-serializes rows that did not change and
 * never shows one that did as it was.
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
  readonly filters: FilterCache

  /** Next database Id; Ids only grow, so rows iterate in Id order. */
  nextId = 1
  /** Next Identity value the sequence would offer (taken values are skipped when handed out). */
  nextIdentity = 1
  /** Position of the next created row within this table. */
  nextRowOrder = 1

  readonly #rows = new IntMap<Row>()
  readonly #identities = new IntMap<number>()
  /** Detail row Ids per master Id, ascending (details are created in Id order). */
  readonly #byMaster: IntMap<number[]> | null
  readonly #construct: (values: Readonly<Record<string, FieldValue | undefined>>) => Row
  readonly #orders = new Lru<string, number[]>(ORDER_CACHE_SIZE)
  /** Every Id in order: the unfiltered, unordered selection, kept across updates (they change no Id). */
  #allIds: number[] | null = null
  readonly #texts = new Map<string, Map<number, string>>()
  readonly #projections = new Map<string, Projection>()

  constructor(applicationId: string, relationKey: string | null, storage: StorageDef, masterField: string | null) {
    this.applicationId = applicationId
    this.relationKey = relationKey
    this.storage = storage
    this.masterField = masterField
    this.columns = columnsOf(storage)
    this.fields = fieldLookupOf(storage)
    this.filters = new FilterCache(this.fields)
    this.#byMaster = masterField === null ? null : new IntMap()
    this.#construct = rowConstructor(this.columns)
  }

  get size(): number {
    return this.#rows.size
  }

  get(id: number): Row | undefined {
    return this.#rows.get(id)
  }

  /** Id of the row holding an Identity value, if any. */
  identityOwner(value: number): number | undefined {
    return this.#identities.get(value)
  }

  /** Every row, for an export of the table. */
  forEachRow(fn: (row: Readonly<Row>) => void): void {
    this.#rows.forEach(fn)
  }

  /** Ids of the detail rows under a master (detail tables only; empty otherwise). */
  detailIdsOf(masterId: number): readonly number[] {
    return this.#byMaster?.get(masterId) ?? EMPTY
  }

  /** A row object with every column (null when absent), in column order, so all rows of a table share one shape. */
  makeRow(values: Readonly<Record<string, FieldValue | undefined>>): Row {
    return this.#construct(values)
  }

  /** Adds a new row, or replaces the row with the same Id. */
  put(row: Row): void {
    const previous = this.#rows.get(row.Id)
    if (previous !== undefined) this.#unindex(previous)
    else if (this.#allIds !== null) {
      // New Ids are larger than every Id so far, so appending keeps the list in order.
      const last = this.#allIds[this.#allIds.length - 1]
      if (last === undefined || row.Id > last) this.#allIds.push(row.Id)
      else this.#allIds = null
    }
    this.#rows.set(row.Id, row)
    this.#index(row)
    this.#forget(row.Id)
  }

  remove(id: number): void {
    const row = this.#rows.get(id)
    if (row === undefined) return
    this.#unindex(row)
    this.#rows.delete(id)
    this.#allIds = null
    this.#forget(id)
  }

  /** Bulk load at start-up: rows must come in ascending Id order; no cache exists yet to forget. */
  load(row: Row): void {
    this.#rows.set(row.Id, row)
    this.#index(row)
  }

  #index(row: Row): void {
    const identity = row[this.storage.identityField]
    if (typeof identity === 'number') this.#identities.set(identity, row.Id)
    if (this.#byMaster !== null && this.masterField !== null) {
      const masterId = row[this.masterField]
      if (typeof masterId === 'number') {
        const ids = this.#byMaster.get(masterId)
        if (ids === undefined) this.#byMaster.set(masterId, [row.Id])
        else if (!ids.includes(row.Id)) insertSorted(ids, row.Id)
      }
    }
  }

  #unindex(row: Row): void {
    const identity = row[this.storage.identityField]
    if (typeof identity === 'number' && this.#identities.get(identity) === row.Id) this.#identities.delete(identity)
    if (this.#byMaster !== null && this.masterField !== null) {
      const masterId = row[this.masterField]
      if (typeof masterId === 'number') {
        const ids = this.#byMaster.get(masterId)
        const at = ids?.indexOf(row.Id) ?? -1
        if (ids !== undefined && at >= 0) ids.splice(at, 1)
        if (ids?.length === 0) this.#byMaster.delete(masterId)
      }
    }
  }

  #forget(id: number): void {
    this.#orders.clear()
    for (const texts of this.#texts.values()) texts.delete(id)
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
      projection = projectionOf(this.columns, hidden.filter((name) => this.columns.includes(name)))
      this.#projections.set(requested, projection)
    }
    return projection
  }

  /** A row's JSON text in a projection, serialized at most once between writes to that row. */
  rowJson(row: Row, projection: Projection): string {
    let texts = this.#texts.get(projection.key)
    if (texts === undefined) this.#texts.set(projection.key, (texts = new Map()))
    let text = texts.get(row.Id)
    if (text === undefined) {
      text = serializeRow(row, projection)
      texts.set(row.Id, text)
    }
    return text
  }

  /**
   * Ids of the rows a filter selects, in the order asked for (ties and no order: ascending Id).
   * Cached per (filter text, order) until the next write to this table.
   */
  selectIds(filterText: string | null, predicate: Predicate | null, orderBy: readonly OrderItem[]): readonly number[] {
    if (predicate === null && orderBy.length === 0) return (this.#allIds ??= this.#rows.keys())
    const key = `${filterText ?? ''}\u0000${orderBy.map((o) => `${o.field} ${o.direction}`).join(',')}`
    const cached = this.#orders.get(key)
    if (cached !== undefined) return cached
    let selected: Row[]
    const masterId = predicate !== null && this.masterField !== null ? indexedMasterId(predicate.tree, this.masterField) : null
    if (masterId !== null) {
      // `MasterId eq N` (alone or and-ed): look at that master's details instead of every detail.
      selected = this.detailIdsOf(masterId).map((id) => this.#rows.get(id) as Row).filter(predicate as Predicate)
    } else if (predicate !== null) {
      selected = []
      this.#rows.forEach((row) => {
        if (predicate(row)) selected.push(row)
      })
    } else {
      selected = []
      this.#rows.forEach((row) => selected.push(row))
    }
    // `selected` is in ascending Id order, which orderRows keeps for ties.
    if (orderBy.length > 0) selected = orderRows(selected, orderBy)
    const ids = selected.map((row) => row.Id)
    this.#orders.set(key, ids)
    return ids
  }
}

const EMPTY: readonly number[] = []

function insertSorted(ids: number[], id: number): void {
  let i = ids.length
  while (i > 0 && (ids[i - 1] as number) > id) i--
  ids.splice(i, 0, id)
}

/**
 * A constructor returning an object literal with the columns in order. Rows built property by
 * property from `{}` go through many hidden-class transitions; a literal is several times faster
 * to build at a million rows and gives every row of the table one shape. Column names are
 * embedded with JSON.stringify, so any name is quoted safely.
 */
function rowConstructor(columns: readonly string[]): (values: Readonly<Record<string, FieldValue | undefined>>) => Row {
  const body = columns.map((c) => `${JSON.stringify(c)}: v[${JSON.stringify(c)}] ?? null`).join(',\n')
  return new Function('v', `return {\n${body}\n}`) as (values: Readonly<Record<string, FieldValue | undefined>>) => Row
}

/** The master Id an `eq` on the master field pins the filter to, if the filter requires one. */
function indexedMasterId(tree: FilterNode, masterField: string): number | null {
  if (tree.kind === 'and') return indexedMasterId(tree.left, masterField) ?? indexedMasterId(tree.right, masterField)
  if (tree.kind !== 'compare' || tree.op !== 'eq' || tree.field !== masterField) return null
  const value = tree.value
  const n = value.type === 'number' ? value.value : value.type === 'string' ? Number(value.value) : Number.NaN
  return Number.isSafeInteger(n) ? n : null
}
