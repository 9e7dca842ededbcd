import { COMPARE_OPS, TEXT_FUNCTIONS, type CompareOp, type FilterLiteral, type FilterNode, type TextFunction } from './filter-ast.ts'
import type { StoreError } from './model/types.ts'
import { shortened } from './model/field-values.ts'
import { queryReading } from '../wire/query-string.ts'

/**
 * Hand-written recursive-descent parser for `$filter`. Grammar (keywords case-insensitive):
 *
 *   filter  := or
 *   or      := and ('or' and)*
 *   and     := unary ('and' unary)*
 *   unary   := 'not' unary | primary
 *   primary := '(' or ')' | fn '(' Field ',' string ')' | Field op literal
 *   fn      := 'contains' | 'startswith' | 'endswith'
 *   op      := 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le'
 *   literal := 'text' ('' escapes a quote) | number | 'null' | 'true' | 'false'
 *
 * So `not` binds tighter than `and`, which binds tighter than `or`. The description shows only
 * `<field> eq '<value>'`; the rest follows OData, which the product's query language resembles.
 */

/** A filter that could not be understood; `position` is 1-based. */
export interface FilterError extends StoreError<'BAD_FILTER' | 'UNKNOWN_FIELD'> {
  position: number
}

type Token =
  | { t: 'ident'; text: string; pos: number }
  | { t: 'string'; value: string; pos: number }
  | { t: 'number'; value: number; raw: string; pos: number }
  | { t: '(' | ')' | ','; pos: number }
  | { t: 'end'; pos: number }

/** The tree of a filter text, or where and why it stops making sense. */
export function parseFilter(text: string): FilterNode | FilterError {
  return parseTokens(new Lexer(text))
}

/** The parse over tokens as a lexer hands them out. */
function parseTokens(lexer: Tokens): FilterNode | FilterError {
  const parser = new Parser(lexer)
  try {
    const node = parser.or()
    parser.expectEnd()
    return node
  } catch (error) {
    // The parser throws only its own `Stop` to unwind; anything else is a bug and propagates.
    if (error instanceof Stop) return error.failure
    throw error
  }
}

/** Tokens read before the parse of a long filter begins (the most a valid filter has is some 35,000). */
const READ_AHEAD = 65_536

/**
 * `parseFilter`'s answer for a long text, its tokens read first, in slices of about `sliceMs`,
 * awaiting `pause()` (the caller's turn of the event loop) between slices: a quoted text of 60 MB,
 * or of millions of `''`, took seconds to read. The parse then runs over the tokens read (a few
 * thousand at most, and on from there should it ask for more), and answers as `parseFilter`: a
 * token that could not be read stops the parse only when the parse reaches it.
 */
export async function parseFilterInSlices(text: string, pause: () => Promise<void>, sliceMs = 8): Promise<FilterNode | FilterError> {
  const lexer = new Lexer(text)
  const read: Array<Token | Stop> = []
  const reading = (function* (): Generator<void, void, void> {
    while (read.length < READ_AHEAD) {
      let token: Token
      try {
        token = yield* lexer.read()
      } catch (error) {
        if (!(error instanceof Stop)) throw error
        read.push(error)
        return
      }
      read.push(token)
      if (token.t === 'end') return
    }
  })()
  for (let done = false; !done; ) {
    const until = performance.now() + sliceMs
    for (;;) {
      if (reading.next().done === true) {
        done = true
        break
      }
      if (performance.now() >= until) break
    }
    if (!done) await pause()
  }
  let next = 0
  return parseTokens({
    next(): Token {
      if (next >= read.length) return lexer.next()
      const token = read[next++] as Token | Stop
      if (token instanceof Stop) throw token
      return token
    },
  })
}

/** Where the parser takes its tokens from. */
interface Tokens {
  next(): Token
}

class Stop {
  constructor(readonly failure: FilterError) {}
}

function failure(position: number, message: string): FilterError {
  return { error: 'BAD_FILTER', position, message: `$filter, character ${position}: ${message}` }
}

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const SPACE = /[ \t\n\r]*/y
const QUOTES = /'+/y
/** The longest word of the filter language (`startswith`): a longer name is none of them. */
const LONGEST_WORD = 10
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y

/**
 * The filter's tokens, read as the parser asks for them rather than all at once: the limits on
 * nesting and conditions then stop a hostile text (50 MB of `(`) after a few tokens, where
 * tokenising it whole first took seconds and gigabytes while every other request waited.
 * A character no token starts with stops the parse (a `Stop`) when the parser reaches it.
 */
class Lexer implements Tokens {
  #i = 0
  constructor(private readonly text: string) {}

  next(): Token {
    const reading = this.read()
    for (;;) {
      const step = reading.next()
      if (step.done === true) return step.value
    }
  }

