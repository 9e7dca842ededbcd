import type { FastifyRequest } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import type { Violation } from '../errors.ts'
import { atPointer, resolveRef, type OperationEntry } from './reader.ts'
import { isObject } from './json.ts'
import { validatorsFor } from './validators.ts'
import { decodeRowVersion } from '../wire/row-version.ts'

/**
 * What to send instead, for the mistakes a client author makes first: each names the fix (a
 * conversion or a rename), not only the rule that was broken. A problem carries it in `hint`.
 */

/** A TIMESTAMP sent back as the text a read gave: the number to send instead. */
function timestampHint(request: FastifyRequest, violations: readonly Violation[]): string | undefined {
  for (const violation of violations) {
    if (!violation.pointer.endsWith('/TIMESTAMP') || violation.keyword !== 'type') continue
    // The same fault in many rows is one violation: its first row says what to send.
    const pointer = (violation.first ?? violation.pointer).slice('/body'.length)
    const sent = atPointer(request.body, pointer)
    if (typeof sent !== 'string') continue
    const version = decodeRowVersion(sent)
    const what = version === null ? 'a number' : `${version}, the number "${sent}" encodes`
    const others = violation.count === undefined ? '' : ` (and the same in ${violation.count - 1} more rows)`
    return `TIMESTAMP is read as base64 text of the row version (an 8-byte big-endian integer) and sent back as that integer: send ${what} at ${pointer}${others}.`
  }
  return undefined
}

/** Hints for a request the document's schemas refuse, by what the violations and the request show. */
export function validationHint(request: FastifyRequest, entry: OperationEntry, violations: readonly Violation[]): string | undefined {
  const timestamp = timestampHint(request, violations)
  if (timestamp !== undefined) return timestamp
  if (violations.some((v) => v.pointer === '/headers/WorkspaceId') && request.headers.domainid !== undefined) {
    return 'Release 3.0 renamed the Domain Id to Workspace Id: send the Workspace Id in the WorkspaceId header (a Domain Id from before 3.0 is not valid).'
  }
  if (entry.operationId === 'generateRowLink' && violations.some((v) => v.pointer === '/body/relationKey')) {
    return "Only master rows have row links (detail rows have no direct link): send relationKey null and the master rows' Ids in values."
  }
  if (entry.operationId === 'listNearMisses' && violations.some((v) => v.pointer === '/query/match' && v.keyword === 'required')) {
    return 'Near misses are the journaled requests closest to a pattern: give one in match, as URL-encoded JSON such as {"body":{"Rows":[{"Row":{"Customer":"Initech"}}]}}; GET /__mock/requests lists every request.'
  }
  if (entry.operationId === 'setFaults' && Array.isArray(request.body) && violations.some((v) => v.pointer === '/body' && v.keyword === 'type')) {
    return 'The fault rules go in an object: send { "rules": [...] } (and "seed" for rates drawn the same way each run), not a bare array.'
  }
  const contentType = String(request.headers['content-type'] ?? '')
  if (entry.operationId.startsWith('signIn') && entry.operationId !== 'signInLegacy' && /json/i.test(contentType)) {
    return 'Sign-in takes a form, not JSON: send Content-Type: application/x-www-form-urlencoded with client_id, username, password, grant_type=password and scope.'
  }
  return undefined
}

/**
 * The pointers of a body schema's alternatives (`anyOf`/`oneOf` at its top, through references), or
 * none. The older and the current delete body are such alternatives.
 */
export function bodyAlternatives(document: OpenAPIObject, schemaPointer: string): string[] {
  const { node, pointer } = resolveRef(document, atPointer(document, schemaPointer), schemaPointer)
  if (!isObject(node)) return []
  for (const keyword of ['anyOf', 'oneOf'] as const) {
    const branches = node[keyword]
    if (Array.isArray(branches) && branches.length > 1) return branches.map((_, i) => `${pointer}/${keyword}/${i}`)
  }
  return []
}

/**
 * A body that matches none of its alternatives is reported against the one it came closest to
 * (fewest violations), not with every alternative's complaints and a bare "must match a schema in
 * anyOf". Validators of the alternatives are compiled at the first such body: only refused bodies pay.
 */
export function closestAlternative(document: OpenAPIObject, alternatives: readonly string[], body: unknown, violations: Violation[]): Violation[] {
  if (alternatives.length === 0 || !violations.some((v) => v.pointer === '/body' && (v.keyword === 'anyOf' || v.keyword === 'oneOf'))) return violations
  const validators = validatorsFor(document)
  let best: Violation[] | undefined
  for (const pointer of alternatives) {
    const found = validators.violationsAt(pointer, body)
    if (found.length > 0 && (best === undefined || found.length < best.length)) best = found
  }
  if (best === undefined) return violations
  // Headers, query and path keep their own violations; only the body's are the alternatives'.
  const isBody = (v: Violation): boolean => v.pointer === '/body' || v.pointer.startsWith('/body/')
  return [...violations.filter((v) => !isBody(v)), ...best]
}
