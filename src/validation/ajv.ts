import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import type { OpenAPIObject } from 'openapi3-ts/oas31'

// ajv-formats ships CommonJS; under NodeNext its default export is the module object.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020

/** Base URI under which the document is registered, so `#/components/...` references resolve. */
export const DOCUMENT_ID = 'urn:appdata-kit:openapi'

/** OpenAPI keywords that may sit inside schemas and are annotations only. */
const ANNOTATIONS = ['example', 'discriminator', 'xml', 'externalDocs']

function extensionKeys(node: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(node)) for (const item of node) extensionKeys(item, found)
  else if (node !== null && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key.startsWith('x-')) found.add(key)
      extensionKeys(value, found)
    }
  }
  return found
}

/**
 * One Ajv for one document. `coerce` is for headers, query and path parameters, which arrive as
 * text; bodies are checked without coercion so `"1"` is not taken for `1`.
 */
export function createDocumentAjv(document: OpenAPIObject, options: { coerce: boolean }): Ajv2020 {
  const ajv = new Ajv2020({
    allErrors: true,
    strict: true,
    strictTypes: false,
    strictRequired: false,
    coerceTypes: options.coerce ? 'array' : false,
    validateSchema: false,
  })
  addFormats(ajv)
  // The document's own top-level members (`openapi`, `paths`, ...) are keywords to Ajv when a
  // reference makes it compile the root; declared here so strict mode stays on for real schemas.
  const topLevel = Object.keys(document).filter((key) => !key.startsWith('x-'))
  for (const keyword of [...ANNOTATIONS, ...topLevel, ...extensionKeys(document, new Set())]) ajv.addKeyword(keyword)
  ajv.addSchema(document as object, DOCUMENT_ID)
  return ajv
}

/** `$ref` text pointing at a JSON pointer inside the registered document. */
export function documentRef(pointer: string): string {
  const fragment = pointer.split('/').map((segment) => encodeURIComponent(segment)).join('/')
  return `${DOCUMENT_ID}#${fragment}`
}

/** Compiles the schema found at `pointer` in the document (compile once, at boot). */
export function compileAt(ajv: Ajv2020, pointer: string): ValidateFunction {
  return ajv.compile({ $ref: documentRef(pointer) })
}

export type { ErrorObject, ValidateFunction }
