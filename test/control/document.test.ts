/**
 * The control-plane document: generated files current, valid OpenAPI 3.1, every operation
 * described, marked mock-defined and exemplified (examples matching their schemas), every
 * operation routed and served, and the YAML passes the linter offline.
 */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Validator } from '@seriousme/openapi-schema-validator'
import { buildControlPlaneDocument, MINIMAL_FIXTURE } from '../../spec/control-plane.ts'
import { MOCK_DEFINED } from '../../spec/extensions.ts'
import { toJson, toYaml } from '../../spec/serialize.ts'
import { PROBLEMS } from '../../src/errors.ts'
import { parseFixture } from '../../src/fixtures/load.ts'
import { listOperations } from '../../src/document/reader.ts'
import { validatorsFor } from '../../src/document/validators.ts'
import { fastifyPath } from '../../src/http/request-check.ts'
import { startTestMock, type TestClient } from '../helpers/http.ts'

const doc = buildControlPlaneDocument()
const operations = listOperations(doc)
const root = fileURLToPath(new URL('../../', import.meta.url))

function escape(segment: string): string {
  return segment.replaceAll('~', '~0').replaceAll('/', '~1')
}

/** Every example value in the document with the JSON pointer of the schema it must match. */
function examples(): Array<{ where: string; schemaPointer: string; value: unknown }> {
  const found: Array<{ where: string; schemaPointer: string; value: unknown }> = []
  const fromContent = (content: unknown, pointer: string) => {
    for (const [mediaType, media] of Object.entries((content ?? {}) as Record<string, { examples?: Record<string, { value: unknown }> }>)) {
      for (const [name, example] of Object.entries(media.examples ?? {})) {
        found.push({ where: `${pointer}/content/${mediaType} ${name}`, schemaPointer: `${pointer}/content/${escape(mediaType)}/schema`, value: example.value })
      }
    }
  }
  for (const entry of operations) {
    const body = entry.operation.requestBody as { content?: unknown } | undefined
    if (body !== undefined) fromContent(body.content, `${entry.pointer}/requestBody`)
    for (const [status, response] of Object.entries(entry.operation.responses as Record<string, { content?: unknown }>)) {
      fromContent(response.content, `${entry.pointer}/responses/${status}`)
    }
  }
  for (const [name, response] of Object.entries((doc.components?.responses ?? {}) as Record<string, { content?: unknown }>))
    fromContent(response.content, `/components/responses/${name}`)
  for (const [name, parameter] of Object.entries(doc.components?.parameters ?? {})) {
    if ('example' in parameter) found.push({ where: `parameter ${name}`, schemaPointer: `/components/parameters/${name}/schema`, value: parameter.example })
  }
  return found
}

describe('spec/control-plane.{json,yaml}', () => {
  it('are what npm run spec writes now', () => {
    expect(readFileSync(new URL('../../spec/control-plane.json', import.meta.url), 'utf8')).toBe(toJson(buildControlPlaneDocument()))
    expect(readFileSync(new URL('../../spec/control-plane.yaml', import.meta.url), 'utf8')).toBe(toYaml(buildControlPlaneDocument()))
  })
})

describe('the control-plane document', () => {
  it('is valid OpenAPI 3.1 with the 2020-12 dialect', async () => {
    const result = await new Validator().validate(structuredClone(doc) as unknown as Record<string, unknown>)
    expect(result.errors ?? []).toEqual([])
    expect(result.valid).toBe(true)
    expect((doc as { jsonSchemaDialect?: string }).jsonSchemaDialect).toBe('https://json-schema.org/draft/2020-12/schema')
  })

  it('gives every operation a unique operationId, a summary, a description, a tag and x-mock-defined', () => {
    expect(operations.length).toBeGreaterThanOrEqual(13)
    expect(new Set(operations.map((op) => op.operationId)).size).toBe(operations.length)
    for (const { operationId, operation } of operations) {
      expect(typeof operation.summary, operationId).toBe('string')
      expect(String(operation.description).length, operationId).toBeGreaterThan(20)
      expect((operation.tags as string[]).length, operationId).toBeGreaterThan(0)
      expect(operation[MOCK_DEFINED], operationId).toBe(true)
      expect(operation.responses, operationId).toHaveProperty(operationId === 'getControlPlaneDocument' ? '404' : operationId === 'getHealth' ? '414' : '401')
    }
  })

  it('has examples for every request body and every success body', () => {
    const where = examples().map((e) => e.where)
    for (const entry of operations) {
      if (entry.operation.requestBody !== undefined)
        expect(
          where.some((w) => w.startsWith(`${entry.pointer}/requestBody`)),
          entry.operationId,
        ).toBe(true)
      for (const [status, response] of Object.entries(entry.operation.responses as Record<string, { content?: unknown }>)) {
        if (status.startsWith('2') && response.content !== undefined)
          expect(
            where.some((w) => w.startsWith(`${entry.pointer}/responses/${status}`)),
            `${entry.operationId} ${status}`,
          ).toBe(true)
      }
    }
  })

  it('has examples that match their schemas, with problem codes from the catalog', () => {
    const validators = validatorsFor(doc)
    const failures: string[] = []
    const all = examples()
    expect(all.length).toBeGreaterThan(20)
    for (const { where, schemaPointer, value } of all) {
      const violations = validators.violationsAt(schemaPointer, value)
      if (violations.length > 0) failures.push(`${where}: ${violations.map((v) => `${v.pointer} ${v.message}`).join('; ')}`)
      const code = (value as { code?: unknown } | null)?.code
      if (typeof code === 'string' && !(code in PROBLEMS)) failures.push(`${where}: code ${code} is not in src/errors.ts`)
    }
    expect(failures).toEqual([])
  })

  it('shows a fixture example the loader accepts', () => {
    expect(() => parseFixture(structuredClone(MINIMAL_FIXTURE), 'example', `${root}fixtures`)).not.toThrow()
  })
})

describe('the control plane routes', () => {
  let mock: TestClient
  beforeAll(async () => {
    mock = await startTestMock()
  })
  afterAll(() => mock.close())

  it('has a route for every operation of the document', () => {
    for (const { method, path, operationId } of operations) {
      expect(mock.mock.app.hasRoute({ method: method.toUpperCase() as 'GET', url: fastifyPath(path) }), operationId).toBe(true)
    }
  })

  it('serves the document at /__mock/openapi.json', async () => {
    const reply = await mock.request('GET', '/__mock/openapi.json')
    expect(reply.status).toBe(200)
    expect(reply.body).toEqual(JSON.parse(JSON.stringify(doc)))
  })
})
