import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { STRICT_OVERLAY } from '../../spec/extensions.ts'
import { isObject } from './json.ts'

/**
 * The mock's two modes as documents. The published document (spec/openapi.json) is the default,
 * lenient mode's: it allows what the lenient mock accepts, members the schemas do not name
 * included. Where strict mode refuses more, a schema (or a request body) says so in `x-mock-strict`:
 * the keywords it has instead in strict mode (`additionalProperties: false`, `minItems: 1`, a narrower
 * `type`, an `x-product-versions` range that leaves an older body out, sign-in's `content` without JSON...). Both documents come from the
 * published one, so they cannot drift apart.
 */
export type DocumentMode = 'lenient' | 'strict'

/** Applies the overlays: every key of them (or only `only`) replaces the schema's own; the overlay itself goes. */
function overlay(node: unknown, only?: string): unknown {
  if (Array.isArray(node)) return node.map((item) => overlay(item, only))
  if (!isObject(node)) return node
  const { [STRICT_OVERLAY]: strict, ...rest } = node
  const changes = isObject(strict) ? (only === undefined ? strict : only in strict ? { [only]: strict[only] } : {}) : {}
  // Keys of the overlay that only `only` leaves out stay documented in it.
  const kept = only !== undefined && isObject(strict) ? Object.fromEntries(Object.entries(strict).filter(([key]) => key !== only)) : {}
  const merged: Record<string, unknown> = { ...rest, ...changes }
  if (Object.keys(kept).length > 0) merged[STRICT_OVERLAY] = kept
  return Object.fromEntries(Object.entries(merged).map(([key, value]) => [key, key === STRICT_OVERLAY ? value : overlay(value, only)]))
}

/** The document of one mode: the published (lenient) one as it is, or with the strict overlays applied. */
export function documentForMode(published: OpenAPIObject, mode: DocumentMode): OpenAPIObject {
  return mode === 'lenient' ? published : (overlay(published) as OpenAPIObject)
}

/**
 * The document the mock checks requests against, in either mode: the lenient one with the
 * schemas' strict `additionalProperties: false` put back, so a member no schema names is found
 * and reported (lenient mode accepts it with the warning UNKNOWN_MEMBER, strict mode refuses it).
 * Every other strict rule is a warning the handlers raise, which strict mode turns into a refusal.
 */
export function checkedDocument(published: OpenAPIObject): OpenAPIObject {
  return overlay(published, 'additionalProperties') as OpenAPIObject
}

/** The mode of a mock started with `strict` (`--strict`, `MOCK_STRICT=1`). */
export function modeOf(strict: boolean): DocumentMode {
  return strict ? 'strict' : 'lenient'
}
