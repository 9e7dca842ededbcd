import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { isObject } from '../../document/json.ts'
import { escapePointer, hasSchema, resolveRef, responseOf } from '../../document/reader.ts'
import { validatorsFor } from '../../document/validators.ts'
import { isGatewayStatus } from '../../wire/gateway-statuses.ts'
import { MOCK_DEFINED } from '../../../spec/extensions.ts'
import { dropEchoes } from '../../document/violations.ts'
import type { Violation } from '../../errors.ts'
import { CONTENT_TYPE_POINTER, exampleOf, generalPointer, valueAt, type Observation } from './findings.ts'
import { alternativesOf, type Route } from './views.ts'

/**
 * The installation's side of an exchange, held to the document as verify holds an installation
 * (the mock's own choices set aside): the status among those the operation declares (a gateway
 * status is a warning: the infrastructure's, not the API's), the media type among those declared
 * for it, the headers it declares present and well formed (undeclared ones are not judged:
 * gateways add their own), and a JSON body against its schema. Pure: the answer in, observations out.
 */

/** An answer as the proxy passed it to the client. */
export interface ReceivedAnswer {
  status: number
  headers: Record<string, string | string[] | undefined>
  /** Its body's bytes (decoded, when it came encoded), or `too-large`: past the check limit, or in an encoding not decoded (its body is not judged). */
  body: Buffer | 'too-large'
  /** A HEAD request's answer, or a 204/304: no body to judge. */
  bodiless: boolean
}

const isJsonType = (mediaType: string): boolean => /^application\/([\w.-]+\+)?json$/.test(mediaType)

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(', ') : value
}

/** Every status an operation declares, for messages. */
function declaredStatuses(route: Route): string {
  return Object.keys(isObject(route.description.operation.responses) ? route.description.operation.responses : {}).join(', ')
}

