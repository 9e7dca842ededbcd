/** Helpers the spec tests share for walking the built document, from the project's document reader. */
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { isObject, type Json, type JsonObject } from '../../../src/document/json.ts'
import { resolveRef, walk } from '../../../src/document/reader.ts'

export { isObject, walk, type Json, type JsonObject }

/** The document as plain JSON, as the generated file holds it. */
export function asJson(doc: OpenAPIObject): JsonObject {
  return JSON.parse(JSON.stringify(doc)) as JsonObject
}

/** Follows a local `$ref` (and chains of them) to the object it names. */
export function resolve(doc: JsonObject, node: unknown): Json | undefined {
  return resolveRef(doc, node).node as Json | undefined
}
