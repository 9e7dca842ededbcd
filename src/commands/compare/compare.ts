import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { listOperations, pathMatcher } from '../../document/reader.ts'
import type { Exchange } from './recording.ts'
import { textOf } from '../../bytes.ts'

/** One way two installations answered the same request differently. */
export interface Difference {
  /** The operation of the API document the request was for (or `unknown`). */
  operationId: string
  /** The contract (or `cleanup`) whose request it was, and which of its requests (1-based). */
  part: string
  index: number
  kind: 'outcome' | 'status' | 'media type' | 'shape' | 'paging' | 'count' | 'flag' | 'requests'
  /** What the first installation answered, and the second. */
  first: string
  second: string
  request: string
}

/**
 * The shape of a JSON value with what varies between installations set aside: values of
 * strings and numbers (Ids, TIMESTAMPs, times, tokens, row values) become their JSON type;
 * members become their names; array elements merge into one shape, the array keeping its length
 * (paging). Booleans and the members named in COUNTED keep their values: they are behaviour.
 */
type Shape = string | { array: Shape[]; length: number } | { object: Record<string, Shape> }

/** Members whose numbers are behaviour (counts), not data. */
const COUNTED = new Set(['_FieldCount_', 'CreatedItems', 'UpdatedItems', 'DeletedItems', 'LockedItems', 'count'])

function shapeOf(value: unknown, member?: string): Shape {
  if (value === null) return 'null'
  if (Array.isArray(value)) {
    const shapes = new Map<string, Shape>()
    for (const item of value) {
      const shape = shapeOf(item)
      shapes.set(JSON.stringify(shape), shape)
    }
    return { array: [...shapes.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, shape]) => stripLengths(shape)), length: value.length }
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1))
    return { object: Object.fromEntries(entries.map(([key, item]) => [key, shapeOf(item, key)])) }
  }
  if (typeof value === 'boolean') return `boolean ${value}`
  if (typeof value === 'number' && member !== undefined && COUNTED.has(member)) return `count ${value}`
  return typeof value
}

/** Inside an array's element shape, nested lengths are data (how many lines each order has), not paging. */
function stripLengths(shape: Shape): Shape {
  if (typeof shape === 'string') return shape
  if ('array' in shape) return { array: shape.array.map(stripLengths), length: -1 }
  return { object: Object.fromEntries(Object.entries(shape.object).map(([key, item]) => [key, stripLengths(item)])) }
}

/** One place where two shapes differ. */
interface ShapeDifference {
  kind: Difference['kind']
  path: string
  first: string
  second: string
}

/** Where two shapes differ, with the kind of each difference. */
function shapeDifferences(a: Shape, b: Shape, path: string, out: ShapeDifference[]): void {
  const at = path || '/'
  if (typeof a === 'string' || typeof b === 'string') {
    if (JSON.stringify(a) === JSON.stringify(b)) return
    const both = typeof a === 'string' && typeof b === 'string'
    const kind = both && a.startsWith('count') ? 'count' : both && a.startsWith('boolean') && b.startsWith('boolean') ? 'flag' : 'shape'
    out.push({ kind, path: at, first: describe(a), second: describe(b) })
    return
  }
  if ('array' in a && 'array' in b) {
    if (a.length !== b.length && a.length >= 0) out.push({ kind: 'paging', path: at, first: `${a.length} items`, second: `${b.length} items` })
    // Only where both arrays have items can their elements be told apart.
    if (a.array.length === 0 || b.array.length === 0 || JSON.stringify(a.array) === JSON.stringify(b.array)) return
    if (a.array.length === 1 && b.array.length === 1) shapeDifferences(a.array[0] as Shape, b.array[0] as Shape, `${path}/*`, out)
    else out.push({ kind: 'shape', path: `${path}/*`, first: `items of ${a.array.length} shape(s)`, second: `items of ${b.array.length} shape(s)` })
    return
  }
  if ('object' in a && 'object' in b) {
    for (const key of new Set([...Object.keys(a.object), ...Object.keys(b.object)])) {
      const left = a.object[key]
      const right = b.object[key]
      if (left === undefined || right === undefined)
        out.push({
          kind: 'shape',
          path: `${path}/${key}`,
          first: left === undefined ? 'absent' : 'present',
          second: right === undefined ? 'absent' : 'present',
        })
      else shapeDifferences(left, right, `${path}/${key}`, out)
    }
    return
  }
  out.push({ kind: 'shape', path: at, first: describe(a), second: describe(b) })
}

