import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { MEDIA_TYPE_MARK, MOCK_DEFINED } from '../../spec/extensions.ts'
import { isObject } from './json.ts'

/** Schema keywords an `x-mock-defined` mark may name (a mark of only these words names keywords). */
const SCHEMA_KEYWORDS = new Set([
  'type',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'enum',
  'const',
  'contentEncoding',
  'required',
  'items',
])

/** The keywords a mark names, or undefined when the mark is prose or `true`. */
export function markedKeywords(mark: unknown): string[] | undefined {
  if (typeof mark !== 'string') return undefined
  const words = mark.split(' ')
  return words.every((word) => SCHEMA_KEYWORDS.has(word)) ? words : undefined
}

/**
 * A media type object whose label, not its schema, is the mock's choice: held to the description,
 * an answer may carry any label (the wildcard media type), and a JSON body still meets the schema.
 */
const marksMediaType = (media: unknown): boolean => isObject(media) && media[MOCK_DEFINED] === MEDIA_TYPE_MARK

/** A response's `content` with its marked media types under the wildcard media type. */
function relaxContent(content: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(content).map(([mediaType, media]) => [marksMediaType(media) ? '*/*' : mediaType, relax(media)]))
}

function relax(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(relax)
  if (!isObject(node)) return node
  const mark = node[MOCK_DEFINED]
  const isSchema = 'type' in node || 'properties' in node || 'oneOf' in node || 'anyOf' in node || 'items' in node || 'pattern' in node || 'enum' in node
  if (mark === true && isSchema) return typeof node.description === 'string' ? { description: node.description } : {}
  const keywords = isSchema ? markedKeywords(mark) : undefined
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (keywords?.includes(key)) continue
    out[key] = key === 'content' && isObject(value) && Object.values(value).some(marksMediaType) ? relaxContent(value) : relax(value)
  }
  return out
}

/**
 * The document as a real installation is held to it: every schema marked `x-mock-defined: true`
 * accepts anything, and the schema keywords a mark names (`type format`, `pattern`) are dropped.
 * A media type marked `media type` becomes the wildcard media type, which takes any label.
 * What is left is what the API's published description itself says. Error responses stay in the
 * document but are all marked, so their bodies are not held to anything either.
 */
export function relaxMockDefined(document: OpenAPIObject): OpenAPIObject {
  return relax(document) as OpenAPIObject
}
