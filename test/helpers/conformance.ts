import type { ValidateFunction } from 'ajv/dist/2020.js'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { buildDocument } from '../../spec/index.ts'
import { buildControlPlaneDocument, CONTROL_PREFIX } from '../../spec/control-plane.ts'
import { documentForVersion, escapePointer, listOperations, type OperationEntry } from '../../src/profile.ts'
import { compileAt, createDocumentAjv } from '../../src/validation/ajv.ts'
import { toViolations } from '../../src/validation/violations.ts'

/** A response as the tests receive it. */
export interface Exchange {
  method: string
  path: string
  status: number
  contentType: string
  body: unknown
}

interface VersionView {
  document: OpenAPIObject
  operations: Array<OperationEntry & { pattern: RegExp }>
  ajv: ReturnType<typeof createDocumentAjv>
  compiled: Map<string, ValidateFunction>
}

const views = new Map<string, VersionView>()
const fullDocument = buildDocument()

/** Key of the control-plane document's view; no release number looks like it. */
const CONTROL_VIEW = 'control-plane'

function viewOf(version: string): VersionView {
  let view = views.get(version)
  if (view === undefined) {
    const document = version === CONTROL_VIEW ? buildControlPlaneDocument() : documentForVersion(fullDocument, version)
    const operations = listOperations(document).map((entry) => ({
      ...entry,
      pattern: new RegExp(`^${entry.path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }))
    view = { document, operations, ajv: createDocumentAjv(document, { coerce: false }), compiled: new Map() }
    views.set(version, view)
  }
  return view
}

/**
 * Checks one exchange against the document of the release the mock emulates: the operation
 * exists, the status is documented for it, and the body matches the documented schema of its
 * media type. `/__mock/` paths are checked against the control-plane document instead, the same
 * for every release. Returns the problems found (none when the response conforms).
 */
export function conformanceProblems(version: string, exchange: Exchange): string[] {
  const path = exchange.path.split('?')[0] ?? ''
  const view = viewOf(path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`) ? CONTROL_VIEW : version)
  const entry = view.operations.find((op) => op.method === exchange.method.toLowerCase() && op.pattern.test(path))
  if (entry === undefined) {
    // Outside the document (for example /docs, a path the release lacks, or a method a path does not take): only errors are expected.
    return [404, 405, 414].includes(exchange.status) ? [] : [`${exchange.method} ${path} is not in the document for ${version}`]
  }
  const responses = (entry.operation.responses ?? {}) as Record<string, Record<string, unknown>>
  let response = responses[String(exchange.status)]
  let pointer = `${entry.pointer}/responses/${exchange.status}`
  if (response === undefined) return [`${entry.operationId}: status ${exchange.status} is not documented`]
  if (typeof response.$ref === 'string') {
    pointer = response.$ref.slice(1)
    const name = response.$ref.split('/').pop() ?? ''
    response = (view.document.components?.responses?.[name] ?? {}) as Record<string, unknown>
  }
  const content = response.content as Record<string, unknown> | undefined
  if (content === undefined) {
    return exchange.body === '' || exchange.body === undefined ? [] : [`${entry.operationId} ${exchange.status}: documented without a body, got one`]
  }
  const mediaType = exchange.contentType.split(';')[0]?.trim() ?? ''
  if (!(mediaType in content)) {
    if ('application/octet-stream' in content || '*/*' in content) return []
    return [`${entry.operationId} ${exchange.status}: media type ${mediaType} is not documented (${Object.keys(content).join(', ')})`]
  }
  if (!mediaType.endsWith('json')) return []
  const schemaPointer = `${pointer}/content/${escapePointer(mediaType)}/schema`
  let validate = view.compiled.get(schemaPointer)
  if (validate === undefined) {
    validate = compileAt(view.ajv, schemaPointer)
    view.compiled.set(schemaPointer, validate)
  }
  if (validate(exchange.body)) return []
  return toViolations('body', validate.errors).map((v) => `${entry.operationId} ${exchange.status}: ${v.pointer} ${v.message}`)
}
