import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { CONTROL_PREFIX } from '../spec/control-plane.ts'
import { controlPlaneDocument, listOperations, pathMatcher, releaseDocument, type OperationEntry } from '../src/document/reader.ts'
import { validatorsFor } from '../src/document/validators.ts'
import { relaxMockDefined } from '../src/document/mock-defined.ts'

/** An answer as a client received it, with what it asked. */
export interface Exchange {
  method: string
  path: string
  status: number
  contentType: string
  body: unknown
}

/**
 * What an answer is held to: `mock`, everything the document says (the mock's own choices
 * included); `description`, only what the API's published description says (the parts marked
 * `x-mock-defined` set aside), as for a real installation.
 */
export type HoldTo = 'mock' | 'description'

interface View {
  document: OpenAPIObject
  operations: Array<OperationEntry & { pattern: RegExp }>
}

const views = new Map<string, View>()

function viewOf(key: string, build: () => OpenAPIObject): View {
  let view = views.get(key)
  if (view === undefined) {
    const document = build()
    view = { document, operations: listOperations(document).map((entry) => ({ ...entry, pattern: pathMatcher(entry.path) })) }
    views.set(key, view)
  }
  return view
}

/** The operation a request reached in the release's document (or the control plane's), if any. */
export function operationFor(release: string, method: string, path: string, holdTo: HoldTo = 'mock'): { view: View; entry: OperationEntry | undefined } {
  const bare = path.split('?')[0] ?? ''
  const control = bare === CONTROL_PREFIX || bare.startsWith(`${CONTROL_PREFIX}/`)
  const view = control
    ? viewOf('control-plane', controlPlaneDocument)
    : holdTo === 'mock'
      ? viewOf(release, () => releaseDocument(release))
      : viewOf(`${release} description`, () => relaxMockDefined(releaseDocument(release)))
  const entry = view.operations.find((op) => op.method === method.toLowerCase() && op.pattern.test(bare))
  return { view, entry }
}

/**
 * Holds one answer to the document of a release: the operation exists, the status is documented
 * for it, the media type is one of its content types and a JSON body matches the schema. `/__mock/`
 * paths are held to the control plane's document. For a real installation (`description`) an
 * error status or a redirect is never held to anything, since the description defines none. Returns what is
 * wrong, each with the schema path that failed; none when the answer conforms.
 */
export function conformanceProblems(release: string, exchange: Exchange, holdTo: HoldTo = 'mock'): string[] {
  const { view, entry } = operationFor(release, exchange.method, exchange.path, holdTo)
  if (entry === undefined) {
    // Outside the document (/docs, a path the release lacks, a method a path does not take): only refusals are expected.
    return [404, 405, 414].includes(exchange.status) ? [] : [`${exchange.method} ${exchange.path.split('?')[0]} is not in the document for ${release}`]
  }
  // Nor is a redirect: a gateway in front of the installation may send a caller without a session to its sign-in page.
  if (holdTo === 'description' && exchange.status >= 300) return []
  return validatorsFor(view.document).responseProblems(entry, exchange)
}
