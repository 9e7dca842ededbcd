import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { MOCK_DEFINED } from '../../spec/extensions.ts'
import { isObject } from './reader.ts'

/** Schema keywords an `x-mock-defined` mark may name (a mark of only these words names keywords). */
const SCHEMA_KEYWORDS = new Set([
  'type', 'format', 'pattern', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'enum', 'const', 'contentEncoding', 'required',
])

/** The keywords a mark names, or undefined when the mark is prose or `true`. */
export function markedKeywords(mark: unknown): string[] | undefined {
  if (typeof mark !== 'string') return undefined
  const words = mark.split(' ')
  return words.every((word) => SCHEMA_KEYWORDS.has(word)) ? words : undefined
}

function relax(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(relax)
  if (!isObject(node)) return node
  const mark = node[MOCK_DEFINED]
  const isSchema = 'type' in node || 'properties' in node || 'oneOf' in node || 'items' in node || 'pattern' in node || 'enum' in node
  if (mark === true && isSchema) return typeof node.description === 'string' ? { description: node.description } : {}
  const keywords = isSchema ? markedKeywords(mark) : undefined
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if (keywords?.includes(key)) continue
    out[key] = relax(value)
  }
  return out
}

/**
 * The document as a real installation is held to it: every schema marked `x-mock-defined: true`
 * accepts anything, and the schema keywords a mark names (`type format`, `pattern`) are dropped.
 * What is left is what the API's published description itself says. Error responses stay in the
 * document but are all marked, so their bodies are not held to anything either.
 */
export function relaxMockDefined(document: OpenAPIObject): OpenAPIObject {
  return relax(document) as OpenAPIObject
}
