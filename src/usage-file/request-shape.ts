import { parseFilter } from '../store/filter-parser.ts'
import type { FilterLiteral, FilterNode } from '../store/filter-ast.ts'
import { parseQueryString } from '../wire/query-string.ts'
import { scalarType, shapeOf, type Shape } from './shape.ts'

/**
 * What a usage file keeps of a request: the shape the client relied on, never a value. Two
 * requests of the same shape are one interaction of the file, counted.
 */
export interface RequestShape {
  /** How the client authenticated: `SessionToken` header, `Authorization: Bearer`, or none. */
  auth: 'session-token' | 'bearer' | 'none'
  /** The API's headers sent, in the description's spelling. */
  headers: string[]
  /** Media type of the body sent, without parameters. */
  contentType?: string
  /** Get Items, Get Items Count and Get Attachments List: the query's options (see QueryShape). */
  query?: QueryShape
  /** Save: one entry per kind of row sent (see RowKind). */
  rows?: RowKind[]
  /** Delete: which body form, and which tables. */
  delete?: { form: 'current' | 'older'; tables: Array<string | null> }
  /** Any other body (sign-in forms, downloads, actions, e-mails, row links): its shape. */
  body?: Shape
  /** Path parameters' shapes (Get Identities). */
  path?: Record<string, string>
}

/** The options of a query: `$filter` as a template whose values are their types, `$orderby` as written. */
export interface QueryShape {
  count?: true
  top?: number
  skip?: true
  orderBy?: string
  /** `MasterId eq <integer> and Status ne <string>` */
  filter?: string
  relationKey?: string
  /** Options the description does not list, by name. */
  other?: string[]
  /** A query the mock could not read (answered 400): the reason's kind, not the text. */
  unreadable?: true
}

/** A kind of row in a save: master or detail (by relation key), create or update, with the fields sent. */
export interface RowKind {
  table: string | null
  action: 'create' | 'update'
  /** Each field sent with its type; `Id` as `temporary` (a negative Id) or `integer`. */
  fields: Record<string, string>
}

const DATA_HEADERS: Array<[string, string]> = [
  ['applicationid', 'ApplicationId'],
  ['sessiontoken', 'SessionToken'],
  ['workspaceid', 'WorkspaceId'],
  ['authorization', 'Authorization'],
]

/** A literal's placeholder in a filter template: `<string>`, `<integer>`, `<guid>`, ... */
export function literalType(literal: FilterLiteral): string {
  if (literal.type === 'null') return 'null'
  if (literal.type === 'boolean') return 'boolean'
  if (literal.type === 'number') return Number.isInteger(literal.value) ? 'integer' : 'number'
  return scalarType(literal.value)
}

/** A filter tree as a template: every value replaced by its type in angle brackets. */
export function filterTemplate(node: FilterNode): string {
  const wrap = (inner: FilterNode, outer: 'and' | 'or' | 'not') => {
    const text = filterTemplate(inner)
    const needs = (inner.kind === 'or' && outer !== 'or') || (inner.kind === 'and' && outer === 'not')
    return needs ? `(${text})` : text
  }
  switch (node.kind) {
    case 'and':
    case 'or':
      return `${wrap(node.left, node.kind)} ${node.kind} ${wrap(node.right, node.kind)}`
    case 'not':
      return `not ${wrap(node.operand, 'not')}`
    case 'compare':
      return `${node.field} ${node.op} ${node.value.type === 'null' ? 'null' : `<${literalType(node.value)}>`}`
    case 'call':
      return `${node.fn}(${node.field},<${scalarType(node.value)}>)`
  }
}

/** The shape of a query text (the body's `query`, or the older form's URL query). */
export function queryShape(text: string): QueryShape {
  const parsed = parseQueryString(text)
  if ('error' in parsed) return { unreadable: true }
  const shape: QueryShape = {}
  if (parsed.inlineCount) shape.count = true
  if (parsed.top !== null) shape.top = parsed.top
  if (parsed.skip > 0 || /(^|&)(\$|%24)skip=/i.test(text)) shape.skip = true
  if (parsed.orderBy.length > 0) shape.orderBy = parsed.orderBy.map((item) => `${item.field} ${item.direction}`).join(', ')
  if (parsed.filter !== null) {
    const tree = parseFilter(parsed.filter)
    shape.filter = 'error' in tree ? '<unreadable>' : filterTemplate(tree)
  }
  if (parsed.relationKey !== null) shape.relationKey = parsed.relationKey
  if (parsed.ignoredOptions.length > 0) shape.other = [...new Set(parsed.ignoredOptions)].sort()
  return shape
}

