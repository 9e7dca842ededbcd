import { COMPARE_OPS, TEXT_FUNCTIONS, type CompareOp, type FilterLiteral, type FilterNode, type TextFunction } from './filter-ast.ts'
import type { StoreError } from './types.ts'

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
  const tokens = tokenize(text)
  if (!Array.isArray(tokens)) return tokens
  const parser = new Parser(tokens)
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

class Stop {
  constructor(readonly failure: FilterError) {}
}

function failure(position: number, message: string): FilterError {
  return { error: 'BAD_FILTER', position, message: `$filter, character ${position}: ${message}` }
}

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y

function tokenize(text: string): Token[] | FilterError {
  const tokens: Token[] = []
  let i = 0
  while (i < text.length) {
    const c = text[i] as string
    const pos = i + 1
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++
    } else if (c === '(' || c === ')' || c === ',') {
      tokens.push({ t: c, pos })
      i++
    } else if (c === "'") {
      let value = ''
      let j = i + 1
      for (;;) {
        if (j >= text.length) return failure(pos, 'this quoted text is never closed; expected a closing quote')
        const d = text[j] as string
        if (d === "'") {
          if (text[j + 1] === "'") {
            value += "'"
            j += 2
            continue
          }
          break
        }
        value += d
        j++
      }
      tokens.push({ t: 'string', value, pos })
      i = j + 1
    } else if (/[-0-9]/.test(c)) {
      NUMBER.lastIndex = i
      const match = NUMBER.exec(text)
      if (match === null) return failure(pos, `expected a number after '-', found '${text.slice(i, i + 10)}'`)
      const raw = match[0]
      tokens.push({ t: 'number', value: Number(raw), raw, pos })
      i += raw.length
    } else if (/[A-Za-z_]/.test(c)) {
      IDENT.lastIndex = i
      const raw = (IDENT.exec(text) as RegExpExecArray)[0]
      tokens.push({ t: 'ident', text: raw, pos })
      i += raw.length
    } else {
      return failure(pos, `unexpected character '${c}'`)
    }
  }
  tokens.push({ t: 'end', pos: text.length + 1 })
  return tokens
}

function describe(token: Token): string {
  switch (token.t) {
    case 'end':
      return 'the end of the filter'
    case 'ident':
      return `'${token.text}'`
    case 'string':
      return `the text '${token.value}'`
    case 'number':
      return `the number ${token.raw}`
    default:
      return `'${token.t}'`
  }
}

function isKeyword(token: Token, word: string): boolean {
  return token.t === 'ident' && token.text.toLowerCase() === word
}

/**
 * Bounds on a filter's shape, so that no text can exhaust the stack of the parser or of the
 * compiled predicate (both recurse over the tree). Far beyond any filter a client writes.
 */
export const MAX_FILTER_NESTING = 64
export const MAX_FILTER_CONDITIONS = 256

class Parser {
  #i = 0
  #nesting = 0
  #joins = 0
  constructor(private readonly tokens: Token[]) {}

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
    // The token list always ends with 'end', and the parser never reads past it.
    return this.tokens[Math.min(this.#i + offset, this.tokens.length - 1)] as Token
  }

  private next(): Token {
    const token = this.peek()
    if (token.t !== 'end') this.#i++
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
    const fn = token.text.toLowerCase()
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
    const op = opToken.t === 'ident' ? opToken.text.toLowerCase() : ''
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
  if (token.t !== 'ident') return null
  const word = token.text.toLowerCase()
  if (word === 'null') return { type: 'null' }
  if (word === 'true' || word === 'false') return { type: 'boolean', value: word === 'true' }
  return null
}