  /** The next token, as work that may pause (a `yield`) inside a long quoted text. */
  *read(): Generator<void, Token, void> {
    const text = this.text
    // White space skipped by one sticky expression: a character at a time, 59 MB of it took a third of a second.
    SPACE.lastIndex = this.#i
    SPACE.test(text)
    const i = SPACE.lastIndex
    const pos = i + 1
    if (i >= text.length) {
      this.#i = i
      return { t: 'end', pos: text.length + 1 }
    }
    const c = text[i] as string
    if (c === '(' || c === ')' || c === ',') {
      this.#i = i + 1
      return { t: c, pos }
    }
    if (c === "'") {
      // '' is a quote inside the text: the text ends at the first run of quotes of odd length (its last
      // quote), found a run at a time; the pairs before it are then read as quotes.
      let j = i + 1
      let close: number
      for (let runs = 1; ; runs++) {
        const quote = text.indexOf("'", j)
        if (quote < 0) throw new Stop(failure(pos, 'this quoted text is never closed; expected a closing quote'))
        QUOTES.lastIndex = quote
        QUOTES.test(text)
        const end = QUOTES.lastIndex
        if ((end - quote) % 2 === 1) {
          close = end - 1
          break
        }
        j = end
        if (runs % RUNS_PER_PAUSE === 0) yield
      }
      this.#i = close + 1
      return { t: 'string', value: yield* unquoted(text.slice(i + 1, close)), pos }
    }
    if (c === '-' || (c >= '0' && c <= '9')) {
      NUMBER.lastIndex = i
      const match = NUMBER.exec(text)
      if (match === null) throw new Stop(failure(pos, `expected a number after '-', found '${text.slice(i, i + 10)}'`))
      const raw = match[0]
      this.#i = i + raw.length
      return { t: 'number', value: Number(raw), raw, pos }
    }
    if (/[A-Za-z_]/.test(c)) {
      IDENT.lastIndex = i
      const raw = (IDENT.exec(text) as RegExpExecArray)[0]
      this.#i = i + raw.length
      return { t: 'ident', text: raw, pos }
    }
    throw new Stop(failure(pos, `unexpected character '${c}'`))
  }
}

/** Runs of quotes found between two chances for a slice to end. */
const RUNS_PER_PAUSE = 4096

/**
 * A quoted text's content with each `''` read as one quote (its runs of quotes are all of even
 * length). A long one is read a window at a time (`queryReading.pieceChars`), each cut after a pair,
 * with a chance for a slice to end between windows.
 */
function* unquoted(raw: string): Generator<void, string, void> {
  if (!raw.includes("''")) return raw
  const piece = Math.max(2, queryReading.pieceChars)
  if (raw.length <= piece) return raw.split("''").join("'")
  const parts: string[] = []
  for (let at = 0; at < raw.length; ) {
    let end = Math.min(raw.length, at + piece)
    // Cut after a pair: count the quotes before the cut back to the last other character (or the window's start, itself after a pair).
    let back = end
    while (back > at && raw.charCodeAt(back - 1) === 39) back--
    if ((end - back) % 2 === 1) end -= 1
    parts.push(raw.slice(at, end).split("''").join("'"))
    at = end
    yield
  }
  return parts.join('')
}

function describe(token: Token): string {
  switch (token.t) {
    case 'end':
      return 'the end of the filter'
    case 'ident':
      return `'${shortened(token.text)}'`
    case 'string':
      return `the text '${shortened(token.value)}'`
    case 'number':
      return `the number ${shortened(token.raw)}`
    default:
      return `'${token.t}'`
  }
}

function isKeyword(token: Token, word: string): boolean {
  // Lower case is never shorter: a longer name is not the word (and 59 MB of one is not lowered).
  return token.t === 'ident' && token.text.length === word.length && token.text.toLowerCase() === word
}

/**
 * Bounds on a filter's shape, so that no text can exhaust the stack of the parser or of the
 * compiled predicate (both recurse over the tree). Far beyond any filter a client writes.
 */
export const MAX_FILTER_NESTING = 64
export const MAX_FILTER_CONDITIONS = 256

class Parser {
  #nesting = 0
  #joins = 0
  /** Tokens read ahead and not yet consumed (the parser looks at most two ahead). */
  readonly #ahead: Token[] = []
  constructor(private readonly lexer: Tokens) {}

  /** Counts one more level of `(` or `not`; refuses the filter past MAX_FILTER_NESTING. */
  private enter(token: Token): void {
    this.#nesting++
    if (this.#nesting > MAX_FILTER_NESTING) {
      throw new Stop(failure(token.pos, `parentheses and 'not' nest more than ${MAX_FILTER_NESTING} deep`))
    }
  }

