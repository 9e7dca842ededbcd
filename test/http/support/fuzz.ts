import type { JsonSchema } from 'json-schema-faker'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { operationParameters, type OperationEntry } from '../../../src/document/reader.ts'
import type { Reply, TestClient } from '../../helpers/http.ts'

export * from '../../../contracts/arbitraries.ts'
import { CURRENT_VERSION, setOwn } from '../../../contracts/arbitraries.ts'

/**
 * The robustness test's own part (../robustness.test.ts): the request bodies of the document as
 * json-schema-faker takes them, requests as the properties build them, and the check every reply
 * must pass. The generators are shared with the robustness contract (contracts/arbitraries.ts).
 */

// ---- the document ------------------------------------------------------------------------------

type JsonObject = Record<string, unknown>

/** The request body of an operation: its media type, schema (with the components beside it, for jsf) and examples. */
export interface BodySpec {
  mediaType: string
  schema: JsonSchema
  examples: unknown[]
}

export function bodyOf(document: OpenAPIObject, entry: OperationEntry): BodySpec | undefined {
  const content = (entry.operation.requestBody as { content?: Record<string, JsonObject> } | undefined)?.content
  if (content === undefined) return undefined
  const [mediaType, media] = Object.entries(content)[0] ?? []
  if (mediaType === undefined || media === undefined) return undefined
  const examples = Object.values((media.examples ?? {}) as Record<string, { value?: unknown }>).map((example) => example.value)
  // `$ref: '#/components/schemas/...'` resolves against the root of what jsf is given.
  const schema = { ...(media.schema as JsonObject), components: document.components } as JsonSchema
  return { mediaType, schema, examples }
}

/** The parameters of an operation, `$ref`s resolved. */
export function parametersOf(document: OpenAPIObject, entry: OperationEntry): Array<{ name: string; in: string; required: boolean }> {
  return operationParameters(document, entry).map((p) => ({ name: p.name, in: p.in, required: p.required || p.in === 'path' }))
}

// ---- requests and checks ----------------------------------------------------------------------

/** One request as the properties build it. */
export interface Shot {
  method: string
  /** Path and query, as sent. */
  path: string
  headers: Record<string, string>
  json?: unknown
  form?: Record<string, string>
  body?: string | Buffer
}

function clip(text: string, max = 600): string {
  return text.length > max ? `${text.slice(0, max)}…[${text.length} characters]` : text
}

/** The request, exactly enough to replay it by hand. */
export function describeShot(shot: Shot): string {
  const headers = Object.entries(shot.headers)
    .map(([name, value]) => `  ${name}: ${JSON.stringify(clip(value, 200))}`)
    .join('\n')
  let body = '(none)'
  if (shot.json !== undefined) body = `JSON ${clip(JSON.stringify(shot.json))}`
  else if (shot.form !== undefined) body = `form ${clip(new URLSearchParams(shot.form).toString())}`
  else if (typeof shot.body === 'string') body = `text ${JSON.stringify(clip(shot.body))}`
  else if (shot.body !== undefined) body = `bytes (base64) ${clip(shot.body.toString('base64'))}`
  return `${shot.method} ${clip(shot.path, 800)}\n${headers}\nbody: ${body}`
}

/** Sends one request; every failure names the request it came from. */
export async function fire(client: TestClient, shot: Shot): Promise<Reply> {
  let reply: Reply
  try {
    reply = await client.request(shot.method, shot.path, { headers: shot.headers, json: shot.json, form: shot.form, body: shot.body })
  } catch (error) {
    throw new Error(`${(error as Error).message}\n--- request ---\n${describeShot(shot)}`, { cause: error })
  }
  const problems = replyProblems(reply)
  if (problems.length > 0) {
    throw new Error(
      `${problems.join('; ')}\n--- request ---\n${describeShot(shot)}\n--- reply ---\n${reply.status} ${reply.contentType}\n${clip(reply.raw.toString('utf8'))}`,
    )
  }
  return reply
}

/**
 * What every reply must be, beyond matching the document (which the TestClient checks): never a
 * 5xx, and a 4xx is a problem document whose `status` is the HTTP status and whose `detail` says something.
 */
export function replyProblems(reply: Reply): string[] {
  const problems: string[] = []
  if (reply.status >= 500) problems.push(`answered ${reply.status}`)
  if (reply.status === 405 && !/^[A-Z]+(, [A-Z]+)*$/.test(reply.headers.get('allow') ?? '')) problems.push('a 405 answer has no Allow header')
  if (reply.status >= 400) {
    if (!reply.contentType.startsWith('application/problem+json'))
      problems.push(`a ${reply.status} answer is ${reply.contentType || 'untyped'}, not application/problem+json`)
    const body = reply.body as { status?: unknown; detail?: unknown } | string
    if (typeof body !== 'object' || body === null) problems.push(`a ${reply.status} answer has no problem document`)
    else {
      if (body.status !== reply.status) problems.push(`problem status ${String(body.status)} is not the HTTP status ${reply.status}`)
      if (typeof body.detail !== 'string' || body.detail.trim() === '') problems.push('problem detail is empty')
    }
  }
  return problems
}

/** Replaces CURRENT_VERSION by the version of the row its object names (masters or detail rows by scope): none for a new row, one nobody has for a missing row. */
export function resolveVersions(value: unknown, versions: { masters: Map<number, number>; details: Map<number, number>; unknown: number }): unknown {
  const walk = (node: unknown, scope: 'masters' | 'details'): unknown => {
    if (Array.isArray(node)) return node.map((item) => walk(item, scope))
    if (node === null || typeof node !== 'object') return node
    const object = node as JsonObject
    const out: JsonObject = {}
    for (const [key, child] of Object.entries(object)) {
      let childScope = scope
      if (key === 'Details') childScope = 'details'
      else if (key === 'Rows' && 'RelationKey' in object) childScope = object.RelationKey === null ? 'masters' : 'details'
      setOwn(out, key, walk(child, childScope))
    }
    if (out.TIMESTAMP === CURRENT_VERSION) {
      // A new row (negative temporary Id) has no version yet; a row that does not exist gets one nobody has.
      const id = out.Id as number
      out.TIMESTAMP = typeof id === 'number' && id < 0 ? null : (versions[scope].get(id) ?? versions.unknown)
    }
    return out
  }
  return walk(value, 'masters')
}
