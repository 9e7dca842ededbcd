/**
 * Request validators are compiled when the routes are added, not at an operation's first request:
 * a schema Ajv cannot compile stops start-up, naming the operation (src/http/request-check.ts).
 * The validators of the documents the mock serves are compiled ahead of time
 * (src/document/request-validators.generated.ts, by `npm run spec`), found by the document's
 * digest: they must be current, found for every served document, never found for a changed one,
 * and give exactly the violations the compiled ones give.
 */
import { readFileSync } from 'node:fs'
import { Ajv2020 } from 'ajv/dist/2020.js'
import fc from 'fast-check'
import Fastify from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { controlPlaneDocument, listOperations, releaseDocument, type OperationEntry } from '../../src/document/reader.ts'
import { DocumentValidators, validatorsFor, type RequestParts } from '../../src/document/validators.ts'
import { registerOperationRoutes } from '../../src/http/routes.ts'
import { HANDLERS } from '../../src/operations/index.ts'
import { buildControlPlaneDocument } from '../../spec/control-plane.ts'
import { buildDocument } from '../../spec/index.ts'
import { REQUEST_VALIDATORS_FILE, requestValidatorsSource, servedViews } from '../../spec/request-validators.ts'
import { LATEST_VERSION } from '../../spec/versions.ts'
import { startTestMock } from '../helpers/http.ts'
import { bodyOf, fromSchema, mutated, parametersOf } from './support/fuzz.ts'

/** The release's document with one operation's JSON body schema replaced by one Ajv refuses to compile. */
function withBrokenBody(operationId: string): OpenAPIObject {
  const document = structuredClone(releaseDocument(LATEST_VERSION)) as OpenAPIObject
  const entry = listOperations(document).find((e) => e.operationId === operationId)!
  const content = (entry.operation.requestBody as { content: Record<string, { schema: unknown }> }).content
  content['application/json']!.schema = { type: 'no-such-type' }
  return document
}

afterEach(() => {
  vi.restoreAllMocks()
})

describe('request validators', () => {
  it('are compiled when the routes are added: a broken schema stops start-up naming its operation', () => {
    const app = Fastify()
    expect(() => registerOperationRoutes(app, withBrokenBody('saveItems'), HANDLERS)).toThrow(
      /operation saveItems \(POST \/ExplorerApi\/api\/items\/save\): its request schema does not compile/,
    )
    void app.close()
  })

  it('of the served document all compile, and a started mock answers with them', async () => {
    const app = Fastify()
    expect(() => registerOperationRoutes(app, releaseDocument(LATEST_VERSION), HANDLERS)).not.toThrow()
    await app.close()
    const mock = await startTestMock()
    try {
      const reply = await mock.request('POST', '/ExplorerApi/api/items/save', {
        headers: mock.dataHeaders(await mock.signIn()),
        json: { Rows: 'not an array' },
      })
      expect(reply.status).toBe(400)
      expect(reply.body.code).toBe('VALIDATION')
    } finally {
      await mock.close()
    }
  })
})

