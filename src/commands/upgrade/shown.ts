import type { Interaction } from '../../usage-file/file.ts'
import type { QueryShape, RowKind } from '../../usage-file/request-shape.ts'
import type { Shape } from '../../usage-file/shape.ts'

/**
 * A recorded request written out as the client sends it, its values as their types
 * (`GET /ExplorerApi/api/items?$filter=Status eq <string>&$top=4`): what a finding shows as the
 * client's side today. Never a value: a usage file holds none.
 */

/** A recorded shape as text: `{ userName: email, password: string }`, `[integer]`, `integer|null`. */
export function shapeText(shape: Shape, depth = 0): string {
  if (typeof shape === 'string') return shape
  if (depth >= 4) return shape.type
  if (shape.fields !== undefined) {
    const members = Object.entries(shape.fields).map(([name, field]) => `${name}: ${shapeText(field, depth + 1)}`)
    return members.length === 0 ? '{}' : `{ ${members.join(', ')} }`
  }
  if (shape.items !== undefined) return `[${shapeText(shape.items, depth + 1)}]`
  return shape.type
}

/** A recorded query as the query text the client sends (`$inlinecount=allpages&$filter=Status eq <string>`). */
export function queryShapeText(query: QueryShape): string {
  const parts: string[] = []
  if (query.count === true) parts.push('$inlinecount=allpages')
  if (query.top !== undefined) parts.push(`$top=${query.top}`)
  if (query.skip === true) parts.push('$skip=<integer>')
  if (query.orderBy !== undefined) parts.push(`$orderby=${query.orderBy}`)
  if (query.filter !== undefined) parts.push(`$filter=${query.filter}`)
  if (query.relationKey !== undefined) parts.push(`relationKey=${query.relationKey}`)
  for (const other of query.other ?? []) parts.push(`${other}=<string>`)
  return parts.join('&')
}

function rowText(kind: RowKind): string {
  return `{ ${Object.entries(kind.fields)
    .map(([name, type]) => `${name}: ${type === 'temporary' ? '<temporary Id>' : type}`)
    .join(', ')} }`
}

/** A save's body as the client sends it: its kinds of rows, master rows with their detail groups. */
function saveText(rows: readonly RowKind[]): string {
  const masters = rows.filter((kind) => kind.table === null)
  const details = rows.filter((kind) => kind.table !== null)
  const groups = details.map((kind) => `{ RelationKey: ${JSON.stringify(kind.table)}, Rows: [${rowText(kind)}] }`)
  const master = masters.length === 0 ? '{ Id: integer, TIMESTAMP: integer }' : masters.map(rowText).join(' or ')
  return `{ Rows: [{ Row: ${master}, Details: [${groups.join(', ')}] }] }`
}

/** A delete's body in the form the client sends. */
export function deleteText(shape: NonNullable<Interaction['request']['delete']>): string {
  if (shape.form === 'older') return '[{ Rows: [{ Row: { Id: integer, TIMESTAMP: integer }, Details: [] }] }]'
  return `[${shape.tables.map((table) => `{ RelationKey: ${table === null ? 'null' : JSON.stringify(table)}, Rows: [{ Row: { Id: integer, TIMESTAMP: integer } }] }`).join(', ')}]`
}

/** The body of a recorded request, as text; undefined when it sends none. */
export function bodyText(interaction: Interaction): string | undefined {
  const { request } = interaction
  switch (interaction.operation) {
    case 'queryItems':
      return `{ query: "${queryShapeText(request.query ?? {})}" }`
    case 'saveItems':
      return saveText(request.rows ?? [])
    case 'deleteItems':
      return request.delete === undefined ? undefined : deleteText(request.delete)
    case 'downloadAttachment': {
      const rk = request.query === undefined ? '' : `, rk: ${request.query.relationKey === undefined ? '""' : JSON.stringify(request.query.relationKey)}`
      return request.body === undefined ? undefined : `${shapeText(request.body).replace(/ }$/, '')}${rk} }`
    }
    default:
      return request.body === undefined ? undefined : shapeText(request.body)
  }
}

/** One recorded request written out: method, path (with the query the client sends in the URL) and body. */
export function requestText(interaction: Interaction, method: string, path: string): string {
  const urlQuery =
    interaction.operation === 'queryItemsLegacy' || interaction.operation === 'listAttachments' ? queryShapeText(interaction.request.query ?? {}) : ''
  const body = bodyText(interaction)
  return `${method.toUpperCase()} ${path}${urlQuery === '' ? '' : `?${urlQuery}`}${body === undefined ? '' : ` ${body}`}`
}
