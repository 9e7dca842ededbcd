/**
 * The document and the mock cannot drift apart: every request example of the document is sent,
 * as it stands, to a freshly started mock of each release it belongs to, in strict mode, so an
 * example that relies on anything the description does not promise is refused. The answer must have a
 * documented status and a body that validates (the test client checks both against the release's
 * document), and where a response example names the request example (`x-request-example`) the
 * answer must equal it, after setting aside what naturally varies: row versions, times, tokens and
 * the origin of links. Examples are built from the default fixture, so this also proves they
 * describe the data `npm start` serves.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { buildDocument } from '../../spec/index.ts'
import { EXAMPLE_FILE, PRODUCT_VERSIONS, REQUEST_EXAMPLE } from '../../spec/extensions.ts'
import { inRange, normalizeVersion } from '../../spec/versions.ts'
import { documentForVersion, listOperations, type OperationEntry } from '../../src/document/reader.ts'
import { startTestMock, type Reply } from '../helpers/http.ts'
import { asJson, isObject, resolve, type Json, type JsonObject } from './support/document.ts'

const RELEASES = ['3.0.19', '3.0.18', '2.9'].map((v) => normalizeVersion(v) as string)

interface Parameter {
  name: string
  in: string
  required?: boolean
  example?: Json
  examples?: Record<string, { value: Json }>
}

/** A request example: the body (if the operation takes one) and the parameters, by example name. */
interface RequestExample {
  name: string
  versions: string | undefined
  body?: { mediaType: string; value: Json }
  parameters: Parameter[]
}

function parametersOf(doc: JsonObject, entry: OperationEntry): Parameter[] {
  const list = (entry.operation.parameters ?? []) as Json[]
  return list.map((p) => resolve(doc, p) as unknown as Parameter)
}

/** Every request example of an operation: body examples and named parameter examples, by name. */
function requestExamples(doc: JsonObject, entry: OperationEntry): RequestExample[] {
  const parameters = parametersOf(doc, entry)
  const names = new Map<string, string | undefined>()
  const content = (resolve(doc, entry.operation.requestBody as Json) as JsonObject | undefined)?.content
  let mediaType: string | undefined
  let bodyExamples: JsonObject = {}
  if (isObject(content)) {
    mediaType = Object.keys(content)[0] as string
    bodyExamples = ((content[mediaType] as JsonObject).examples ?? {}) as JsonObject
    for (const [name, example] of Object.entries(bodyExamples)) names.set(name, (example as JsonObject)[PRODUCT_VERSIONS] as string | undefined)
  }
  for (const parameter of parameters) for (const name of Object.keys(parameter.examples ?? {})) if (!names.has(name)) names.set(name, undefined)
  return [...names].map(([name, versions]) => ({
    name,
    versions,
    ...(mediaType === undefined ? {} : { body: { mediaType, value: ((bodyExamples[name] as JsonObject).value ?? null) as Json } }),
    parameters,
  }))
}

/** The value a parameter takes in the named example: its example of that name, else its single example when required. */
function parameterValue(parameter: Parameter, name: string): Json | undefined {
  const named = parameter.examples?.[name]
  if (named !== undefined) return named.value
  if (parameter.required !== true && parameter.in !== 'path') return undefined
  return parameter.example ?? Object.values(parameter.examples ?? {})[0]?.value
}

/** The 200 response examples that answer the named request example on this release. */
function pairedResponses(
  doc: JsonObject,
  entry: OperationEntry,
  name: string,
  version: string,
): Array<{ key: string; mediaType: string; example: JsonObject }> {
  const response = resolve(doc, (entry.operation.responses as JsonObject)['200']) as JsonObject
  const content = (response.content ?? {}) as JsonObject
  const found: Array<{ key: string; mediaType: string; example: JsonObject }> = []
  for (const [mediaType, media] of Object.entries(content)) {
    // A binary payload has no example object: its media type names the request example and the file itself.
    const holders: Array<[string, JsonObject]> = [
      [mediaType, media as JsonObject],
      ...(Object.entries(((media as JsonObject).examples ?? {}) as JsonObject) as Array<[string, JsonObject]>),
    ]
    for (const [key, holder] of holders) {
      if (holder[REQUEST_EXAMPLE] === name && inRange(version, holder[PRODUCT_VERSIONS] as string | undefined)) found.push({ key, mediaType, example: holder })
    }
  }
  return found
}

/** What naturally varies between runs and installations, replaced by a placeholder. */
function setAside(value: unknown, key = ''): unknown {
  if (['TIMESTAMP', 'Timestamp', 'DT_CREATION', 'DT_LAST_UPDATE', 'access_token', 'SessionToken'].includes(key)) return `<${key}>`
  if (typeof value === 'string') return value.replace(/^https?:\/\/[^/]+/, '<origin>')
  if (Array.isArray(value)) return value.map((item) => setAside(item))
  if (isObject(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, setAside(v, k)]))
  return value
}

