import { parseFilter } from '../store/filter-parser.ts'
import type { FilterLiteral, FilterNode } from '../store/filter-ast.ts'

/** The row and folder an attachments list asks for. */
export interface AttachmentScope {
  parentId: number
  /** null: the row's top level. */
  folderId: number | null
}

const FORM = 'the attachments list takes "ParentId eq <row Id>", optionally followed by "and FolderId eq <folder Id>"'

/** A whole number from an `eq` literal, quoted or not (`1`, `'1'`), as Get Items reads numbers. */
function wholeNumber(literal: FilterLiteral): number | null {
  const text = literal.type === 'number' ? literal.raw : literal.type === 'string' ? literal.value.trim() : null
  if (text === null || !/^\d+$/.test(text)) return null
  const value = Number(text)
  return Number.isSafeInteger(value) ? value : null
}

function conditions(node: FilterNode, out: FilterNode[]): FilterNode[] {
  if (node.kind === 'and') {
    conditions(node.left, out)
    conditions(node.right, out)
  } else out.push(node)
  return out
}

/**
 * Reads the `$filter` of Get Attachments List with the filter language of Get Items (the
 * description shows the same `<field> eq <value>` syntax in both), so quoting, spacing and
 * keyword case work alike; the conditions must still name one row and at most one folder.
 * Returns the scope, or a message saying what is wrong.
 */
export function parseAttachmentFilter(text: string): AttachmentScope | string {
  const tree = parseFilter(text)
  if ('error' in tree) return tree.message
  let parentId: number | null = null
  let folderId: number | null | undefined
  for (const condition of conditions(tree, [])) {
    if (condition.kind !== 'compare' || condition.op !== 'eq') return `$filter: ${FORM}; conditions are joined by "and" only`
    const field = condition.field.toLowerCase()
    if ((field !== 'parentid' || parentId !== null) && (field !== 'folderid' || folderId !== undefined)) {
      return `$filter: ${FORM}; "${condition.field}" is not expected at character ${condition.fieldPos}`
    }
    if (field === 'folderid' && condition.value.type === 'null') {
      folderId = null
      continue
    }
    const value = wholeNumber(condition.value)
    if (value === null) return `$filter: ${condition.field} must equal a row or folder Id (a whole number), at character ${condition.valuePos}`
    if (field === 'parentid') parentId = value
    else folderId = value
  }
  if (parentId === null) return `$filter: ${FORM}; ParentId is missing`
  return { parentId, folderId: folderId ?? null }
}
