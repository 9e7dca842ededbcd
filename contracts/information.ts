/**
 * What verify reports about an installation where the description is silent but clients depend on
 * it: the order of rows read without `$orderby`, the forms of the system dates and of each user
 * field, the scheme of the address. Information only: nothing here can fail a run, and no contract
 * holds an installation to any of it (the attachment record's DT_CREATION, whose form the
 * description does give, is a contract's: attachments.record-dates).
 */
import type { Client, ReadRow } from '../src/client/client.ts'
import { isDateNumber, isDateTimeNumber } from '../src/wire/type-forms.ts'
import { SYSTEM_FIELDS, type Facts } from './facts.ts'
import type { Target } from './types.ts'

/** One thing found, with the audit's statement it is about. */
export interface Finding {
  topic: string
  /** The audit statement (contracts/audit.ts) whose open question it answers. */
  statement: string
  finding: string
}

/** The form of one value, in the words of the product's data types where one fits. */
export function formOf(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (Array.isArray(value)) return 'array'
  if (typeof value === 'boolean') return 'boolean true/false'
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return 'decimal number'
    if (isDateTimeNumber(value)) return 'number yyyyMMddHHmmss'
    if (isDateNumber(value)) return 'number yyyyMMdd'
    return 'integer'
  }
  if (typeof value === 'string') {
    if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/.test(value))
      return `ISO 8601 date-time text${/(Z|[+-]\d{2}:?\d{2})$/.test(value) ? ' with offset' : ' without offset'}`
    if (/^\/Date\(-?\d+([+-]\d{4})?\)\/$/.test(value)) return 'text /Date(milliseconds)/'
    return 'text'
  }
  return typeof value
}

/**
 * The forms of a field's values over rows, with their counts: integers that are all 0 or 1 named
 * so (the product's Boolean), integers among decimals counted as decimals (one Numeric field).
 * An example is shown only where asked (system dates): a user field's values are the
 * installation's data, and reports end up in CI logs.
 */
function formsOf(rows: readonly ReadRow[], field: string, withExample: boolean): string {
  const values = rows.map((row) => row[field])
  const present = values.filter((v) => v !== null && v !== undefined)
  const flags = present.length > 0 && present.every((v) => v === 0 || v === 1)
  const counts = new Map<string, number>()
  for (const value of values) {
    const form = flags && value !== null && value !== undefined ? 'integer 0/1' : formOf(value)
    counts.set(form, (counts.get(form) ?? 0) + 1)
  }
  if (counts.has('decimal number') && counts.has('integer')) {
    counts.set('decimal number', (counts.get('decimal number') ?? 0) + (counts.get('integer') ?? 0))
    counts.delete('integer')
  }
  const example = withExample ? present[0] : undefined
  return `${[...counts].map(([form, n]) => `${form} on ${n} of ${values.length}`).join(', ')}${example === undefined ? '' : ` (e.g. ${JSON.stringify(example).slice(0, 40)})`}`
}

/** Rows read without `$orderby`, told against Id order. */
function orderOf(rows: readonly ReadRow[]): string {
  const ids = rows.map((row) => Number(row.Id))
  if (ids.length < 2) return `${ids.length} row: the order cannot be told`
  const ascending = ids.every((id, i) => i === 0 || id > (ids[i - 1] as number))
  const descending = ids.every((id, i) => i === 0 || id < (ids[i - 1] as number))
  const shown = ids.slice(0, 6).join(', ')
  return ascending
    ? `by Id ascending (Id ${shown}, ...)`
    : descending
      ? `by Id descending (Id ${shown}, ...)`
      : `not by Id (Id ${shown}, ...): pass $orderby for a stable order`
}

/**
 * Reads what the run reports as information. Every read is one the contracts make too, or one
 * page; a read that fails is itself reported, never thrown.
 */
export async function gatherInformation(client: Client, target: Target, facts: Facts): Promise<Finding[]> {
  const findings: Finding[] = []
  const attempt = async (topic: string, statement: string, read: () => Promise<string | undefined>) => {
    try {
      const finding = await read()
      if (finding !== undefined) findings.push({ topic, statement, finding })
    } catch (error) {
      findings.push({ topic, statement, finding: `not read: ${(error as Error).message}` })
    }
  }
  await attempt('scheme', 'service.https', async () => {
    const scheme = /^([a-z]+):/i.exec(target.transport.target)?.[1]?.toLowerCase()
    return scheme === undefined
      ? undefined
      : scheme === 'https'
        ? 'the base URL uses HTTPS'
        : `the base URL uses ${scheme}, not HTTPS (the description: "All calls use HTTPS")`
  })
  await attempt('order without $orderby', 'items.default-order', async () => orderOf(await client.rows({ top: 20 })))
  const tables: Array<[string, ReadRow[] | undefined]> = [
    ['master rows', await facts.masters(client).catch(() => undefined)],
    [`${target.relationKey ?? 'detail'} rows`, await facts.details(client).catch(() => undefined)],
  ]
  for (const [table, rows] of tables) {
    if (rows === undefined || rows.length === 0) continue
    for (const field of ['DT_CREATION', 'DT_LAST_UPDATE']) {
      await attempt(`${field} of ${table}`, 'resources.row-system-forms', async () =>
        rows.some((row) => field in row) ? formsOf(rows, field, true) : 'absent',
      )
    }
    const [first] = rows
    const fields = Object.keys(first ?? {}).filter((name) => !SYSTEM_FIELDS.has(name))
    if (fields.length > 0) {
      await attempt(`fields of ${table}`, 'resources.row-system-forms', async () => fields.map((name) => `${name}: ${formsOf(rows, name, false)}`).join('; '))
    }
  }
  return findings
}