/** The kinds of rows a save body holds, each once, in a stable order. */
function rowKinds(body: unknown): RowKind[] {
  const kinds = new Map<string, RowKind>()
  const add = (table: string | null, row: unknown) => {
    if (row === null || typeof row !== 'object' || Array.isArray(row)) return
    const fields: Record<string, string> = {}
    for (const [name, value] of Object.entries(row as Record<string, unknown>)) {
      // 10 and 10.5 in a user field are one kind of row: numbers. Id and TIMESTAMP keep integer.
      fields[name] =
        name === 'Id' && typeof value === 'number' && value < 0
          ? 'temporary'
          : typeof value === 'number' && name !== 'Id' && name !== 'TIMESTAMP'
            ? 'number'
            : scalarType(value)
    }
    const id = (row as { Id?: unknown }).Id
    const kind: RowKind = { table, action: typeof id === 'number' && id > 0 ? 'update' : 'create', fields: sortedRecord(fields) }
    kinds.set(JSON.stringify(kind), kind)
  }
  for (const master of arrayOf((body as { Rows?: unknown } | null)?.Rows)) {
    add(null, (master as { Row?: unknown } | null)?.Row)
    for (const detail of arrayOf((master as { Details?: unknown } | null)?.Details)) {
      const key = (detail as { RelationKey?: unknown } | null)?.RelationKey
      for (const row of arrayOf((detail as { Rows?: unknown } | null)?.Rows)) add(typeof key === 'string' ? key : null, row)
    }
  }
  return [...kinds.keys()].sort().map((key) => kinds.get(key) as RowKind)
}

function deleteShape(body: unknown): RequestShape['delete'] {
  const groups = arrayOf(body)
  const older = groups.some((group) => group !== null && typeof group === 'object' && !Object.hasOwn(group, 'RelationKey'))
  const tables = [
    ...new Set(groups.map((group) => (group as { RelationKey?: unknown } | null)?.RelationKey).map((key) => (typeof key === 'string' ? key : null))),
  ]
  return { form: older ? 'older' : 'current', tables: tables.sort((a, b) => String(a).localeCompare(String(b))) }
}

const arrayOf = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])

function sortedRecord<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(
    Object.keys(record)
      .sort()
      .map((key) => [key, record[key] as T]),
  )
}

/** A sign-in form's shape: the password is a `string` whatever it looks like. */
function formShape(body: unknown): Shape {
  if (body === null || typeof body !== 'object') return shapeOf(body)
  const copy: Record<string, unknown> = {}
  for (const [name, value] of Object.entries(body)) copy[name] = /password/i.test(name) && typeof value === 'string' ? 'text' : value
  return shapeOf(copy)
}

/** What one request relied on, by its operation. */
export function requestShape(
  operation: string,
  url: string,
  headers: Record<string, string | string[] | undefined>,
  body: unknown,
  params: Record<string, string> | undefined,
): RequestShape {
  const authorization = String(headers.authorization ?? '')
  const shape: RequestShape = {
    auth: headers.sessiontoken !== undefined ? 'session-token' : /^bearer\s/i.test(authorization) ? 'bearer' : 'none',
    headers: DATA_HEADERS.filter(([name]) => headers[name] !== undefined).map(([, spelled]) => spelled),
  }
  const contentType = headers['content-type']
  if (typeof contentType === 'string' && body !== undefined && body !== null) shape.contentType = (contentType.split(';')[0] ?? '').trim().toLowerCase()
  const question = url.indexOf('?')
  const urlQuery = question < 0 ? '' : url.slice(question + 1)
  switch (operation) {
    case 'queryItems':
      shape.query = queryShape(String((body as { query?: unknown } | null)?.query ?? ''))
      break
    case 'queryItemsLegacy':
    case 'listAttachments':
      shape.query = queryShape(urlQuery)
      break
    case 'saveItems':
      shape.rows = rowKinds(body)
      break
    case 'deleteItems':
      shape.delete = deleteShape(body)
      break
    case 'signIn':
    case 'signInWithoutOrganization':
    case 'signInLegacy':
      shape.body = formShape(body)
      break
    case 'getIdentities':
      shape.path = Object.fromEntries(
        Object.entries(params ?? {})
          .sort()
          .filter(([name]) => name !== 'organizationphysicalname')
          .map(([name, value]) => [name, /^\d+$/.test(value) ? 'integer' : scalarType(value)]),
      )
      break
    case 'downloadAttachment': {
      // The relation key names a table, not a value: which table's files the client downloads.
      const { rk, ...rest } = (body ?? {}) as { rk?: unknown }
      shape.body = shapeOf(rest)
      if (typeof rk === 'string') shape.query = rk === '' ? {} : { relationKey: rk }
      break
    }
    default:
      if (body !== undefined && body !== null) shape.body = shapeOf(body)
  }
  return shape
}
