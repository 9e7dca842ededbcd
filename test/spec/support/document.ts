/** Helpers the spec tests share for walking the built document: `$ref` resolution, operations, JSON pointers. */
import type { OpenAPIObject } from 'openapi3-ts/oas31'

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
export type JsonObject = { [key: string]: Json }

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** The document as plain JSON, as the generated file holds it. */
export function asJson(doc: OpenAPIObject): JsonObject {
  return JSON.parse(JSON.stringify(doc)) as JsonObject
}

/** Escapes one JSON Pointer segment (RFC 6901). */
export function escapeSegment(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1')
}

/** Follows a local `$ref` (and chains of them) to the object it names. */
export function resolve(doc: JsonObject, node: Json | undefined): Json | undefined {
  let current = node
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string'; hops++) {
    if (hops > 20) throw new Error(`$ref loop at ${current.$ref}`)
    const ref: string = current.$ref
    if (!ref.startsWith('#/')) throw new Error(`non-local $ref ${ref}`)
    let target: Json | undefined = doc
    for (const raw of ref.slice(2).split('/')) {
      const key = raw.replaceAll('~1', '/').replaceAll('~0', '~')
      target = isObject(target) ? target[key] : Array.isArray(target) ? target[Number(key)] : undefined
    }
    if (target === undefined) throw new Error(`dangling $ref ${ref}`)
    current = target
  }
  return current
}

export interface OperationEntry {
  method: (typeof HTTP_METHODS)[number]
  path: string
  pointer: string
  operation: JsonObject
}

/** Every operation of the document with its method, path and JSON pointer. */
export function operationsOf(doc: JsonObject): OperationEntry[] {
  const entries: OperationEntry[] = []
  const paths = isObject(doc.paths) ? doc.paths : {}
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue
    for (const method of HTTP_METHODS) {
      const operation = item[method]
      if (isObject(operation)) entries.push({ method, path, pointer: `/paths/${escapeSegment(path)}/${method}`, operation })
    }
  }
  return entries
}

/** Calls `visit` for every object in the tree with its JSON pointer. */
export function walk(node: Json, pointer: string, visit: (value: JsonObject, pointer: string) => void): void {
  if (Array.isArray(node)) node.forEach((item, index) => walk(item, `${pointer}/${index}`, visit))
  else if (isObject(node)) {
    visit(node, pointer)
    for (const [key, value] of Object.entries(node)) walk(value, `${pointer}/${escapeSegment(key)}`, visit)
  }
}
