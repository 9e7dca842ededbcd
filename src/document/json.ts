/**
 * JSON values as the document's modules walk them. Its own module, below reader.ts and modes.ts,
 * so that the two need not import each other for one predicate.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json }
export type JsonObject = { [key: string]: Json }

export function isObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}