  /** Counts one more `and` / `or`; refuses the filter past MAX_FILTER_CONDITIONS conditions. */
  private join(token: Token): void {
    this.#joins++
    if (this.#joins >= MAX_FILTER_CONDITIONS) {
      throw new Stop(failure(token.pos, `more than ${MAX_FILTER_CONDITIONS} conditions joined by 'and' / 'or'`))
    }
  }

  private peek(offset = 0): Token {
    while (this.#ahead.length <= offset) {
      const last = this.#ahead[this.#ahead.length - 1]
      // Past the end the lexer answers 'end' again, so the parser never reads beyond it.
      this.#ahead.push(last?.t === 'end' ? last : this.lexer.next())
    }
    return this.#ahead[offset] as Token
  }

  private next(): Token {
    const token = this.peek()
    if (token.t !== 'end') this.#ahead.shift()
    return token
  }

  private fail(token: Token, expected: string): never {
    throw new Stop(failure(token.pos, `expected ${expected}, found ${describe(token)}`))
  }

  or(): FilterNode {
    let left = this.and()
    while (isKeyword(this.peek(), 'or')) {
      this.join(this.next())
      left = { kind: 'or', left, right: this.and() }
    }
    return left
  }

  private and(): FilterNode {
    let left = this.unary()
    while (isKeyword(this.peek(), 'and')) {
      this.join(this.next())
      left = { kind: 'and', left, right: this.unary() }
    }
    return left
  }

  private unary(): FilterNode {
    if (isKeyword(this.peek(), 'not')) {
      this.enter(this.next())
      const operand = this.unary()
      this.#nesting--
      return { kind: 'not', operand }
    }
    return this.primary()
  }

  private primary(): FilterNode {
    const token = this.peek()
    if (token.t === '(') {
      this.enter(this.next())
      const inner = this.or()
      const close = this.peek()
      if (close.t !== ')') this.fail(close, `')' to close the '(' at character ${token.pos}, or 'and' / 'or'`)
      this.next()
      this.#nesting--
      return inner
    }
    if (token.t !== 'ident') this.fail(token, "a field name, a function (contains, startswith, endswith), 'not' or '('")
    // Names are lowered only when short enough to be a word of the language (lower case is never shorter).
    const fn = token.text.length > LONGEST_WORD ? '' : token.text.toLowerCase()
    if ((TEXT_FUNCTIONS as readonly string[]).includes(fn) && this.peek(1).t === '(') return this.call(fn as TextFunction)
    if (['and', 'or'].includes(fn)) this.fail(token, "a field name, a function (contains, startswith, endswith), 'not' or '('")
    return this.comparison()
  }

  private call(fn: TextFunction): FilterNode {
    this.next()
    this.next()
    const field = this.peek()
    if (field.t !== 'ident') this.fail(field, `a field name as the first argument of ${fn}()`)
    this.next()
    const comma = this.peek()
    if (comma.t !== ',') this.fail(comma, `',' after the field name in ${fn}()`)
    this.next()
    const value = this.peek()
    if (value.t !== 'string') this.fail(value, `a quoted text as the second argument of ${fn}()`)
    this.next()
    const close = this.peek()
    if (close.t !== ')') this.fail(close, `')' to close ${fn}()`)
    this.next()
    return { kind: 'call', fn, field: field.text, fieldPos: field.pos, value: value.value, valuePos: value.pos }
  }

  private comparison(): FilterNode {
    const field = this.next() as Extract<Token, { t: 'ident' }>
    const opToken = this.peek()
    const op = opToken.t === 'ident' && opToken.text.length <= LONGEST_WORD ? opToken.text.toLowerCase() : ''
    if (!(COMPARE_OPS as readonly string[]).includes(op)) {
      this.fail(opToken, `a comparison operator (eq, ne, gt, ge, lt, le) after the field ${field.text}`)
    }
    this.next()
    const valueToken = this.peek()
    const value = literalOf(valueToken)
    if (value === null) this.fail(valueToken, `a value after '${op}': a quoted text, a number, null, true or false`)
    this.next()
    return { kind: 'compare', op: op as CompareOp, field: field.text, fieldPos: field.pos, value, valuePos: valueToken.pos }
  }

  expectEnd(): void {
    const token = this.peek()
    if (token.t === ')') throw new Stop(failure(token.pos, "this ')' closes nothing: no '(' is open"))
    if (token.t !== 'end') this.fail(token, "'and', 'or' or the end of the filter")
  }
}

function literalOf(token: Token): FilterLiteral | null {
  if (token.t === 'string') return { type: 'string', value: token.value }
  if (token.t === 'number') return { type: 'number', value: token.value, raw: token.raw }
  if (token.t !== 'ident' || token.text.length > LONGEST_WORD) return null
  const word = token.text.toLowerCase()
  if (word === 'null') return { type: 'null' }
  if (word === 'true' || word === 'false') return { type: 'boolean', value: word === 'true' }
  return null
}
