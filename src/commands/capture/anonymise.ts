import { deriveSeed, mulberry32 } from '../../wire/prng.ts'
import { utcMsToWall } from '../../store/model/data-types.ts'
import { valueFits, type FieldType } from '../../wire/type-forms.ts'

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
const LOWER = 'abcdefghijklmnopqrstuvwxyz'
const DIGITS = '0123456789'
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})?$/
const EMAIL = /^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$/

/** The observed range of a numeric field, and whether its values are whole. */
export interface NumberRange {
  min: number
  max: number
  integer: boolean
  /** Decimal places of the most precise value seen. */
  decimals: number
}

/** The observed span of a date field, as milliseconds since the epoch. */
export interface DateSpan {
  min: number
  max: number
}

/**
 * Replaces captured values with generated ones of the same shape, so a fixture of a real
 * application holds none of its data:
 * - text keeps its length and, character by character, its class (capital, small letter, digit;
 *   spaces and punctuation stay), so codes keep their pattern; e-mail addresses stay addresses
 *   (at `example.test`) and dates stay dates within the span seen;
 * - numbers stay within the range seen, with the same precision;
 * - the same input always gives the same output within one capture (filters on equal values
 *   keep working), and no output is any captured text (`forbid` holds every original).
 * Seeded: the same capture with the same seed gives the same file.
 */
export class Anonymiser {
  readonly #texts = new Map<string, string>()
  readonly #taken = new Set<string>()
  readonly #forbidden: ReadonlySet<string>
  readonly #seed: number

  constructor(seed: number, forbid: Iterable<string>) {
    this.#seed = seed
    this.#forbidden = new Set(forbid)
  }

