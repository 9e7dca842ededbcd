import { relationKeyOf } from './guid.ts'
import { FilterCache, type Predicate } from './filter.ts'
import type { FilterNode } from './filter-ast.ts'
import type { ReadyBytes } from '../wire/ready-bytes.ts'
import { serializeRow } from './model/row-json.ts'
import type { StoreState } from './state.ts'
import type { Table } from './engine/table.ts'
import type { ParsedQuery, QueryError, Row } from './model/types.ts'
import { shortened } from './model/field-values.ts'

/**
 * Reads: a page of rows as JSON text, a count, one row. Hidden fields are left out of the rows,
 * and a filter or an order naming one is refused as UNKNOWN_FIELD: for that reader the field
 * does not exist (filtering on it would reveal its values).
 */

/** The table a read addresses, or why there is none. */
export function tableFor(state: StoreState, applicationId: string, relationKey: string | null): Table | QueryError {
  const app = state.apps.get(applicationId)
  if (app === undefined) return { error: 'UNKNOWN_APPLICATION', message: `application ${applicationId} does not exist` }
  if (relationKey === null) return app.master
  const table = app.details.get(relationKeyOf(relationKey))
  if (table !== undefined) return table
  const known = [...app.details.keys()].join(', ') || '(none)'
  return { error: 'UNKNOWN_RELATION_KEY', message: `relation key ${relationKey} is not one of application ${app.def.name}'s (${known})` }
}

/** Each table's compiled filters, by text (the last 500). */
const filterCaches = new WeakMap<Table, FilterCache>()

function filtersOf(table: Table): FilterCache {
  let cache = filterCaches.get(table)
  if (cache === undefined) filterCaches.set(table, (cache = new FilterCache(table.fields)))
  return cache
}

/**
 * Compiles a query's long `$filter` for the table it reads, in slices (`FilterCache.prepare`), so the
 * query that follows finds it compiled. An unknown application or relation key prepares nothing: the
 * query says so.
 */
export async function prepareFilter(
  state: StoreState,
  applicationId: string,
  relationKey: string | null,
  text: string,
  pause: () => Promise<void>,
  sliceMs?: number,
): Promise<void> {
  const table = tableFor(state, applicationId, relationKey)
  if ('error' in table) return
  await filtersOf(table).prepare(text, pause, sliceMs)
}

/** On a detail table, the master Id the filter requires (`MasterId eq N`, alone or and-ed), so only that master's details are tested. */
function pinnedMaster(table: Table, predicate: Predicate | null): number | null {
  return predicate !== null && table.masterField !== null ? indexedMasterId(predicate.tree, table.masterField) : null
}

/** The query's compiled filter (null when it has none), after checking its fields against the reader's view. */
function checkQuery(table: Table, q: ParsedQuery, hidden: readonly string[]): Predicate | null | QueryError {
  const hiddenSet = new Set(hidden)
  for (const { field } of q.orderBy) {
    if (!table.fields.has(field) || hiddenSet.has(field)) {
      return { error: 'UNKNOWN_FIELD', message: `$orderby: unknown field ${shortened(field)} in storage ${table.storage.name}` }
    }
    // The mock's choice: an array has no order, so a Multiselection field cannot order rows.
    if (table.fields.get(field) === 'Multiselection')
      return { error: 'BAD_QUERY', message: `$orderby: ${field} is a Multiselection field, whose arrays have no order; order by another field` }
  }
  if (q.filter === null) return null
  const compiled = filtersOf(table).get(q.filter)
  if ('error' in compiled) return { error: compiled.error, message: compiled.message }
  const hiddenField = compiled.fields.find((f) => hiddenSet.has(f))
  if (hiddenField !== undefined) return { error: 'UNKNOWN_FIELD', message: `$filter: unknown field ${hiddenField} in storage ${table.storage.name}` }
  return compiled
}

/**
 * A page of rows as a JSON array in UTF-8 bytes, ready to send: rows not written since they were
 * last read are not serialized again (see Table.page).
 */
export function queryRows(
  state: StoreState,
  applicationId: string,
  relationKey: string | null,
  q: ParsedQuery,
  hidden: readonly string[],
): ReadyBytes | QueryError {
  const table = tableFor(state, applicationId, relationKey)
  if ('error' in table) return table
  const predicate = checkQuery(table, q, hidden)
  if (predicate !== null && 'error' in predicate) return predicate
  const selected = table.select(q.filter, predicate, q.orderBy, pinnedMaster(table, predicate))
  const from = Math.min(q.skip, selected.count)
  const to = q.top === null ? selected.count : Math.min(selected.count, q.skip + q.top)
  return table.page(selected, from, Math.max(from, to), table.projection(hidden))
}

/** How many rows the query's filter selects (`$top` and `$skip` do not apply, as with `$inlinecount=allpages`). */
export function countRows(
  state: StoreState,
  applicationId: string,
  relationKey: string | null,
  q: ParsedQuery,
  hidden: readonly string[],
): { count: number } | QueryError {
  const table = tableFor(state, applicationId, relationKey)
  if ('error' in table) return table
  const predicate = checkQuery(table, q, hidden)
  if (predicate === null) return { count: table.size }
  if ('error' in predicate) return predicate
  return { count: table.select(q.filter, predicate, [], pinnedMaster(table, predicate)).count }
}

/** One row and its JSON text without the hidden fields, or null when there is no such row. */
export function getRow(
  state: StoreState,
  applicationId: string,
  relationKey: string | null,
  id: number,
  hidden: readonly string[],
): { row: Readonly<Row>; json: string } | null {
  const table = tableFor(state, applicationId, relationKey)
  if ('error' in table) return null
  const row = table.get(id)
  if (row === undefined) return null
  return { row, json: serializeRow(row, table.projection(hidden)) }
}

/** The master Id an `eq` on the master field pins the filter to, if the filter requires one. */
function indexedMasterId(tree: FilterNode, masterField: string): number | null {
  if (tree.kind === 'and') return indexedMasterId(tree.left, masterField) ?? indexedMasterId(tree.right, masterField)
  if (tree.kind !== 'compare' || tree.op !== 'eq' || tree.field !== masterField) return null
  const value = tree.value
  const n = value.type === 'number' ? value.value : value.type === 'string' ? Number(value.value) : Number.NaN
  return Number.isSafeInteger(n) ? n : null
}
