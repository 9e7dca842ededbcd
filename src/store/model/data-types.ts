/**
 * The product's data types in the store and in fixtures: the type names of older fixtures, what
 * each type's values look like in messages, which types are numbers, texts and dates, values
 * sent in another form converted into their type's, and DateTime numbers on an installation's
 * wall clock. The types themselves and the predicates that say whether a value has its type's
 * form are in src/wire/type-forms.ts. Pure functions: no clock, no I/O.
 */
import { isDateTimeNumber, valueFits, type FieldType, type ProductType } from '../../wire/type-forms.ts'

/** The type names of fixtures written before the product's names, and what they now mean. */
export const LEGACY_TYPE_NAMES: Readonly<Record<string, { type: ProductType; decimals?: number }>> = {
  string: { type: 'String' },
  number: { type: 'Numeric' },
  // An integer field is a Numeric field whose format has no decimals.
  integer: { type: 'Numeric', decimals: 0 },
  boolean: { type: 'Boolean' },
  'date-time': { type: 'DateTime' },
}

/** What a value of each type looks like, as problems and warnings say it. */
export const TYPE_FORMS: Readonly<Record<FieldType, string>> = {
  Identity: 'an integer',
  String: 'text',
  Numeric: 'a number',
  Boolean: 'the number 0 (false) or 1 (true)',
  Date: 'a number yyyyMMdd (20240301)',
  DateTime: 'a number yyyyMMddHHmmss (20240301101500)',
  Time: 'a number HHmmss (181035)',
  Timespan: 'an integer number of milliseconds (60000)',
  Multiselection: 'an array of texts or numbers (["Fragile", "Express"])',
  File: 'Base64 text',
  Link: 'an absolute URL',
  Latitude: 'a decimal number from -90 to 90',
  Longitude: 'a decimal number from -180 to 180',
  WktShape: 'WKT text (POLYGON((...)))',
  ImageUri: 'an absolute URI',
  Color: 'RGBA colour text (#RRGGBBAA, #RRGGBB or rgba(r, g, b, a))',
  Icon: 'text naming an icon',
  RichText: 'HTML text',
}

/** Types whose values are numbers: stored in number columns, compared and ordered as numbers. */
const NUMERIC_TYPES: ReadonlySet<FieldType> = new Set(['Identity', 'Numeric', 'Boolean', 'Date', 'DateTime', 'Time', 'Timespan', 'Latitude', 'Longitude'])

/** Types whose values are text. */
const TEXT_TYPES: ReadonlySet<FieldType> = new Set(['String', 'File', 'Link', 'WktShape', 'ImageUri', 'Color', 'Icon', 'RichText'])

export function isNumericType(type: FieldType): boolean {
  return NUMERIC_TYPES.has(type)
}

/** Whether a type's values are texts: a rule's `maxLength` applies to them, and a filter compares them as texts. */
export function isTextType(type: FieldType): boolean {
  return TEXT_TYPES.has(type)
}

/** The date types: what the time zone and the date conversions apply to. */
export function isDateType(type: FieldType): type is 'Date' | 'DateTime' | 'Time' {
  return type === 'Date' || type === 'DateTime' || type === 'Time'
}

