import { valueFits } from '../store/field-values.ts'
import { SYSTEM_FIELDS } from '../store/system-fields.ts'
import type { FieldType } from '../store/types.ts'

/** A row as Get Items answers it: system fields and user fields by name. */
export type ReadRow = Record<string, unknown>

/** What the rows read say about one user field. */
export interface InferredField {
  name: string
  type: FieldType
  /** Some row held null (or left the field out). */
  nullable: boolean
  /** Distinct non-null values seen. */
  distinct: number
}

/** Names on every row that are the product's, not the application's (the description, "Application row"). */
export const SYSTEM_FIELD_NAMES: ReadonlySet<string> = new Set(Object.keys(SYSTEM_FIELDS))

/** The narrowest type every non-null value fits; a field with no value at all is taken for text. */
function typeOf(values: readonly unknown[]): FieldType {
  if (values.length === 0) return 'string'
  for (const type of ['boolean', 'integer', 'number', 'date-time'] as const) if (values.every((value) => valueFits(type, value))) return type
  return 'string'
}

/**
 * The user fields of a storage and their types, from the rows read: every name any row carries
 * that is not a system field, in the order the rows list them. A number field whose sampled values
 * all happen to be whole is reported as integer; a field never seen with a value, as nullable text.
 */
export function inferFields(rows: readonly ReadRow[]): InferredField[] {
  const names: string[] = []
  const seen = new Set<string>()
  for (const row of rows) for (const name of Object.keys(row)) if (!SYSTEM_FIELD_NAMES.has(name) && !seen.has(name)) (seen.add(name), names.push(name))
  return names.map((name) => {
    const values = rows.map((row) => row[name]).filter((value) => value !== null && value !== undefined)
    return { name, type: typeOf(values), nullable: values.length < rows.length, distinct: new Set(values.map((value) => JSON.stringify(value))).size }
  })
}

/** Names that suggest the Identity field (`IdRow`, `RowId`, `Identity`, `RowIdentifier`, ...). */
const IDENTITY_NAME = /^id[_-]?row$|^row[_-]?id$|identity|identifier/i

/**
 * The storage's Identity field: the description says each storage has one, separate from `Id`,
 * that the service assigns on creation; so an integer field set on every row, with a different
 * value on each. Among several, a name like `IdRow` or `Identity` wins, then the one whose values
 * rise with `Id`. Undefined when no field qualifies.
 */
export function inferIdentityField(rows: readonly ReadRow[], fields: readonly InferredField[]): string | undefined {
  const candidates = fields.filter((field) => field.type === 'integer' && !field.nullable && field.distinct === rows.length && rows.length > 0)
  if (candidates.length <= 1) return candidates[0]?.name
  const named = candidates.filter((field) => IDENTITY_NAME.test(field.name))
  if (named.length === 1) return named[0]?.name
  const pool = named.length > 1 ? named : candidates
  const byId = [...rows].sort((a, b) => Number(a.Id) - Number(b.Id))
  const rising = pool.filter((field) => byId.every((row, i) => i === 0 || Number(row[field.name]) > Number(byId[i - 1]?.[field.name])))
  return (rising[0] ?? pool[0])?.name
}

/** How strongly a field's name says it points at a master row: 2 for master or parent, 1 for an Id, else 0. */
export function linkNameScore(name: string): number {
  if (/master|parent/i.test(name)) return 2
  return /id/i.test(name) ? 1 : 0
}
