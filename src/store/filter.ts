import { fieldsOf, printLiteral, type CompareOp, type FilterLiteral, type FilterNode } from './filter-ast.ts'
import { parseFilter, parseFilterInSlices, type FilterError } from './filter-parser.ts'
import { Lru } from './engine/lru.ts'
import { isDateType, isNumericType, isTextType, TYPE_FORMS } from './model/data-types.ts'
import { valueFits } from '../wire/type-forms.ts'
import type { FieldLookup, FieldType, FieldValue, Row } from './model/types.ts'
import { shortened } from './model/field-values.ts'

export type { FilterError } from './filter-parser.ts'

/**
 * A compiled `$filter`: call it with a row. It also tells which fields it reads (so hidden
 * fields can be refused) and keeps its tree (so the store can use an index for `MasterId eq N`).
 */
export interface Predicate {
  (row: Row): boolean
  readonly fields: readonly string[]
  readonly tree: FilterNode
}

/**
 * Compiles filter text against a storage's fields (system fields included).
 *
 * Semantics, chosen to match a SQL back end since the product filters in its database:
 * - fields whose values are numbers (Numeric, Identity, Timespan, Latitude, Longitude, Boolean 0/1,
 *   and Date, DateTime, Time as their yyyyMMdd... numbers) compare as numbers; a quoted number
 *   (`Amount gt '10'`, as the description's sample quotes every value) is read as a number; text
 *   fields compare as strings, by UTF-16 code units (no locale collation). Boolean fields take eq
 *   and ne only.
 * - Multiselection (the mock's choice): `eq 'x'` matches a row whose array holds x, `ne 'x'` one
 *   whose array does not; other operators and the text functions are refused.
 * - `contains`, `startswith`, `endswith` are case-sensitive and apply to text fields.
 * - A null field value makes any comparison unknown, and unknown is neither true nor false
 *   (three-valued logic): `Status ne 'Open'` does not match a row whose Status is null, and
 *   neither does `not (Status eq 'Open')`. Only `eq null` / `ne null` test for null.
 */
export function compileFilter(text: string, fields: FieldLookup): Predicate | FilterError {
  if (text.trim() === '') return bad(1, 'the filter is empty; omit $filter to read every row')
  return compileTree(parseFilter(text), fields)
}

/** A parsed filter (or why it did not parse) made a predicate over the storage's fields. */
function compileTree(tree: FilterNode | FilterError, fields: FieldLookup): Predicate | FilterError {
  if ('error' in tree) return tree
  const compiled = compileNode(tree, fields)
  if ('error' in compiled) return compiled
  const test = compiled
  const predicate = ((row: Row) => test(row) === true) as Predicate
  return Object.assign(predicate, { fields: fieldsOf(tree), tree })
}

/** Compiled filters of one storage, one per distinct text, bounded. */
export class FilterCache {
  readonly #fields: FieldLookup
  readonly #cache: Lru<string, Predicate | FilterError>

  constructor(fields: FieldLookup, size = 500) {
    this.#fields = fields
    this.#cache = new Lru(size)
  }

