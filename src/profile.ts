import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { inRange } from '../spec/versions.ts'

const VERSIONS_KEY = 'x-product-versions'
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

/**
 * How the emulated release shapes what the handlers send and accept. Resolved once at boot
 * from the release number, so handlers never compare versions themselves.
 */
export interface Profile {
  version: string
  /** `IsSaveSuccessfully` from 3.0, `IsSaveSuccesfully` (sic) before. */
  saveFlag: 'IsSaveSuccessfully' | 'IsSaveSuccesfully'
  /** Detail rows and relation keys in queries: from 3.0 only. */
  detailsInQueries: boolean
  /** Older delete body (`[{Rows: [{Row, Details}]}]`) below 3.0. */
  legacyDeleteBody: boolean
}

/** The behaviour switches of one release. */
export function resolveProfile(version: string): Profile {
  const current = inRange(version, '>=3.0.0')
  return {
    version,
    saveFlag: current ? 'IsSaveSuccessfully' : 'IsSaveSuccesfully',
    detailsInQueries: current,
    legacyDeleteBody: !current,
  }
}

type Json = unknown

function versionsOf(node: Json, schemas: Record<string, Json>): string | undefined {
  if (node === null || typeof node !== 'object') return undefined
  const record = node as Record<string, Json>
  if (typeof record[VERSIONS_KEY] === 'string') return record[VERSIONS_KEY]
  const ref = record.$ref
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    return versionsOf(schemas[ref.slice('#/components/schemas/'.length)], schemas)
  }
  return undefined
}

/** Drops `oneOf`/`anyOf` branches, at any depth, that the release does not have. */
function pruneBranches(node: Json, version: string, schemas: Record<string, Json>): Json {
  if (Array.isArray(node)) return node.map((item) => pruneBranches(item, version, schemas))
  if (node === null || typeof node !== 'object') return node
  const out: Record<string, Json> = {}
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'oneOf' || key === 'anyOf') && Array.isArray(value)) {
      out[key] = value.filter((branch) => inRange(version, versionsOf(branch, schemas))).map((b) => pruneBranches(b, version, schemas))
    } else {
      out[key] = pruneBranches(value, version, schemas)
    }
  }
  return out
}

/**
 * The document as one release exposes it: operations outside the release are removed, and so
 * are the body and result variants (oneOf branches) of other releases. The mock registers routes
 * and compiles validators from this view; the served documentation keeps the whole document.
 */
export function documentForVersion(document: OpenAPIObject, version: string): OpenAPIObject {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Json>
  const pruned = pruneBranches(document, version, schemas) as OpenAPIObject
  const paths: Record<string, Record<string, Json>> = {}
  for (const [path, item] of Object.entries(pruned.paths ?? {})) {
    const kept: Record<string, Json> = {}
    for (const [key, value] of Object.entries(item as Record<string, Json>)) {
      const isOperation = (HTTP_METHODS as readonly string[]).includes(key)
      if (!isOperation || inRange(version, versionsOf(value, schemas))) kept[key] = value
    }
    if (HTTP_METHODS.some((method) => method in kept)) paths[path] = kept
  }
  return { ...pruned, paths }
}

export interface OperationEntry {
  method: (typeof HTTP_METHODS)[number]
  path: string
  operationId: string
  /** JSON pointer of the operation object inside the document. */
  pointer: string
  operation: Record<string, Json>
}

/** A JSON pointer segment (RFC 6901): `~` and `/` escaped. */
export function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1')
}

/** Every operation of a document with its method, path and JSON pointer. */
export function listOperations(document: OpenAPIObject): OperationEntry[] {
  const entries: OperationEntry[] = []
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = (item as Record<string, Json>)[method] as Record<string, Json> | undefined
      if (operation === undefined) continue
      entries.push({
        method,
        path,
        operationId: String(operation.operationId),
        pointer: `/paths/${escapePointer(path)}/${method}`,
        operation,
      })
    }
  }
  return entries
}