/** Judges one answer of a routed operation against the release's document as an installation is held to it. */
export function judgeAnswer(route: Route, document: OpenAPIObject, answer: ReceivedAnswer): Observation[] {
  const { status } = answer
  const label = `${route.operationId} ${status}`
  if (isGatewayStatus(status)) {
    return [
      {
        side: 'answer',
        severity: 'warning',
        pointer: '/status',
        message: `${status} is a gateway status: the infrastructure in front of the installation answered, not the API (its media type and body are not judged)`,
        example: status,
      },
    ]
  }
  const found = responseOf(document, route.description, status)
  if (found === undefined) {
    return [
      {
        side: 'answer',
        severity: 'violation',
        pointer: '/status',
        message: `must be a status ${route.operationId} answers with (the document lists ${declaredStatuses(route)})`,
        example: status,
      },
    ]
  }
  // The description defines no error answer (the mock's are its own choice): its status is declared, nothing more is judged.
  if (found.response[MOCK_DEFINED] === true) return []
  const observations: Observation[] = []
  const validators = validatorsFor(document)
  // Declared headers: present when required, and of their schema when present.
  const declared = isObject(found.response.headers) ? found.response.headers : {}
  for (const [name, raw] of Object.entries(declared)) {
    const { node, pointer } = resolveRef(document, raw, `${found.pointer}/headers/${escapePointer(name)}`)
    if (!isObject(node)) continue
    const value = headerText(answer.headers[name.toLowerCase()])
    const at = `/headers/${name}`
    if (value === undefined) {
      if (node.required === true)
        observations.push({ side: 'answer', severity: 'violation', pointer: at, message: `is required: the document declares ${name} on ${label}` })
      continue
    }
    if (node.schema !== undefined) {
      for (const violation of validators.violationsAt(`${pointer}/schema`, value, `headers/${name}`, { coerce: true })) {
        observations.push({
          side: 'answer',
          severity: 'violation',
          pointer: at,
          message: `${violation.message} (the document's ${name} on ${label})`,
          example: exampleOf(value, at),
        })
      }
    }
  }
  if (answer.bodiless) return observations
  const content = isObject(found.response.content) ? found.response.content : undefined
  const size = answer.body === 'too-large' ? Infinity : answer.body.length
  if (content === undefined || Object.keys(content).length === 0) {
    if (size > 0) observations.push({ side: 'answer', severity: 'violation', pointer: '/body', message: `must be empty: ${label} is declared without a body` })
    return observations
  }
  const mediaType = (headerText(answer.headers['content-type'])?.split(';')[0] ?? '').trim().toLowerCase()
  const types = Object.keys(content)
  // `application/octet-stream` declares any file; `*/*` any label (the media type of a marked answer).
  const key = types.includes(mediaType)
    ? mediaType
    : types.includes('*/*')
      ? '*/*'
      : types.includes('application/octet-stream')
        ? 'application/octet-stream'
        : undefined
  if (key === undefined) {
    observations.push({
      side: 'answer',
      severity: 'violation',
      pointer: CONTENT_TYPE_POINTER,
      message: `must be ${types.join(' or ')} (the document's media types of ${label})`,
      example: mediaType === '' ? null : mediaType,
    })
    return observations
  }
  if (answer.body === 'too-large' || !isJsonType(mediaType)) return observations
  const schemaPointer = `${found.pointer}/content/${escapePointer(key)}/schema`
  if (!hasSchema(document, schemaPointer)) return observations
  let body: unknown
  try {
    body = JSON.parse(answer.body.toString('utf8'))
  } catch (error) {
    observations.push({
      side: 'answer',
      severity: 'violation',
      pointer: '/body',
      message: `must be JSON, as its Content-Type says (${(error as Error).message})`,
    })
    return observations
  }
  const closest = closestAnswerAlternative(document, schemaPointer, body, validators.violationsAt(schemaPointer, body, 'body'))
  // The same fault in every row of a page is one observation (the first row's, and its example): a
  // page of 160,000 rows each with a text Id is one finding. Merged before the echoes are dropped, so
  // that step and the pointers' generalizing see one violation per fault, not one per row.
  const seen = new Set<string>()
  for (const violation of dropEchoes(firstOfEachFault(closest), { value: body, prefix: '/body' })) {
    const pointer = generalPointer(violation.pointer, body, '/body')
    const key = `${pointer}\u0000${violation.message}`
    if (seen.has(key)) continue
    seen.add(key)
    observations.push({
      side: 'answer',
      severity: 'violation',
      pointer,
      message: violation.message,
      ...(() => {
        const example = exampleOf(valueAt(body, violation.pointer, '/body'), violation.pointer)
        return example === undefined ? {} : { example }
      })(),
    })
  }
  return observations
}

/** Array positions in a pointer, written `*` (a key to merge by: an object member named by digits merges too, which only joins two findings). */
const ANY_POSITION = /\/\d+(?=\/|$)/g

/** The first violation of each fault: the same keyword and message at the same pointer but for array positions. */
function firstOfEachFault(violations: readonly Violation[]): Violation[] {
  const seen = new Set<string>()
  const first: Violation[] = []
  for (const violation of violations) {
    const key = `${violation.pointer.replace(ANY_POSITION, '/*')}\u0000${violation.keyword ?? ''}\u0000${violation.message}`
    if (seen.has(key)) continue
    seen.add(key)
    first.push(violation)
  }
  return first
}

/**
 * A body that is none of its alternatives (a page of rows or a count) is told against the one it
 * is meant to be: an alternative of the body's own JSON type before any other (a list of rows with
 * a wrong Id is a page, not a count), then the one with the fewest violations.
 */
function closestAnswerAlternative(document: OpenAPIObject, schemaPointer: string, body: unknown, violations: Violation[]): Violation[] {
  if (!violations.some((v) => v.pointer === '/body' && (v.keyword === 'anyOf' || v.keyword === 'oneOf'))) return violations
  const validators = validatorsFor(document)
  const wrongType = (found: Violation[]) => found.some((v) => v.pointer === '/body' && v.keyword === 'type')
  let best: Violation[] | undefined
  for (const pointer of alternativesOf(document, schemaPointer)) {
    const found = validators.violationsAt(pointer, body)
    if (found.length === 0) continue
    const better = best === undefined || (wrongType(best) && !wrongType(found)) || (wrongType(best) === wrongType(found) && found.length < best.length)
    if (better) best = found
  }
  return best ?? violations
}
