import { convertValue, TYPE_FORMS } from '../../store/model/data-types.ts'
import { valueFits, type ProductType } from '../../wire/type-forms.ts'
import { SYSTEM_FIELDS } from '../../store/model/system-fields.ts'
import type { FieldType } from '../../store/model/types.ts'

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})$/

/** A row as Get Items answers it: system fields and user fields by name. */
export type ReadRow = Record<string, unknown>

/** What the rows read say about one user field. */
export interface InferredField {
  name: string
  type: FieldType
  /** Numeric fields whose every value is whole: 0 (the format has no decimals). */
  decimals?: number
  /** Some row held null (or left the field out). */
  nullable: boolean
  /** Distinct non-null values seen. */
  distinct: number
}

/** Names on every row that are the product's, not the application's (the description, "Application row"). */
export const SYSTEM_FIELD_NAMES: ReadonlySet<string> = new Set(Object.keys(SYSTEM_FIELDS))

/**
 * The product type every non-null value fits, and decimals 0 for a Numeric field of whole values.
 * A field with no value at all is taken for text. Numbers: DateTime when every value is a
 * yyyyMMddHHmmss date, Date when every one is a yyyyMMdd date, Time when every one is an HHmmss
 * time and some has an hour (else small counts would read as times), else Numeric. 0/1 fields
 * stay Numeric: their values cannot tell a Boolean from a count (`--field-type NAME=Boolean`).
 */
function typeOf(values: readonly unknown[]): { type: FieldType; decimals?: number } {
  if (values.length === 0) return { type: 'String' }
  // JSON booleans (a mock before the product's forms): Boolean, converted to 0/1 when the fixture is built.
  if (values.every((value) => typeof value === 'boolean')) return { type: 'Boolean' }
  if (values.every((value) => Array.isArray(value)) && values.every((value) => valueFits('Multiselection', value))) return { type: 'Multiselection' }
  if (values.every((value) => typeof value === 'number' && Number.isFinite(value))) {
    const numbers = values as number[]
    if (numbers.every((n) => valueFits('DateTime', n))) return { type: 'DateTime' }
    if (numbers.every((n) => valueFits('Date', n))) return { type: 'Date' }
    if (numbers.every((n) => valueFits('Time', n)) && numbers.some((n) => n >= 10000)) return { type: 'Time' }
    return numbers.every(Number.isSafeInteger) ? { type: 'Numeric', decimals: 0 } : { type: 'Numeric' }
  }
  // An installation that writes ISO 8601 instants: DateTime, converted when the fixture is built.
  if (values.every((value) => typeof value === 'string' && ISO_INSTANT.test(value) && !Number.isNaN(Date.parse(value)))) return { type: 'DateTime' }
  return { type: 'String' }
}

/** Whether a field holds whole numbers only (an Identity field or a link to a master row can be one). */
export function isIntegerField(field: Pick<InferredField, 'type' | 'decimals'>): boolean {
  return field.type === 'Numeric' && field.decimals === 0
}

/**
 * The user fields of a storage and their types, from the rows read: every name any row carries
 * that is not a system field, in the order the rows list them. A number field whose sampled values
 * all happen to be whole is reported as Numeric with decimals 0; a field never seen with a value, as nullable text.
 */
export function inferFields(rows: readonly ReadRow[]): InferredField[] {
  const names: string[] = []
  const seen = new Set<string>()
  for (const row of rows)
    for (const name of Object.keys(row))
      if (!SYSTEM_FIELD_NAMES.has(name) && !seen.has(name)) {
        seen.add(name)
        names.push(name)
      }
  return names.map((name) => {
    const values = rows.map((row) => row[name]).filter((value) => value !== null && value !== undefined)
    return { name, ...typeOf(values), nullable: values.length < rows.length, distinct: new Set(values.map((value) => JSON.stringify(value))).size }
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
  const candidates = fields.filter((field) => isIntegerField(field) && !field.nullable && field.distinct === rows.length && rows.length > 0)
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

/**
 * `--field-type NAME=TYPE`: the type the user knows a field has (a 0/1 field that is a Boolean, a
 * text that is a File), for every storage holding a field of that name. Every value read must
 * be one of that type, or in a form that converts to it; the reason when one is not.
 */
export function overrideFieldTypes(
  storages: ReadonlyArray<{ fields: InferredField[]; rows: readonly ReadRow[] }>,
  types: Readonly<Record<string, ProductType>>,
): string | undefined {
  for (const [name, type] of Object.entries(types)) {
    let found = false
    for (const storage of storages) {
      const index = storage.fields.findIndex((field) => field.name === name)
      if (index < 0) continue
      found = true
      const bad = storage.rows
        .map((row) => row[name])
        .find((value) => value !== null && value !== undefined && !valueFits(type, value) && convertValue(type, value, 'UTC') === undefined)
      if (bad !== undefined) return `--field-type ${name}=${type}: the value ${JSON.stringify(bad)} read is not a ${type} value (${TYPE_FORMS[type]})`
      const { decimals: _decimals, ...field } = storage.fields[index] as InferredField
      storage.fields[index] = { ...field, type }
    }
    if (!found) return `--field-type ${name}=${type}: no storage read has a field ${name}`
  }
  return undefined
}
