import { parse as parseQuery } from 'node:querystring'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { isObject } from '../../document/json.ts'
import { requestBodyOf, resolveRef, type OperationEntry } from '../../document/reader.ts'
import { validatorsFor, type RequestParts } from '../../document/validators.ts'
import { queryWarnings } from '../../policy/query-warnings.ts'
import { closestAlternative } from '../../document/hints.ts'
import { WARNINGS, type WarningCode } from '../../policy/warnings.ts'
import { parseQueryString } from '../../wire/query-string.ts'
import type { Violation } from '../../errors.ts'
import { dropEchoes } from '../../document/violations.ts'
import { CONTENT_TYPE_POINTER, exampleOf, generalPointer, valueAt, type Observation } from './findings.ts'
import { alternativesOf, type Routed } from './views.ts'

/**
 * The client's side of an exchange, held to the document as the strict mock holds a request:
 * what the lenient mock refuses too is a violation; what the lenient mock accepts with a warning
 * (a member no schema names, an undeclared URL parameter, a query option the description does not
 * list, what the strict document's overlays refuse) is a warning. Pure: the parsed request in,
 * observations out.
 */

/** A request as the proxy saw it go to the installation. */
export interface SentRequest {
  method: string
  /** Path and query as sent. */
  url: string
  headers: Record<string, string | string[] | undefined>
  /** Its body's bytes (empty for none), or `too-large` past the check limit (not kept). */
  body: Buffer | 'too-large'
}

/** What judging a request gives: the body as the mock would have parsed it (for the usage file), and the observations. */
export interface JudgedRequest {
  body: unknown
  observations: Observation[]
}

const FORM = 'application/x-www-form-urlencoded'
const isJsonType = (mediaType: string): boolean => /^application\/([\w.-]+\+)?json$/.test(mediaType)
const mediaTypeOf = (header: string | string[] | undefined): string =>
  (String(Array.isArray(header) ? header[0] : (header ?? '')).split(';')[0] ?? '').trim().toLowerCase()

/** The media types an operation's request body is declared with in a document; undefined when it takes no body. */
function bodyTypes(document: OpenAPIObject, entry: OperationEntry): string[] | undefined {
  if (entry.operation.requestBody === undefined) return undefined
  const { node } = resolveRef(document, entry.operation.requestBody)
  return isObject(node) && isObject(node.content) ? Object.keys(node.content) : []
}

/** The URL's query as Node (and Fastify) read it: a repeated parameter becomes an array. */
export function queryOf(url: string): Record<string, string | string[]> {
  const question = url.indexOf('?')
  return question < 0 ? {} : ({ ...parseQuery(url.slice(question + 1)) } as Record<string, string | string[]>)
}

/** A body parsed as the mock parses it (JSON; a sign-in form field by field), or why it cannot be read. */
function parseBody(bytes: Buffer, mediaType: string): { value: unknown } | { unreadable: string } {
  if (bytes.length === 0) return { value: undefined }
  const text = bytes.toString('utf8')
  if (isJsonType(mediaType)) {
    try {
      return { value: JSON.parse(text) }
    } catch (error) {
      return { unreadable: `must be JSON, as its Content-Type says (${(error as Error).message})` }
    }
  }
  if (mediaType === FORM) return { value: Object.fromEntries(new URLSearchParams(text)) }
  return { unreadable: `is of type ${mediaType === '' ? '(none given)' : mediaType}, which the API does not read` }
}

const warning = (code: WarningCode, pointer: string, detail: string, example?: unknown): Observation => ({
  side: 'request',
  severity: 'warning',
  pointer,
  message: `${code}: ${WARNINGS[code]} ${detail}`.trim(),
  ...(example === undefined ? {} : { example }),
})

/** Where a pointer of a request check points (`/body/...`, `/headers/x`, `/query/x`, `/params/x`). */
function partValue(parts: RequestParts, pointer: string): unknown {
  const part = /^\/(body|headers|query|params)/.exec(pointer)?.[1] as keyof RequestParts | undefined
  return part === undefined ? undefined : valueAt(parts[part], pointer, `/${part}`)
}

function observe(parts: RequestParts, violation: Violation, severity: Observation['severity'], note = ''): Observation {
  return {
    side: 'request',
    severity,
    pointer: generalPointer(violation.pointer, parts.body, '/body'),
    message: `${violation.message}${note}`,
    ...(() => {
      const example = exampleOf(partValue(parts, violation.pointer), violation.pointer)
      return example === undefined ? {} : { example }
    })(),
  }
}