function describe(shape: Shape): string {
  if (typeof shape === 'string') return shape
  return 'array' in shape ? 'an array' : 'an object'
}

const mediaType = (contentType: string) => (contentType.split(';')[0] ?? '').trim().toLowerCase()

function parsed(exchange: Exchange): unknown {
  if (!/[/+]json$/.test(mediaType(exchange.contentType)) || exchange.body.length === 0) return undefined
  try {
    return JSON.parse(textOf(exchange.body))
  } catch {
    return undefined
  }
}

/** Which operation of the document a request was for. */
function operationFinder(document: OpenAPIObject): (exchange: Exchange) => string {
  const operations = listOperations(document).map((entry) => ({
    method: entry.method.toUpperCase(),
    matcher: pathMatcher(entry.path),
    operationId: entry.operationId,
  }))
  return (exchange) => {
    const path = exchange.path.split('?')[0] ?? ''
    return operations.find((op) => op.method === exchange.method.toUpperCase() && op.matcher.test(path))?.operationId ?? 'other requests'
  }
}

/**
 * Compares two runs of the same contracts, request by request within each contract: status,
 * media type, and for JSON the shape (members present, JSON types), the paging (items in arrays),
 * counts and flags. What naturally varies between installations is set aside: Ids, versions,
 * times, tokens and every other string or number value of rows.
 */
export function compareRuns(first: readonly Exchange[], second: readonly Exchange[], document: OpenAPIObject): Difference[] {
  const operationOf = operationFinder(document)
  const byPart = (exchanges: readonly Exchange[]) => {
    const parts = new Map<string, Exchange[]>()
    for (const exchange of exchanges) parts.set(exchange.part, [...(parts.get(exchange.part) ?? []), exchange])
    return parts
  }
  const a = byPart(first)
  const b = byPart(second)
  const differences: Difference[] = []
  for (const part of new Set([...a.keys(), ...b.keys()])) {
    const left = a.get(part) ?? []
    const right = b.get(part) ?? []
    const n = Math.min(left.length, right.length)
    for (let i = 0; i < n; i++) {
      const x = left[i] as Exchange
      const y = right[i] as Exchange
      const base = { operationId: operationOf(x), part, index: i + 1, request: `${x.method} ${x.path.split('?')[0]}` }
      if (x.status !== y.status) {
        differences.push({ ...base, kind: 'status', first: String(x.status), second: String(y.status) })
        continue
      }
      if (mediaType(x.contentType) !== mediaType(y.contentType)) {
        differences.push({ ...base, kind: 'media type', first: mediaType(x.contentType) || 'none', second: mediaType(y.contentType) || 'none' })
        continue
      }
      const found: ShapeDifference[] = []
      const xs = parsed(x)
      const ys = parsed(y)
      if (xs !== undefined && ys !== undefined) shapeDifferences(shapeOf(xs), shapeOf(ys), '', found)
      for (const { kind, path, first: one, second: two } of found) differences.push({ ...base, kind, first: `${path} ${one}`, second: `${path} ${two}` })
    }
    if (left.length !== right.length) {
      differences.push({
        operationId: 'requests per contract',
        part,
        index: n + 1,
        kind: 'requests',
        first: `${left.length} requests`,
        second: `${right.length} requests`,
        request: '',
      })
    }
  }
  return differences
}