/** A converted value, and what it was converted from (for the warning). */
export interface Conversion {
  value: unknown
  from: string
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const ISO_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i
const ISO_TIME = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?$/
const NUMERIC_TEXT = /^\s*-?\d+(?:\.\d+)?\s*$/

/**
 * The value in its type's form when it was sent in another form that says one thing only: ISO
 * 8601 text into a date type (an offset or `Z` is moved into `timeZone`; no offset reads as the
 * installation's wall clock), `true`/`false` into a Boolean, digits in quotes into a number type.
 * undefined when the value is already in form or cannot be read unambiguously (an impossible
 * date, 13 digits into a DateTime, an array into a number).
 */
export function convertValue(type: FieldType, value: unknown, timeZone: string): Conversion | undefined {
  if (value === null || valueFits(type, value)) return undefined
  if (type === 'Boolean') {
    if (typeof value === 'boolean') return { value: value ? 1 : 0, from: String(value) }
    if (value === '0' || value === '1') return { value: Number(value), from: `the text "${value}"` }
    if (value === 'true' || value === 'false') return { value: value === 'true' ? 1 : 0, from: `the text "${value}"` }
    return undefined
  }
  if (typeof value !== 'string') return undefined
  const from = `the text ${JSON.stringify(value)}`
  if (isDateType(type)) {
    const converted = dateFromText(type, value.trim(), timeZone)
    return converted === undefined || !valueFits(type, converted) ? undefined : { value: converted, from }
  }
  if (isNumericType(type) && NUMERIC_TEXT.test(value)) {
    const number = Number(value)
    return valueFits(type, number) ? { value: number, from } : undefined
  }
  return undefined
}

/** A date type's number from ISO 8601 text or from its own digits in quotes; undefined when the text is neither. */
function dateFromText(type: 'Date' | 'DateTime' | 'Time', text: string, timeZone: string): number | undefined {
  if (/^\d+$/.test(text)) {
    const digits = { Date: 8, DateTime: 14, Time: 6 }[type]
    return text.length === digits ? Number(text) : undefined
  }
  if (type === 'Time') {
    const m = ISO_TIME.exec(text)
    return m === null ? undefined : Number(`${m[1]}${m[2]}${m[3] ?? '00'}`)
  }
  if (type === 'Date') {
    const m = ISO_DATE.exec(text)
    return m === null ? undefined : Number(`${m[1]}${m[2]}${m[3]}`)
  }
  const m = ISO_DATE_TIME.exec(text)
  if (m === null) return undefined
  const [, y, mo, d, h, mi, s = '00', offset] = m as unknown as string[]
  const wall = Number(`${y}${mo}${d}${h}${mi}${s}`)
  if (offset === undefined || !isDateTimeNumber(wall)) return wall
  // An instant (Z or an offset): the installation's wall clock at that instant.
  const sign = offset.toUpperCase() === 'Z' ? 0 : offset.startsWith('-') ? -1 : 1
  const digits = offset.replace(/[^0-9]/g, '')
  const offsetMs = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || 0)) * 60000
  return dateTimeIn(wallToUtcMs(wall) - offsetMs, timeZone)
}

/** Milliseconds of a wall-clock DateTime number read as if it were UTC (for arithmetic on wall clocks). */
export function wallToUtcMs(value: number): number {
  const s = String(value)
  return Date.UTC(
    Number(s.slice(0, 4)),
    Number(s.slice(4, 6)) - 1,
    Number(s.slice(6, 8)),
    Number(s.slice(8, 10)),
    Number(s.slice(10, 12)),
    Number(s.slice(12, 14)),
  )
}

/** The DateTime number of a wall clock held as UTC milliseconds (the inverse of wallToUtcMs). */
export function utcMsToWall(ms: number): number {
  // Whole milliseconds in years 0000 to 9999: the day's date (yyyyMMdd) is read once per distinct
  // day and the time of day is arithmetic. The generator calls this once per row, minutes apart,
  // and a Date and its ISO text per call were a quarter of loading a million orders.
  if (!Number.isInteger(ms) || ms < FIRST_WALL_MS || ms >= END_WALL_MS) return isoWall(ms)
  const day = Math.floor(ms / DAY_MS)
  if (day !== lastDay) {
    lastDate = Math.floor(isoWall(day * DAY_MS) / 1_000_000)
    lastDay = day
  }
  const seconds = Math.floor((ms - day * DAY_MS) / 1000)
  return lastDate * 1_000_000 + Math.floor(seconds / 3600) * 10_000 + (Math.floor(seconds / 60) % 60) * 100 + (seconds % 60)
}

const DAY_MS = 86_400_000
/** 0000-01-01T00:00:00Z and 10000-01-01T00:00:00Z: the instants whose ISO text has a four-digit year. */
const FIRST_WALL_MS = -62_167_219_200_000
const END_WALL_MS = 253_402_300_800_000
/** The last day utcMsToWall read a date for (days since 1970-01-01), and that date as yyyyMMdd. */
let lastDay = Number.NaN
let lastDate = 0

/** The DateTime number of an instant read from its ISO text (any instant a Date holds). */
function isoWall(ms: number): number {
  const iso = new Date(ms).toISOString()
  return Number(iso.slice(0, 19).replace(/[-T:]/g, ''))
}

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone)
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

/** Whether the name is an IANA time zone this runtime knows (`UTC`, `Europe/Rome`). */
export function isTimeZone(name: string): boolean {
  // Every runtime knows UTC (the default); building a first formatter loads the time-zone data, tens of milliseconds of a start.
  if (name === 'UTC') return true
  try {
    formatterOf(name)
    return true
  } catch {
    return false
  }
}

/** The DateTime number yyyyMMddHHmmss of an instant (epoch milliseconds) on the wall clock of `timeZone`. */
export function dateTimeIn(ms: number, timeZone: string): number {
  if (timeZone === 'UTC') return utcMsToWall(ms)
  const parts: Record<string, string> = {}
  for (const part of formatterOf(timeZone).formatToParts(new Date(ms))) parts[part.type] = part.value
  return Number(`${parts.year?.padStart(4, '0')}${parts.month}${parts.day}${parts.hour}${parts.minute}${parts.second}`)
}
