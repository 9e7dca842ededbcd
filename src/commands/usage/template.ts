import { parseFilter } from '../../store/filter-parser.ts'
import type { FilterNode } from '../../store/filter-ast.ts'

/** Marks a placeholder inside the filter text handed to the parser; no filter value holds it. */
const MARK = '\u0001'

/** A filter template's tree: each `<type>` placeholder becomes a text literal naming the type after MARK. */
export function parseTemplate(template: string): FilterNode | undefined {
  const text = template.replace(/<([a-z-]+)>/g, (_all, type: string) => `'${MARK}${type}'`)
  const tree = parseFilter(text)
  return 'error' in tree ? undefined : tree
}

/** The type a literal of a template's tree stands for, or undefined for a literal written as it is (`null`). */
export function placeholderType(value: unknown): string | undefined {
  return typeof value === 'string' && value.startsWith(MARK) ? value.slice(1) : undefined
}

/** The operators a template uses: comparisons, text functions, and `and`, `or`, `not`. */
export function operatorsOf(template: string): string[] {
  const tree = parseTemplate(template)
  if (tree === undefined) return []
  const found = new Set<string>()
  const visit = (node: FilterNode): void => {
    switch (node.kind) {
      case 'and':
      case 'or':
        found.add(node.kind)
        visit(node.left)
        visit(node.right)
        return
      case 'not':
        found.add('not')
        visit(node.operand)
        return
      case 'compare':
        found.add(node.op)
        return
      case 'call':
        found.add(node.fn)
    }
  }
  visit(tree)
  return [...found]
}
