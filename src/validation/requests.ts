import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import type { Violation } from '../errors.ts'
import { escapePointer, type OperationEntry } from '../profile.ts'
import { compileAt, documentRef } from './ajv.ts'
import { toViolations } from './violations.ts'

type Part = 'headers' | 'query' | 'params'
const PART_OF: Record<string, Part> = { header: 'headers', query: 'query', path: 'params' }

/** What a handler's request offers for validation (Fastify's request fits). */
export interface RequestParts {
  headers: Record<string, unknown>
  query: unknown
  params: unknown
  body: unknown
}

/** Checks one request against its operation; returns every violation, or none. */
export type RequestValidator = (request: RequestParts) => Violation[]

interface ParameterObject {
  name: string
  in: string
  required?: boolean
}

function resolveParameter(document: OpenAPIObject, raw: Record<string, unknown>, pointer: string): { parameter: ParameterObject; pointer: string } {
  const ref = raw.$ref
  if (typeof ref === 'string' && ref.startsWith('#/components/parameters/')) {
    const name = ref.slice('#/components/parameters/'.length)
    const parameter = document.components?.parameters?.[name] as unknown as ParameterObject
    return { parameter, pointer: `/components/parameters/${name}` }
  }
  return { parameter: raw as unknown as ParameterObject, pointer }
}

/**
 * Compiles, at boot, the validators of one operation from the document's own schemas:
 * header, query and path parameters (coercing, since they arrive as text) and the JSON or
 * form body of its media type (not coercing).
 */
export function compileRequestValidator(
  document: OpenAPIObject,
  entry: OperationEntry,
  ajv: { coercing: Ajv2020; strict: Ajv2020 },
): RequestValidator {
  const parts: Record<Part, { properties: Record<string, unknown>; required: string[] }> = {
    headers: { properties: {}, required: [] },
    query: { properties: {}, required: [] },
    params: { properties: {}, required: [] },
  }
  const parameters = (entry.operation.parameters ?? []) as Record<string, unknown>[]
  parameters.forEach((raw, index) => {
    const { parameter, pointer } = resolveParameter(document, raw, `${entry.pointer}/parameters/${index}`)
    const part = PART_OF[parameter.in]
    if (part === undefined) return
    // Node gives header names in lower case; HTTP header names are case-insensitive anyway.
    const name = part === 'headers' ? parameter.name.toLowerCase() : parameter.name
    parts[part].properties[name] = { $ref: documentRef(`${pointer}/schema`) }
    if (parameter.required === true || part === 'params') parts[part].required.push(name)
  })
  const checks: Array<{ part: Part | 'body'; validate: ValidateFunction }> = []
  for (const part of ['headers', 'query', 'params'] as const) {
    const { properties, required } = parts[part]
    if (Object.keys(properties).length === 0) continue
    checks.push({ part, validate: ajv.coercing.compile({ type: 'object', properties, required }) })
  }
  const content = (entry.operation.requestBody as { content?: Record<string, unknown> } | undefined)?.content
  const mediaType = content === undefined ? undefined : Object.keys(content)[0]
  if (mediaType !== undefined) {
    const pointer = `${entry.pointer}/requestBody/content/${escapePointer(mediaType)}/schema`
    checks.push({ part: 'body', validate: compileAt(ajv.strict, pointer) })
  }
  return (request) => {
    const violations: Violation[] = []
    for (const { part, validate } of checks) {
      const value = part === 'body' ? request.body : (request[part] ?? {})
      if (!validate(value)) violations.push(...toViolations(part, validate.errors))
    }
    return violations
  }
}
