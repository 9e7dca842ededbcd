/**
 * The `$filter` language as a tree, and its printer. The parser (`filter-parser.ts`) builds it,
 * the compiler (`filter.ts`) turns it into a predicate; printing lets tests check that
 * `parse(print(tree))` gives the tree back.
 */

export type CompareOp = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le'
export type TextFunction = 'contains' | 'startswith' | 'endswith'

export const COMPARE_OPS: readonly CompareOp[] = ['eq', 'ne', 'gt', 'ge', 'lt', 'le']
export const TEXT_FUNCTIONS: readonly TextFunction[] = ['contains', 'startswith', 'endswith']

/** A literal on the right of a comparison; `raw` keeps a number as written (for string fields). */
export type FilterLiteral =
  | { type: 'string'; value: string }
  | { type: 'number'; value: number; raw: string }
  | { type: 'boolean'; value: boolean }
  | { type: 'null' }

/** `pos` fields are 1-based character positions in the filter text, for error messages. */
export type FilterNode =
  | { kind: 'and' | 'or'; left: FilterNode; right: FilterNode }
  | { kind: 'not'; operand: FilterNode }
  | { kind: 'compare'; op: CompareOp; field: string; fieldPos: number; value: FilterLiteral; valuePos: number }
  | { kind: 'call'; fn: TextFunction; field: string; fieldPos: number; value: string; valuePos: number }

const PRECEDENCE = { or: 1, and: 2, not: 3, compare: 4, call: 4 } as const

/** Filter text for a tree, with only the parentheses its shape needs. */
export function printFilter(node: FilterNode): string {
  switch (node.kind) {
    case 'or':
    case 'and': {
      const p = PRECEDENCE[node.kind]
      // Operators associate to the left, so a right operand of equal precedence needs parentheses.
      return `${wrap(node.left, PRECEDENCE[node.left.kind] < p)} ${node.kind} ${wrap(node.right, PRECEDENCE[node.right.kind] <= p)}`
    }
    case 'not':
      return `not ${wrap(node.operand, PRECEDENCE[node.operand.kind] < PRECEDENCE.not)}`
    case 'compare':
      return `${node.field} ${node.op} ${printLiteral(node.value)}`
    case 'call':
      return `${node.fn}(${node.field},${quote(node.value)})`
  }
}

function wrap(node: FilterNode, parenthesize: boolean): string {
  const text = printFilter(node)
  return parenthesize ? `(${text})` : text
}

/** A literal as filter text would write it (also used to quote it back in error messages). */
export function printLiteral(literal: FilterLiteral): string {
  switch (literal.type) {
    case 'string':
      return quote(literal.value)
    case 'number':
      return literal.raw
    case 'boolean':
      return String(literal.value)
    case 'null':
      return 'null'
  }
}

/** A quoted filter string; a quote inside is written twice. */
export function quote(value: string): string {
  return `'${value.replaceAll("'", "''")}'`
}

/** Every field name the tree refers to, once each. */
export function fieldsOf(node: FilterNode): string[] {
  const names = new Set<string>()
  const visit = (n: FilterNode): void => {
    switch (n.kind) {
      case 'and':
      case 'or':
        visit(n.left)
        visit(n.right)
        return
      case 'not':
        visit(n.operand)
        return
      default:
        names.add(n.field)
    }
  }
  visit(node)
  return [...names]
}