const SIGN_IN = new Set(['signIn', 'signInWithoutOrganization', 'signInLegacy'])

/** Sends one request example to a fresh mock of the release; returns the answer. */
async function send(version: string, _doc: JsonObject, entry: OperationEntry, example: RequestExample): Promise<Reply> {
  const mock = await startTestMock({ productVersion: version, strict: true })
  try {
    const token = SIGN_IN.has(entry.operationId) ? '' : await mock.signIn()
    let path = entry.path
    const query = new URLSearchParams()
    const headers: Record<string, string> = {}
    for (const parameter of example.parameters) {
      const value = parameterValue(parameter, example.name)
      if (value === undefined) continue
      if (parameter.in === 'path') path = path.replace(`{${parameter.name}}`, encodeURIComponent(String(value)))
      else if (parameter.in === 'query') query.set(parameter.name, String(value))
      else if (parameter.in === 'header') headers[parameter.name] = parameter.name === 'SessionToken' ? token : String(value)
    }
    const security = JSON.stringify(entry.operation.security ?? [])
    if (security.includes('BearerAuth')) headers.Authorization = `Bearer ${token}`
    const url = query.size === 0 ? path : `${path}?${query.toString().replaceAll('+', '%20')}`
    const body = example.body
    if (body === undefined) return await mock.request(entry.method.toUpperCase(), url, { headers })
    if (body.mediaType === 'application/x-www-form-urlencoded') {
      return await mock.request('POST', url, { headers, form: body.value as Record<string, string> })
    }
    return await mock.request(entry.method.toUpperCase(), url, { headers, json: body.value })
  } finally {
    await mock.close()
  }
}

const full = buildDocument()
/** Response examples compared with an answer, as `operationId example`. */
const compared = new Set<string>()

for (const version of RELEASES) {
  const view: OpenAPIObject = documentForVersion(full, version)
  const doc = asJson(view)
  describe(`the document's request examples, sent to a fresh mock of ${version}`, () => {
    for (const entry of listOperations(view)) {
      for (const example of requestExamples(doc, entry)) {
        if (!inRange(version, example.versions)) continue
        it(`${entry.operationId} "${example.name}" answers 200 as its response example shows`, async () => {
          const reply = await send(version, doc, entry, example)
          expect(reply.status, JSON.stringify(reply.body).slice(0, 400)).toBe(200)
          expect(reply.headers.get('x-mock-warnings')).toBeNull()
          for (const { key, mediaType, example: expected } of pairedResponses(doc, entry, example.name, version)) {
            compared.add(`${entry.operationId} ${key}`)
            expect(reply.contentType.split(';')[0]).toBe(mediaType)
            const json = /json$/.test(mediaType)
            // A payload that is not JSON (a PDF, a text file) is inline as its text: the bytes must be the same.
            if ('value' in expected && json) expect(setAside(reply.body)).toEqual(setAside(expected.value))
            else if ('value' in expected) expect(reply.raw.toString('utf8')).toBe(expected.value)
            expect(json || 'value' in expected || typeof expected[EXAMPLE_FILE] === 'string', `${entry.operationId} ${key} shows no payload`).toBe(true)
            if (typeof expected[EXAMPLE_FILE] === 'string') {
              expect(reply.raw.equals(readFileSync(new URL(`../../fixtures/files/${expected[EXAMPLE_FILE]}`, import.meta.url)))).toBe(true)
            }
          }
        })
      }
    }
  })
}

describe('pairs of request and response examples', () => {
  it('every response example that names a request example was compared with the answer to it', () => {
    const dangling: string[] = []
    for (const entry of listOperations(full)) {
      const doc = asJson(full)
      const names = new Set(requestExamples(doc, entry).map((example) => example.name))
      const response = resolve(doc, (entry.operation.responses as JsonObject)['200']) as JsonObject
      for (const [mediaType, media] of Object.entries((response.content ?? {}) as JsonObject)) {
        for (const [key, example] of [[mediaType, media], ...Object.entries(((media as JsonObject).examples ?? {}) as JsonObject)] as Array<[string, Json]>) {
          const name = (example as JsonObject)[REQUEST_EXAMPLE]
          if (typeof name !== 'string') continue
          if (!names.has(name)) dangling.push(`${entry.operationId} response example ${key} names ${name}, which is no request example`)
          else if (!compared.has(`${entry.operationId} ${key}`)) dangling.push(`${entry.operationId} response example ${key} was never compared`)
        }
      }
    }
    expect(dangling).toEqual([])
  })
})