  /**
   * Compiles a long filter text, its tokens read in slices (filter-parser.ts's `parseFilterInSlices`),
   * and keeps the result for `get` to find: what `get` would compile, without holding others while
   * 60 MB of it are read.
   */
  async prepare(text: string, pause: () => Promise<void>, sliceMs?: number): Promise<void> {
    if (this.#cache.get(text) !== undefined) return
    const entry = text.trim() === '' ? compileFilter(text, this.#fields) : compileTree(await parseFilterInSlices(text, pause, sliceMs), this.#fields)
    this.#cache.set(text, entry)
  }

  /** The compiled filter (or its error) for a text, compiled at most once while it stays cached. */
  get(text: string): Predicate | FilterError {
    let entry = this.#cache.get(text)
    if (entry === undefined) {
      entry = compileFilter(text, this.#fields)
      this.#cache.set(text, entry)
    }
    return entry
  }
}

/** true, false, or null for unknown (a null operand). */
type Test = (row: Row) => boolean | null

function compileNode(node: FilterNode, fields: FieldLookup): Test | FilterError {
  switch (node.kind) {
    case 'and':
    case 'or': {
      const left = compileNode(node.left, fields)
      if ('error' in left) return left
      const right = compileNode(node.right, fields)
      if ('error' in right) return right
      return node.kind === 'and' ? (row) => and(left(row), right(row)) : (row) => or(left(row), right(row))
    }
    case 'not': {
      const operand = compileNode(node.operand, fields)
      if ('error' in operand) return operand
      return (row) => {
        const v = operand(row)
        return v === null ? null : !v
      }
    }
    case 'call': {
      const type = fieldType(node.field, node.fieldPos, fields)
      if (typeof type !== 'string') return type
      if (!isTextType(type)) {
        return bad(node.fieldPos, `${node.fn}() applies to text fields; ${node.field} is ${type}`)
      }
      const { field, value } = node
      const match =
        node.fn === 'contains'
          ? (s: string) => s.includes(value)
          : node.fn === 'startswith'
            ? (s: string) => s.startsWith(value)
            : (s: string) => s.endsWith(value)
      return (row) => {
        const v = row[field]
        return typeof v === 'string' ? match(v) : null
      }
    }
    case 'compare':
      return compileComparison(node, fields)
  }
}

function and(a: boolean | null, b: boolean | null): boolean | null {
  if (a === false || b === false) return false
  return a === null || b === null ? null : true
}

function or(a: boolean | null, b: boolean | null): boolean | null {
  if (a === true || b === true) return true
  return a === null || b === null ? null : false
}

function compileComparison(node: Extract<FilterNode, { kind: 'compare' }>, fields: FieldLookup): Test | FilterError {
  const type = fieldType(node.field, node.fieldPos, fields)
  if (typeof type !== 'string') return type
  const { field, op } = node
  if (node.value.type === 'null') {
    if (op !== 'eq' && op !== 'ne') return bad(node.valuePos, `null can only be compared with eq or ne, not ${op}`)
    return op === 'eq' ? (row) => row[field] == null : (row) => row[field] != null
  }
  const converted = operandFor(type, node.value)
  if ('problem' in converted) return bad(node.valuePos, `${converted.problem} for ${field} (${type})`)
  const operand = converted.operand
  if ((type === 'Boolean' || type === 'Multiselection') && op !== 'eq' && op !== 'ne') {
    return bad(node.valuePos, `${type} fields can only be compared with eq or ne, not ${op}`)
  }
  if (type === 'Multiselection') {
    // The mock's choice: eq matches a row whose array holds the value, ne one whose array does not.
    const wanted = String(operand)
    const holdsIt = (v: readonly unknown[]) => v.some((item) => String(item) === wanted)
    return (row) => {
      const v = row[field]
      if (!Array.isArray(v)) return null
      return op === 'eq' ? holdsIt(v) : !holdsIt(v)
    }
  }
  const holds = COMPARATORS[op]
  return (row) => {
    const v: FieldValue | undefined = row[field]
    if (v == null) return null
    return holds(v, operand)
  }
}

type Operand = string | number

const COMPARATORS: Record<CompareOp, (a: FieldValue, b: Operand) => boolean> = {
  eq: (a, b) => a === b,
  ne: (a, b) => a !== b,
  gt: (a, b) => (a as Operand) > b,
  ge: (a, b) => (a as Operand) >= b,
  lt: (a, b) => (a as Operand) < b,
  le: (a, b) => (a as Operand) <= b,
}

const NUMERIC_TEXT = /^\s*-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?\s*$/

/**
 * The literal converted to the field's kind of value, or why it cannot be. Quoted and unquoted
 * literals read alike: `Amount gt '10'` as `Amount gt 10` (the description's sample quotes every
 * value), dates as their numbers (`DT_CREATION ge 20240301000000` or `'20240301000000'`), a
 * Boolean as 0/1 (`true`/`false` read as 1/0).
 */
function operandFor(type: FieldType, literal: Exclude<FilterLiteral, { type: 'null' }>): { operand: Operand } | { problem: string } {
  if (type === 'Boolean') {
    if (literal.type === 'boolean') return { operand: literal.value ? 1 : 0 }
    const text = literal.type === 'number' ? literal.raw : literal.value
    if (text === '0' || text === '1') return { operand: Number(text) }
    if (text === 'true' || text === 'false') return { operand: text === 'true' ? 1 : 0 }
    return { problem: `expected 0 or 1, found ${printLiteral(literal)}` }
  }
  if (isNumericType(type)) {
    const number = literal.type === 'number' ? literal.value : literal.type === 'string' && NUMERIC_TEXT.test(literal.value) ? Number(literal.value) : undefined
    if (number === undefined) return { problem: `expected ${TYPE_FORMS[type]}, found ${printLiteral(literal)}` }
    if (isDateType(type) && !valueFits(type, number)) return { problem: `expected ${TYPE_FORMS[type]}, found ${printLiteral(literal)}, which is not one` }
    return { operand: number }
  }
  if (type === 'Multiselection') {
    if (literal.type === 'string') return { operand: literal.value }
    if (literal.type === 'number') return { operand: literal.raw }
    return { problem: `expected a quoted element value, found ${printLiteral(literal)}` }
  }
  if (literal.type === 'string') return { operand: literal.value }
  // An unquoted number against a text field means its digits (`Code eq 42`).
  if (literal.type === 'number') return { operand: literal.raw }
  return { problem: `expected a quoted text, found ${printLiteral(literal)}` }
}

function fieldType(name: string, position: number, fields: FieldLookup): FieldType | FilterError {
  const type = fields.get(name)
  if (type !== undefined) return type
  return {
    error: 'UNKNOWN_FIELD',
    position,
    message: `$filter, character ${position}: unknown field ${shortened(name)}; fields: ${[...fields.keys()].join(', ')}`,
  }
}

function bad(position: number, message: string): FilterError {
  return { error: 'BAD_FILTER', position, message: `$filter, character ${position}: ${message}` }
}
