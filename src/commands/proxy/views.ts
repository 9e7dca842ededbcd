import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { apiDocument, listOperations, releaseDocument, servedDocument, type OperationEntry } from '../../document/reader.ts'
import { relaxMockDefined } from '../../document/mock-defined.ts'
import { bodyAlternatives } from '../../document/hints.ts'
import { releaseOfSignIn } from '../kit/sign-in-releases.ts'

/**
 * The documents one release is judged by, and the routing of a request to its operation. Built once
 * per release and process, when a first exchange needs them: each is a view the mock and verify
 * already use, so the proxy holds traffic to the very documents they hold it to.
 */

/** An operation of a release with its entry in each of the release's documents and its path matcher. */
export interface Route {
  operationId: string
  /** The document's path template (`/ExplorerApi/api/items`). */
  path: string
  method: string
  /** In the document the lenient mock checks requests against (unknown members found). */
  checked: OperationEntry
  /** In the strict mode's document: what the lenient mock accepts only with a warning is refused there. */
  strict: OperationEntry
  /** In the document as an installation is held to it: the mock's own choices set aside. */
  description: OperationEntry
  /** The path as a matcher with one group per path parameter, in the order of `names`. */
  pattern: RegExp
  names: string[]
}

/** One release's documents and routes. */
export interface ReleaseView {
  release: string
  checked: OpenAPIObject
  strict: OpenAPIObject
  description: OpenAPIObject
  routes: Route[]
}

/** `/a/{b}/c` as a matcher with a group per parameter (one segment each; any letter case and a trailing slash, as the mock routes). */
function capturingMatcher(path: string): { pattern: RegExp; names: string[] } {
  const names: string[] = []
  const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{([^}]+)\\?\}/g, (_whole, name: string) => {
    names.push(name)
    return '([^/]+)'
  })
  return { pattern: new RegExp(`^${source}/?$`, 'i'), names }
}

function byId(document: OpenAPIObject): Map<string, OperationEntry> {
  return new Map(listOperations(document).map((entry) => [entry.operationId, entry]))
}

const views = new Map<string, ReleaseView>()

/** The documents and routes of a release (a normalized version), built once per process. */
export function releaseView(release: string): ReleaseView {
  let view = views.get(release)
  if (view === undefined) {
    const checked = releaseDocument(release)
    const strict = servedDocument(release, 'strict')
    const description = relaxMockDefined(checked)
    const strictIds = byId(strict)
    const descriptionIds = byId(description)
    const routes = listOperations(checked).flatMap((entry): Route[] => {
      const strictEntry = strictIds.get(entry.operationId)
      const descriptionEntry = descriptionIds.get(entry.operationId)
      if (strictEntry === undefined || descriptionEntry === undefined) return []
      return [
        {
          operationId: entry.operationId,
          path: entry.path,
          method: entry.method.toUpperCase(),
          checked: entry,
          strict: strictEntry,
          description: descriptionEntry,
          ...capturingMatcher(entry.path),
        },
      ]
    })
    view = { release, checked, strict, description, routes }
    views.set(release, view)
  }
  return view
}

/** A request routed: its operation and its path parameters, decoded. */
export interface Routed {
  route: Route
  params: Record<string, string>
}

/** The operation of a release a request reaches, by method and path (without the query), or undefined. */
export function routeOf(view: ReleaseView, method: string, path: string): Routed | undefined {
  for (const route of view.routes) {
    if (route.method !== method) continue
    const match = route.pattern.exec(path)
    if (match === null) continue
    const params: Record<string, string> = {}
    route.names.forEach((name, i) => {
      const raw = match[i + 1] ?? ''
      try {
        params[name] = decodeURIComponent(raw)
      } catch {
        params[name] = raw
      }
    })
    return { route, params }
  }
  return undefined
}

/** Every release's operations (the whole document), to name the releases an operation outside the judged one belongs to. */
let allRoutes: Array<{ operationId: string; method: string; pattern: RegExp; versions: string }> | undefined

/** The operation of any release a request reaches, with the releases that have it (`>=3.0.0`), or undefined. */
export function anyReleaseRoute(method: string, path: string): { operationId: string; versions: string } | undefined {
  allRoutes ??= listOperations(apiDocument()).map((entry) => ({
    operationId: entry.operationId,
    method: entry.method.toUpperCase(),
    pattern: capturingMatcher(entry.path).pattern,
    versions: typeof entry.operation['x-product-versions'] === 'string' ? entry.operation['x-product-versions'] : '*',
  }))
  return allRoutes.find((route) => route.method === method && route.pattern.test(path))
}

/** An operation of any release as a matcher, with the release its path shows when it is a sign-in (else null). */
export interface SignInMatcher {
  method: string
  source: string
  flags: string
  release: string | null
}

/**
 * Every operation of every release as plain data, in the order `anyReleaseRoute` tries them: the
 * proxy's main thread tells a sign-in (and so the release of the exchanges after it) from these
 * without loading the documents, which only its judging thread does.
 */
export function signInMatchers(): SignInMatcher[] {
  return listOperations(apiDocument()).map((entry) => {
    const { pattern } = capturingMatcher(entry.path)
    return { method: entry.method.toUpperCase(), source: pattern.source, flags: pattern.flags, release: releaseOfSignIn(entry.operationId) ?? null }
  })
}

const alternatives = new WeakMap<OpenAPIObject, Map<string, string[]>>()

/** The alternatives (oneOf/anyOf branches) of the body schema at a pointer, looked up once per document and pointer. */
export function alternativesOf(document: OpenAPIObject, schemaPointer: string): string[] {
  let known = alternatives.get(document)
  if (known === undefined) alternatives.set(document, (known = new Map()))
  let found = known.get(schemaPointer)
  if (found === undefined) known.set(schemaPointer, (found = bodyAlternatives(document, schemaPointer)))
  return found
}