describe('precompiled request validators', () => {
  it(`${REQUEST_VALIDATORS_FILE} is what npm run spec writes now`, () => {
    const root = new URL('../../', import.meta.url).pathname
    // From spec/ itself, not the rendered documents: a change to spec/ without `npm run spec` fails here too.
    expect(readFileSync(`${root}${REQUEST_VALIDATORS_FILE}`, 'utf8')).toBe(
      requestValidatorsSource(servedViews({ api: buildDocument(), controlPlane: buildControlPlaneDocument() })),
    )
  })

  for (const view of servedViews()) {
    it(`are found for the ${view.name}: adding its routes compiles nothing`, async () => {
      // A copy: the same digest, but validators of its own, so nothing compiled earlier in this process is reused.
      const document = structuredClone(view.document)
      const compile = vi.spyOn(Ajv2020.prototype, 'compile')
      if (view.document === controlPlaneDocument()) {
        // The control routes read the shared document; their request checks are these.
        for (const entry of listOperations(document)) validatorsFor(document).requestValidator(entry, { skipBody: view.skipBody.has(entry.operationId) })
      } else {
        const app = Fastify()
        registerOperationRoutes(app, document, HANDLERS)
        await app.close()
      }
      expect(validatorsFor(document).precompiled).not.toBeNull()
      expect(compile).not.toHaveBeenCalled()
    })
  }

  it('are found for any release a mock may emulate, between and on the bounds of the ranges', () => {
    const releases = ['1.0.0', '2.9.0', '2.99.99', '3.0.0', '3.0.5', '3.0.18', '3.0.19', '3.0.20', '3.1.0', '4.0.0']
    const missing = releases.filter((version) => new DocumentValidators(structuredClone(releaseDocument(version))).precompiled === null)
    expect(missing).toEqual([])
  })

  it('are not found for a changed document, which compiles its own', () => {
    const document = structuredClone(releaseDocument(LATEST_VERSION)) as OpenAPIObject & { info: { description?: string } }
    document.info.description = `${document.info.description ?? ''} changed`
    const validators = new DocumentValidators(document)
    const compile = vi.spyOn(Ajv2020.prototype, 'compile')
    const entry = listOperations(document).find((e) => e.operationId === 'saveItems')!
    const check = validators.requestValidator(entry)({ headers: {}, query: {}, params: {}, body: { Rows: 'not an array' } })
    expect(validators.precompiled).toBeNull()
    expect(compile).toHaveBeenCalled()
    expect(check.violations.map((v) => v.pointer)).toContain('/body/Rows')
  })

  /** Requests for one operation: parameters and bodies drawn from the document's schemas and examples, most of them mutated. */
  function requestsFor(document: OpenAPIObject, entry: OperationEntry, seed: number): Array<() => RequestParts> {
    const parts: Record<string, keyof Omit<RequestParts, 'body'>> = { header: 'headers', query: 'query', path: 'params' }
    const parameters = parametersOf(document, entry).filter((p) => parts[p.in] !== undefined)
    const value = fc.oneof(
      fc.constant(undefined),
      fc.constantFrom('', 'abc', '0', '-1', '12', 'true', 'null', '00000000-0000-4000-8000-000000000001'),
      fc.string(),
    )
    const body = bodyOf(document, entry)
    const bodies =
      body === undefined ? fc.constant(undefined) : mutated(fc.oneof(fromSchema(body.schema), ...body.examples.map((example) => fc.constant(example))))
    const drawn = fc.sample(
      fc.record({ values: fc.array(value, { minLength: parameters.length, maxLength: parameters.length }), extra: fc.boolean(), body: bodies }),
      { seed, numRuns: 40 },
    )
    // A function per request: coercing validators change the objects they check, so each side gets its own copy.
    return drawn.map(({ values, extra, body: drawnBody }) => () => {
      const request: RequestParts = { headers: {}, query: extra ? { notDeclared: '1' } : {}, params: {}, body: structuredClone(drawnBody) }
      parameters.forEach((p, index) => {
        const v = values[index]
        if (v !== undefined) (request[parts[p.in]!] as Record<string, unknown>)[p.in === 'header' ? p.name.toLowerCase() : p.name] = v
      })
      return request
    })
  }

  for (const view of servedViews()) {
    it(`give the violations compiled ones give, for every operation of the ${view.name}`, () => {
      const precompiled = new DocumentValidators(structuredClone(view.document))
      const compiled = new DocumentValidators(structuredClone(view.document), { precompiled: false })
      expect(precompiled.precompiled).not.toBeNull()
      expect(compiled.precompiled).toBeNull()
      let refused = 0
      listOperations(view.document).forEach((entry, index) => {
        const options = { skipBody: view.skipBody.has(entry.operationId) }
        for (const request of requestsFor(view.document, entry, 20261126 + index)) {
          const expected = compiled.requestValidator(entry, options)(request())
          expect(precompiled.requestValidator(entry, options)(request()), `${entry.operationId}: ${JSON.stringify(request())}`).toEqual(expected)
          if (expected.violations.length > 0) refused++
        }
      })
      // The requests meet the validators' refusals, not only their acceptance.
      expect(refused).toBeGreaterThan(20)
    })
  }
})
