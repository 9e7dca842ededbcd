import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { readFileSync } from 'node:fs'
import { packageFile } from '../package-root.ts'
import { PRODUCT_VERSIONS } from '../../spec/extensions.ts'
import { inRange } from '../../spec/versions.ts'
import { checkedDocument, documentForMode, type DocumentMode } from './modes.ts'
import { isObject, type JsonObject } from './json.ts'

/**
 * Reading the OpenAPI documents: their operations, the view one release has of them, `$ref`
 * resolution, parameters and responses, JSON pointers. The mock's routes, the control plane, the
 * client, the contracts and the tests all read the documents through this module.
 */

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const
export type HttpMethod = (typeof HTTP_METHODS)[number]

/** A JSON pointer segment (RFC 6901): `~` and `/` escaped. */
export function escapePointer(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1')
}

/** The value at a JSON pointer (RFC 6901), or undefined. */
export function atPointer(root: unknown, pointer: string): unknown {
  if (pointer === '') return root
  let node: unknown = root
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~')
    node = isObject(node) ? node[key] : Array.isArray(node) ? node[Number(key)] : undefined
  }
  return node
}

/** Whether the document holds a schema at this JSON pointer (a media type may declare none). */
export function hasSchema(document: OpenAPIObject, pointer: string): boolean {
  return atPointer(document, pointer) !== undefined
}

/** A node with its local `$ref` chain followed, and the pointer where it was found. */
export function resolveRef(document: unknown, node: unknown, pointer = ''): { node: unknown; pointer: string } {
  let current = node
  let at = pointer
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string'; hops++) {
    if (hops > 20) throw new Error(`$ref loop at ${current.$ref}`)
    const ref: string = current.$ref
    if (!ref.startsWith('#')) throw new Error(`non-local $ref ${ref}`)
    at = ref.slice(1)
    current = atPointer(document, at)
    if (current === undefined) throw new Error(`dangling $ref ${ref}`)
  }
  return { node: current, pointer: at }
}

/** Calls `visit` for every object in the tree with its JSON pointer. */
export function walk(node: unknown, pointer: string, visit: (value: JsonObject, pointer: string) => void): void {
  if (Array.isArray(node)) node.forEach((item, index) => walk(item, `${pointer}/${index}`, visit))
  else if (isObject(node)) {
    visit(node, pointer)
    for (const [key, value] of Object.entries(node)) walk(value, `${pointer}/${escapePointer(key)}`, visit)
  }
}

export interface OperationEntry {
  method: HttpMethod
  path: string
  operationId: string
  /** JSON pointer of the operation object inside the document. */
  pointer: string
  operation: Record<string, unknown>
}

/** Every operation of a document with its method, path and JSON pointer. */
export function listOperations(document: OpenAPIObject): OperationEntry[] {
  const entries: OperationEntry[] = []
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of HTTP_METHODS) {
      const operation = (item as Record<string, unknown>)[method]
      if (!isObject(operation)) continue
      entries.push({ method, path, operationId: String(operation.operationId), pointer: `/paths/${escapePointer(path)}/${method}`, operation })
    }
  }
  return entries
}

/** A parameter of an operation, resolved, with the pointer of its own object. */
export interface ParameterEntry {
  name: string
  in: 'header' | 'query' | 'path' | 'cookie'
  required: boolean
  pointer: string
  parameter: JsonObject
}

/** The parameters of an operation, references resolved. */
export function operationParameters(document: OpenAPIObject, entry: OperationEntry): ParameterEntry[] {
  const list = Array.isArray(entry.operation.parameters) ? entry.operation.parameters : []
  return list.map((raw, index) => {
    const { node, pointer } = resolveRef(document, raw, `${entry.pointer}/parameters/${index}`)
    const parameter = node as JsonObject
    return { name: String(parameter.name), in: parameter.in as ParameterEntry['in'], required: parameter.required === true, pointer, parameter }
  })
}

/** The media type and schema pointer of an operation's request body, if it takes one. */
export function requestBodyOf(document: OpenAPIObject, entry: OperationEntry): { mediaType: string; schemaPointer: string; required: boolean } | undefined {
  if (entry.operation.requestBody === undefined) return undefined
  const { node, pointer } = resolveRef(document, entry.operation.requestBody, `${entry.pointer}/requestBody`)
  const body = node as JsonObject
  const mediaType = isObject(body.content) ? Object.keys(body.content)[0] : undefined
  if (mediaType === undefined) return undefined
  return { mediaType, schemaPointer: `${pointer}/content/${escapePointer(mediaType)}/schema`, required: body.required === true }
}

