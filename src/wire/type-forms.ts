/**
 * The product's data types and the form each one's values take on the wire (the product's
 * reference, Data Types): Boolean 0/1, Date `yyyyMMdd`, DateTime `yyyyMMddHHmmss` and Time `HHmmss`
 * as numbers, Timespan in milliseconds, File as Base64 text, Multiselection as an array. Here in
 * wire/, below the store, because whoever reads the API needs them too: the contracts (a black box
 * that knows the wire, never the store), capture, the fixtures and the store itself. Predicates
 * only: converting other forms and time zones stay in the store (src/store/model/data-types.ts).
 */

/** The type names a fixture field takes, as the product names its data types. */
export const PRODUCT_TYPES = [
  'String',
  'Numeric',
  'Boolean',
  'Date',
  'DateTime',
  'Time',
  'Timespan',
  'Multiselection',
  'File',
  'Link',
  'Latitude',
  'Longitude',
  'WktShape',
  'ImageUri',
  'Color',
  'Icon',
  'RichText',
] as const

export type ProductType = (typeof PRODUCT_TYPES)[number]

/** A user field's type, or Identity: the integer system fields and the storage's Identity field. */
export type FieldType = ProductType | 'Identity'

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const WKT = /^\s*(?:POINT|LINESTRING|POLYGON|MULTIPOINT|MULTILINESTRING|MULTIPOLYGON|GEOMETRYCOLLECTION)(?:\s+(?:Z|M|ZM))?\s*(?:\(|EMPTY\b)/i
const HEX_COLOR = /^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/
const RGB_COLOR = /^rgba?\(\s*\d{1,3}\s*,\s*\d{1,3}\s*,\s*\d{1,3}\s*(?:,\s*(?:0|1|0?\.\d+)\s*)?\)$/i

/** Whether a number is a calendar date yyyyMMdd (years 1000 to 9999, so always 8 digits). */
export function isDateNumber(value: number): boolean {
  if (!Number.isSafeInteger(value) || value < 10000101 || value > 99991231) return false
  return isCalendarDate(Math.floor(value / 10000), Math.floor(value / 100) % 100, value % 100)
}

/** Whether a number is a time of day HHmmss. */
export function isTimeNumber(value: number): boolean {
  if (!Number.isSafeInteger(value) || value < 0 || value > 235959) return false
  return Math.floor(value / 100) % 100 < 60 && value % 100 < 60
}

/** Whether a number is a date and time yyyyMMddHHmmss. */
export function isDateTimeNumber(value: number): boolean {
  if (!Number.isSafeInteger(value) || value < 10000101000000 || value > 99991231235959) return false
  return isDateNumber(Math.floor(value / 1000000)) && isTimeNumber(value % 1000000)
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  if (month < 1 || month > 12 || day < 1) return false
  const days = [31, year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
  return day <= (days[month - 1] as number)
}

/** Decimal places of a number as written (JSON's shortest form). */
function decimalsOfNumber(value: number): number {
  if (Number.isInteger(value)) return 0
  const text = String(value)
  if (text.includes('e-')) return Number(text.split('e-')[1]) + (text.split('e')[0]?.split('.')[1]?.length ?? 0)
  return text.split('.')[1]?.length ?? 0
}

/**
 * `decimalsOfNumber(value) <= decimals` without writing the number out in most cases: a value with
 * at most `decimals` decimals is the double nearest to n / 10^decimals for an integer n, and only
 * such a value is (n and 10^decimals exact, so the division rounds once). Past 2^50 or 10^22 the
 * text decides.
 */
function fitsDecimals(value: number, decimals: number): boolean {
  if (Number.isInteger(value)) return true
  if (Number.isInteger(decimals) && decimals >= 0 && decimals <= 22) {
    const scale = 10 ** decimals
    const n = Math.round(value * scale)
    // Below 2^50 the product is off its integer by well under a half, so the rounding finds it.
    if (Math.abs(n) <= 2 ** 50) return n / scale === value
  }
  return decimalsOfNumber(value) <= decimals
}

/**
 * Whether a value has the form of its type, exactly (no conversion). Null fits every field (the
 * description marks fields nullable). `decimals`: the Numeric field's format (0: integers only).
 */
export function valueFits(type: FieldType, value: unknown, decimals?: number): boolean {
  if (value === null) return true
  switch (type) {
    case 'Identity':
      return Number.isSafeInteger(value)
    case 'Numeric':
      return typeof value === 'number' && Number.isFinite(value) && (decimals === undefined || fitsDecimals(value, decimals))
    case 'Boolean':
      return value === 0 || value === 1
    case 'Date':
      return typeof value === 'number' && isDateNumber(value)
    case 'DateTime':
      return typeof value === 'number' && isDateTimeNumber(value)
    case 'Time':
      return typeof value === 'number' && isTimeNumber(value)
    case 'Timespan':
      return Number.isSafeInteger(value)
    case 'Latitude':
      return typeof value === 'number' && value >= -90 && value <= 90
    case 'Longitude':
      return typeof value === 'number' && value >= -180 && value <= 180
    case 'Multiselection':
      return Array.isArray(value) && value.every((item) => typeof item === 'string' || (typeof item === 'number' && Number.isFinite(item)))
    case 'File':
      return typeof value === 'string' && BASE64.test(value)
    case 'Link':
    case 'ImageUri':
      return typeof value === 'string' && isAbsoluteUri(value)
    case 'WktShape':
      return typeof value === 'string' && WKT.test(value)
    case 'Color':
      return typeof value === 'string' && (HEX_COLOR.test(value) || RGB_COLOR.test(value))
    case 'String':
    case 'Icon':
    case 'RichText':
      return typeof value === 'string'
  }
}

function isAbsoluteUri(text: string): boolean {
  return /^[A-Za-z][A-Za-z0-9+.-]*:\S+$/.test(text) && URL.canParse(text)
}
