/** Helpers the spec tests share for walking the built document: `$ref` resolution and a walk with JSON pointers. */
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { escapePointer } from '../../../src/profile.ts'

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
export type JsonObject = { [key: string]: Json }

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** The document as plain JSON, as the generated file holds it. */
export function asJson(doc: OpenAPIObject): JsonObject {
  return JSON.parse(JSON.stringify(doc)) as JsonObject
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

/** Calls `visit` for every object in the tree with its JSON pointer. */
export function walk(node: Json, pointer: string, visit: (value: JsonObject, pointer: string) => void): void {
  if (Array.isArray(node)) node.forEach((item, index) => walk(item, `${pointer}/${index}`, visit))
  else if (isObject(node)) {
    visit(node, pointer)
    for (const [key, value] of Object.entries(node)) walk(value, `${pointer}/${escapePointer(key)}`, visit)
  }
}
