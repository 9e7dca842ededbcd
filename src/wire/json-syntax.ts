/**
 * Where a text stops being JSON (RFC 8259), and why, in the project's own words. `JSON.parse` says
 * it in the runtime's words, which change between Node lines (Node 22 added the line and column
 * to V8's message, Node 20 has neither for some mistakes), so a message built on them reads
 * differently wherever the mock runs. The scanner below runs only after `JSON.parse` has refused a
 * text: the value always comes from `JSON.parse`, and a test holds the two to the same verdict.
 */
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COLON, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE, isJsonSpace } from './json-codes.ts'

/** Where and why a text is not JSON. */
export interface JsonSyntaxError {
  /** The index (UTF-16 code units, from 0) of the first character that cannot stand where it is; the text's length when the text ends too soon. */
  position: number
  /** Line (from 1; a line ends at `\n`) and column (from 1, in code units) of `position`. */
  line: number
  column: number
  /** What is wrong there, starting in lower case: `'}' where a member name in double quotes was expected`. */
  reason: string
}

/** What the scanner waits for next. */
type Expect = 'value' | 'first-value' | 'name' | 'first-name' | 'colon' | 'after-value'

/** What each state waits for, as a message names it (after a value, the open bracket decides). */
const EXPECTED: Record<Exclude<Expect, 'after-value'>, string> = {
  value: 'a value',
  'first-value': "a value or ']'",
  name: 'a member name in double quotes',
  'first-name': "a member name in double quotes or '}'",
  colon: "':' after the member name",
}

const HEX = /^[0-9A-Fa-f]$/
/**
 * A run of a string's plain characters, and a whole number followed by nothing a number could go
 * on with: the common cases, matched by the regular expression engine's compiled code (sticky,
 * from the scanner's position; neither repeats a group, so neither backtracks). What they do not
 * match is read a character at a time, to say where and why.
 */
const PLAIN = /[^"\\\u0000-\u001f]*/y
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?(?![0-9.eE+-])/y
const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39

/** A character as a message shows it: `'}'`, or its code point for an invisible one (`U+0000`, `U+FEFF (a byte order mark)`). */
function shown(text: string, at: number): string {
  const code = text.codePointAt(at) as number
  const hex = `U+${code.toString(16).toUpperCase().padStart(4, '0')}`
  if (code === 0xfeff) return `${hex} (a byte order mark)`
  if (code < 0x20 || (code >= 0x7f && code <= 0xa0) || code === 0x2028 || code === 0x2029) return hex
  return `'${String.fromCodePoint(code)}'`
}

/** Line and column (from 1) of a position in a text. */
export function lineAndColumn(text: string, position: number): { line: number; column: number } {
  let line = 1
  let start = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < position; i = text.indexOf('\n', i + 1)) {
    line++
    start = i + 1
  }
  return { line, column: position - start + 1 }
}

/**
 * The first place where `text` stops being one JSON text (RFC 8259: one value, white space around
 * it), or undefined when it is JSON. Iterative (a stack of open brackets), so any nesting depth is
 * scanned in one pass over the text.
 */