  /** A text in place of `value`; `span` makes date texts dates within it. */
  text(value: string, span?: DateSpan): string {
    const known = this.#texts.get(value)
    if (known !== undefined) return known
    for (let attempt = 0; ; attempt++) {
      const random = mulberry32(deriveSeed(this.#seed, 'text', value, String(attempt)))
      const candidate = this.#shape(value, random, span, attempt)
      // The same output for two inputs would merge values that differ; an original would leak.
      if (!this.#forbidden.has(candidate) && !this.#taken.has(candidate)) {
        this.#texts.set(value, candidate)
        this.#taken.add(candidate)
        return candidate
      }
    }
  }

  /**
   * A file name in place of `name`: the stem replaced, the extension kept (the media type still
   * fits), and never a name captured or given out before, whole or stem.
   */
  fileName(name: string): string {
    const known = this.#texts.get(`\u0000file:${name}`)
    if (known !== undefined) return known
    const extension = /\.[A-Za-z0-9]{1,8}$/.exec(name)?.[0] ?? ''
    const stem = name.slice(0, name.length - extension.length) || name
    for (let attempt = 0; ; attempt++) {
      const candidate = `${this.#shape(stem, mulberry32(deriveSeed(this.#seed, 'file', name, String(attempt))), undefined, attempt)}${extension}`
      if (!this.#forbidden.has(candidate) && !this.#taken.has(candidate)) {
        this.#texts.set(`\u0000file:${name}`, candidate)
        this.#taken.add(candidate)
        return candidate
      }
    }
  }

  /** A number in place of `value`, within the range; the same value gives the same number. */
  number(field: string, value: number, range: NumberRange): number {
    const random = mulberry32(deriveSeed(this.#seed, 'number', field, String(value)))
    if (range.integer) return range.min + Math.floor(random() * (range.max - range.min + 1))
    const scale = 10 ** Math.min(range.decimals, 6)
    return Math.round((range.min + random() * (range.max - range.min)) * scale) / scale
  }

  /** A DateTime number within the span (wall-clock milliseconds); the same value gives the same number. */
  dateTime(value: number, span: DateSpan | undefined): number {
    if (span === undefined) return value
    const random = mulberry32(deriveSeed(this.#seed, 'dateTime', String(value)))
    return utcMsToWall(span.min + Math.floor(random() * (span.max - span.min + 1)))
  }

  /**
   * A text in place of a value of a text type that stays valid for it: Base64 stays Base64 of
   * the same length, a URL keeps its scheme, host and shape, a colour stays a colour, a WKT shape
   * its keyword and coordinates' shape; HTML keeps its tags.
   */
  typedText(type: FieldType, value: string, span?: DateSpan): string {
    if (!valueFits(type, value)) return this.text(value, span)
    switch (type) {
      case 'File':
        return this.#mapped(value, (v, random) => Buffer.from(Buffer.from(v, 'base64').map(() => Math.floor(random() * 256))).toString('base64'))
      case 'Link':
      case 'ImageUri': {
        const url = new URL(value)
        return this.#mapped(
          value,
          (_v, random, attempt) => `${url.protocol}//${url.host}${mapCharacters(url.pathname + url.search + url.hash, random, attempt)}`,
        )
      }
      case 'Color':
      case 'WktShape':
      case 'Icon':
        // A colour, a shape or an icon name says nothing of the people or business behind it.
        return value
      case 'RichText':
        return this.#mapped(value, (v, random, attempt) => v.replace(/>([^<]+)</g, (_m, inner: string) => `>${mapCharacters(inner, random, attempt)}<`))
      default:
        return this.text(value, span)
    }
  }

  /** One shape function's output, checked as `text` checks its own: never an original, never another value's. */
  #mapped(value: string, shape: (value: string, random: () => number, attempt: number) => string): string {
    const known = this.#texts.get(value)
    if (known !== undefined) return known
    for (let attempt = 0; attempt < 64; attempt++) {
      const candidate = shape(value, mulberry32(deriveSeed(this.#seed, 'typed', value, String(attempt))), attempt)
      if (!this.#forbidden.has(candidate) && !this.#taken.has(candidate)) {
        this.#texts.set(value, candidate)
        this.#taken.add(candidate)
        return candidate
      }
    }
    return this.text(value)
  }

  #shape(value: string, random: () => number, span: DateSpan | undefined, attempt: number): string {
    if (span !== undefined && (ISO_DATE_TIME.test(value) || ISO_DATE.test(value))) {
      const iso = new Date(span.min + Math.floor(random() * (span.max - span.min + 1))).toISOString()
      return ISO_DATE.test(value) ? iso.slice(0, 10) : iso
    }
    if (EMAIL.test(value)) {
      const local = value.slice(0, value.indexOf('@'))
      return `${mapCharacters(local, random, attempt)}@example.test`
    }
    return mapCharacters(value, random, attempt)
  }
}

/**
 * Each letter a random letter of the same case, each digit a random digit; everything else kept.
 * A text with nothing to replace (only punctuation) gets a letter appended per attempt, so it
 * still changes.
 */
function mapCharacters(value: string, random: () => number, attempt: number): string {
  let out = ''
  let replaced = 0
  for (const char of value) {
    const pick = (alphabet: string) => alphabet[Math.floor(random() * alphabet.length)] as string
    if (/\p{Lu}/u.test(char)) {
      out += pick(UPPER)
      replaced++
    } else if (/\p{L}/u.test(char)) {
      out += pick(LOWER)
      replaced++
    } else if (/\p{N}/u.test(char)) {
      out += pick(DIGITS)
      replaced++
    } else out += char
  }
  return replaced === 0 || attempt > 8 ? `${out}${LOWER[Math.floor(random() * LOWER.length)]}` : out
}

/** The range of the numbers of one field. */
export function rangeOf(values: readonly number[]): NumberRange {
  const decimals = Math.max(0, ...values.map((value) => (String(value).split('.')[1] ?? '').length))
  return { min: Math.min(...values), max: Math.max(...values), integer: values.every(Number.isInteger), decimals }
}

/** The span of the date texts (or of the times, in milliseconds) of one field. */
export function spanOf(values: readonly string[] | readonly number[]): DateSpan | undefined {
  const times = values.map((value) => (typeof value === 'number' ? value : Date.parse(value))).filter((time) => !Number.isNaN(time))
  // Whole seconds, as DateTime numbers have them.
  return times.length === 0 ? undefined : { min: Math.min(...times), max: Math.max(...times) - (Math.max(...times) % 1000) }
}