/** A documented response of an operation, resolved, with its pointer; undefined when the status is not documented. */
export function responseOf(document: OpenAPIObject, entry: OperationEntry, status: number): { response: JsonObject; pointer: string } | undefined {
  const responses = entry.operation.responses
  if (!isObject(responses) || responses[String(status)] === undefined) return undefined
  const { node, pointer } = resolveRef(document, responses[String(status)], `${entry.pointer}/responses/${status}`)
  return { response: node as JsonObject, pointer }
}

/** `/a/{b}/c` as a matcher of concrete paths (a path parameter is one segment; letters in any case, as the mock routes). */
export function pathMatcher(path: string): RegExp {
  return new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/?$`, 'i')
}

function versionsOf(node: unknown, schemas: Record<string, unknown>): string | undefined {
  if (!isObject(node)) return undefined
  if (typeof node[PRODUCT_VERSIONS] === 'string') return node[PRODUCT_VERSIONS]
  const ref = node.$ref
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) return versionsOf(schemas[ref.slice('#/components/schemas/'.length)], schemas)
  return undefined
}

/** Drops `oneOf`/`anyOf` branches, at any depth, that the release does not have. */
function pruneBranches(node: unknown, version: string, schemas: Record<string, unknown>): unknown {
  if (Array.isArray(node)) return node.map((item) => pruneBranches(item, version, schemas))
  if (!isObject(node)) return node
  const out: Record<string, unknown> = {}
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
  const schemas = (document.components?.schemas ?? {}) as Record<string, unknown>
  const pruned = pruneBranches(document, version, schemas) as OpenAPIObject
  const paths: Record<string, Record<string, unknown>> = {}
  for (const [path, item] of Object.entries(pruned.paths ?? {})) {
    const kept: Record<string, unknown> = {}
    for (const [key, value] of Object.entries(item as Record<string, unknown>)) {
      const isOperation = (HTTP_METHODS as readonly string[]).includes(key)
      if (!isOperation || inRange(version, versionsOf(value, schemas))) kept[key] = value
    }
    if (HTTP_METHODS.some((method) => method in kept)) paths[path] = kept
  }
  return { ...pruned, paths }
}

const releaseViews = new Map<string, OpenAPIObject>()
const servedViews = new Map<string, OpenAPIObject>()
let fullDocument: OpenAPIObject | undefined
let controlDocument: OpenAPIObject | undefined

/**
 * The API document the mock of the given release (a normalized version) checks requests against,
 * in either mode (src/document/modes.ts, checkedDocument), built once per process and shared: it
 * is data nobody changes, and sharing it lets the validators compiled from it be shared too.
 * Callers that want to change a document use `buildDocument()`.
 */
export function releaseDocument(version: string): OpenAPIObject {
  let view = releaseViews.get(version)
  if (view === undefined) {
    view = documentForVersion(checkedDocument(apiDocument()), version)
    releaseViews.set(version, view)
  }
  return view
}

/**
 * The document a client of a mock reads: of its mode, and of its release (a normalized version),
 * or of every release when `version` is undefined. What it allows, that mock accepts; what it
 * forbids, that mock refuses. Built once per process and shared.
 */
export function servedDocument(version: string | undefined, mode: DocumentMode): OpenAPIObject {
  const key = `${mode} ${version ?? '*'}`
  let view = servedViews.get(key)
  if (view === undefined) {
    const document = documentForMode(apiDocument(), mode)
    view = version === undefined ? document : documentForVersion(document, version)
    servedViews.set(key, view)
  }
  return view
}

/**
 * A document as `npm run spec` rendered it (a freshness test keeps the files equal to what
 * spec/ builds): reading the JSON at start is much quicker than building it from the modules.
 */
function renderedDocument(path: string): OpenAPIObject {
  const { 'x-generated-by': _marker, ...document } = JSON.parse(readFileSync(packageFile(path), 'utf8')) as OpenAPIObject & { 'x-generated-by'?: string }
  return document as OpenAPIObject
}

/** The published API document (every release, the default lenient mode's), built once per process; not to be changed. */
export function apiDocument(): OpenAPIObject {
  fullDocument ??= renderedDocument('spec/openapi.json')
  return fullDocument
}

/** The control plane's document, built once per process; not to be changed. */
export function controlPlaneDocument(): OpenAPIObject {
  controlDocument ??= renderedDocument('spec/control-plane.json')
  return controlDocument
}