/**
 * Holds one request to its operation: the body's media type against the types the operation
 * takes, then the headers, query, path and body against the lenient mock's checked document
 * (violations) and the strict document (what only strict mode refuses: warnings), and the query
 * text's leniencies. A body over the check limit is not parsed; its headers and query still are.
 */
export function judgeRequest(routed: Routed, documents: { checked: OpenAPIObject; strict: OpenAPIObject }, request: SentRequest): JudgedRequest {
  const { route, params } = routed
  const observations: Observation[] = []
  const mediaType = mediaTypeOf(request.headers['content-type'])
  const lenientTypes = bodyTypes(documents.checked, route.checked)
  const strictTypes = bodyTypes(documents.strict, route.strict)
  let body: unknown
  let skipBody = request.body === 'too-large'
  if (request.body !== 'too-large' && request.body.length > 0) {
    const parsed = parseBody(request.body, mediaType)
    if ('unreadable' in parsed) {
      observations.push({ side: 'request', severity: 'violation', pointer: '/body', message: parsed.unreadable })
      skipBody = true
    } else body = parsed.value
    if (lenientTypes !== undefined && !lenientTypes.includes(mediaType)) {
      observations.push({
        side: 'request',
        severity: 'violation',
        pointer: CONTENT_TYPE_POINTER,
        message: `must be ${lenientTypes.join(' or ')}: ${route.operationId} takes no other body`,
        example: mediaType,
      })
      skipBody = true
    } else if (lenientTypes !== undefined && strictTypes !== undefined && !strictTypes.includes(mediaType)) {
      observations.push(warning('SIGN_IN_JSON_BODY', CONTENT_TYPE_POINTER, `Strict mode takes ${strictTypes.join(' or ')} only.`, mediaType))
    }
  }
  const parts: RequestParts = { headers: request.headers, query: queryOf(request.url), params, body }
  const checked = validatorsFor(documents.checked).requestValidator(route.checked, { skipBody })(parts)
  // A body that is none of its alternatives (the current or the older delete body) is told against the closest one, as the mock tells it.
  const schemaPointer = checked.violations.length === 0 ? undefined : requestBodyOf(documents.checked, route.checked)?.schemaPointer
  // One finding per wrong member (src/document/violations.ts): a oneOf's alternatives, a type and its items, say one mistake once.
  const violations = dropEchoes(
    schemaPointer === undefined
      ? checked.violations
      : closestAlternative(documents.checked, alternativesOf(documents.checked, schemaPointer), body, checked.violations),
    { value: body, prefix: '/body' },
  )
  for (const violation of violations) observations.push(observe(parts, violation, 'violation'))
  const seen = new Set(checked.violations.map((v) => `${v.pointer} ${v.message}`))
  if (checked.unknownMembers.length > 0) {
    for (const pointer of checked.unknownMembers)
      observations.push(warning('UNKNOWN_MEMBER', generalPointer(pointer, body, '/body'), '', exampleOf(partValue(parts, pointer), pointer)))
  }
  if (checked.unknownParameters.length > 0) {
    // The older Get Items refuses any URL parameter but its five options (its handler, in both modes).
    const refused = route.operationId === 'queryItemsLegacy'
    for (const name of checked.unknownParameters) {
      observations.push(
        refused
          ? {
              side: 'request',
              severity: 'violation',
              pointer: `/query/${name}`,
              message: 'is not one of the URL parameters the older Get Items takes ($top, $skip, $orderby, $filter, $inlinecount)',
            }
          : warning('UNKNOWN_PARAMETER', `/query/${name}`, ''),
      )
    }
  }
  // Only when the lenient check found nothing to refuse: a refused request is refused in both modes.
  if (checked.violations.length === 0) {
    const strict = validatorsFor(documents.strict).requestValidator(route.strict, { skipBody })(parts)
    for (const violation of strict.violations) {
      // Unknown members are warned above, whichever document names them.
      if (violation.keyword === 'additionalProperties' || seen.has(`${violation.pointer} ${violation.message}`)) continue
      observations.push(observe(parts, violation, 'warning', ': the lenient mock accepts this with a warning, strict mode refuses it'))
    }
  }
  if (route.operationId === 'queryItems' && isObject(body) && typeof body.query === 'string') {
    const parsed = parseQueryString(body.query)
    if (!('error' in parsed)) for (const found of queryWarnings(parsed)) observations.push(warning(found.code, '/body/query', found.message))
  }
  return { body, observations: dedupe(observations) }
}

/** One observation per side, pointer and message within an exchange (the rows of a page that share a fault are one). */
export function dedupe(observations: readonly Observation[]): Observation[] {
  const seen = new Set<string>()
  return observations.filter((o) => {
    const key = `${o.side} ${o.severity} ${o.pointer} ${o.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}