export function findJsonSyntaxError(text: string): JsonSyntaxError | undefined {
  const end = text.length
  const open: number[] = []
  let expect: Expect = 'value'
  let at = 0
  const fail = (position: number, reason: string): JsonSyntaxError => ({ position, ...lineAndColumn(text, position), reason })
  const endsEarly = (what: string): JsonSyntaxError => fail(end, `the text ends where ${what} was expected`)
  const unexpected = (what: string): JsonSyntaxError => fail(at, `${shown(text, at)} where ${what} was expected`)

  /** Past the string whose quote is at `at`; an error when it is not a JSON string. */
  const string = (): JsonSyntaxError | undefined => {
    at++
    for (;;) {
      PLAIN.lastIndex = at
      PLAIN.test(text)
      at = PLAIN.lastIndex
      if (at >= end) return endsEarly(`the closing '"' of a string`)
      const c = text.charCodeAt(at)
      if (c === QUOTE) {
        at++
        return undefined
      }
      if (c < 0x20) return fail(at, `the control character ${shown(text, at)} inside a string, where JSON takes it only as an escape (\\n, \\t, \\u00XX)`)
      if (c !== BACKSLASH) {
        at++
        continue
      }
      at++
      if (at >= end) return endsEarly("an escape after '\\'")
      const escape = text[at] as string
      if ('"\\/bfnrt'.includes(escape)) {
        at++
        continue
      }
      if (escape !== 'u') return fail(at, `${shown(text, at)} after '\\' in a string, where JSON's escapes are \\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX`)
      for (let digit = 1; digit <= 4; digit++) {
        if (at + digit >= end) return endsEarly('the four hexadecimal digits of a \\u escape')
        if (!HEX.test(text[at + digit] as string)) {
          at += digit
          return unexpected('a hexadecimal digit of a \\u escape')
        }
      }
      at += 5
    }
  }

  /** Past the number that starts at `at` (RFC 8259, section 6: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?). */
  const number = (): JsonSyntaxError | undefined => {
    NUMBER.lastIndex = at
    if (NUMBER.test(text)) {
      at = NUMBER.lastIndex
      return undefined
    }
    const digits = (what: string): JsonSyntaxError | undefined => {
      if (at >= end) return endsEarly(what)
      if (!isDigit(text.charCodeAt(at))) return unexpected(what)
      while (at < end && isDigit(text.charCodeAt(at))) at++
      return undefined
    }
    if (text.charCodeAt(at) === 0x2d) at++
    if (at < end && text.charCodeAt(at) === 0x30) at++
    else {
      const whole = digits("a digit of the number after '-'")
      if (whole !== undefined) return whole
    }
    if (at < end && text.charCodeAt(at) === 0x2e) {
      at++
      const fraction = digits("a digit after the number's '.'")
      if (fraction !== undefined) return fraction
    }
    if (at < end && (text.charCodeAt(at) | 0x20) === 0x65) {
      at++
      if (at < end && (text.charCodeAt(at) === 0x2b || text.charCodeAt(at) === 0x2d)) at++
      const exponent = digits("a digit of the number's exponent")
      if (exponent !== undefined) return exponent
    }
    return undefined
  }

  /** Past `true`, `false` or `null`, whose first letter is at `at`. */
  const literal = (word: string): JsonSyntaxError | undefined => {
    for (let i = 1; i < word.length; i++) {
      if (at + i >= end) return endsEarly(`the rest of ${word}`)
      if (text[at + i] !== word[i]) {
        at += i
        return unexpected(`the rest of ${word}`)
      }
    }
    at += word.length
    return undefined
  }

  /** A whole value or the opening of an array or object, at `at`; `expected` names what was wanted there. */
  const value = (expected: string): JsonSyntaxError | undefined => {
    const c = text.charCodeAt(at)
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      open.push(c)
      at++
      expect = c === OPEN_OBJECT ? 'first-name' : 'first-value'
      return undefined
    }
    expect = 'after-value'
    if (c === QUOTE) return string()
    if (c === 0x2d || isDigit(c)) return number()
    if (c === 0x74) return literal('true')
    if (c === 0x66) return literal('false')
    if (c === 0x6e) return literal('null')
    return unexpected(expected)
  }

  for (;;) {
    while (at < end && isJsonSpace(text.charCodeAt(at))) at++
    if (at >= end) {
      if (expect === 'after-value' && open.length === 0) return undefined
      if (expect === 'value' && open.length === 0)
        return fail(end, at === 0 ? 'the text is empty where a JSON value was expected' : 'the text holds only white space where a JSON value was expected')
      const inside = open.at(-1) === OPEN_OBJECT ? "',' or '}'" : "',' or ']'"
      return endsEarly(expect === 'after-value' ? inside : EXPECTED[expect])
    }
    const c = text.charCodeAt(at)
    let error: JsonSyntaxError | undefined
    // Read through a constant: the scanning functions above change `expect` too, which the compiler's narrowing does not see.
    const state = expect as Expect
    switch (state) {
      case 'first-value':
        if (c === CLOSE_ARRAY) {
          open.pop()
          at++
          expect = 'after-value'
          continue
        }
        error = value(EXPECTED['first-value'])
        break
      case 'value':
        error = value(EXPECTED.value)
        break
      case 'first-name':
      case 'name':
        if (c === CLOSE_OBJECT && state === 'first-name') {
          open.pop()
          at++
          expect = 'after-value'
          continue
        }
        if (c !== QUOTE) return unexpected(EXPECTED[state])
        error = string()
        expect = 'colon'
        break
      case 'colon':
        if (c !== COLON) return unexpected(EXPECTED.colon)
        at++
        expect = 'value'
        continue
      case 'after-value': {
        const top = open[open.length - 1]
        if (top === undefined) return unexpected('the end of the text, after a whole JSON value')
        const close = top === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY
        if (c === COMMA) {
          at++
          expect = top === OPEN_OBJECT ? 'name' : 'value'
          continue
        }
        if (c === close) {
          open.pop()
          at++
          continue
        }
        return unexpected(top === OPEN_OBJECT ? "',' or '}'" : "',' or ']'")
      }
    }
    if (error !== undefined) return error
  }
}

/** The error as a message's clause: `'}' where a member name in double quotes was expected (line 3, column 1)`. */
export function describeJsonSyntaxError(error: JsonSyntaxError): string {
  return `${error.reason} (line ${error.line}, column ${error.column})`
}

/**
 * `JSON.parse(text)`, or where and why the text is not JSON. Should the runtime refuse a text the
 * scanner takes for JSON (none known), the error stands at the text's end with a reason that says so.
 */
export function parseJsonText(text: string): { value: unknown } | { error: JsonSyntaxError } {
  try {
    return { value: JSON.parse(text) as unknown }
  } catch {
    return {
      error: findJsonSyntaxError(text) ?? { position: text.length, ...lineAndColumn(text, text.length), reason: 'the runtime refused the text as JSON' },
    }
  }
}
