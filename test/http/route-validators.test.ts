/**
 * Request validators are compiled when the routes are added, not at an operation's first request:
 * a schema Ajv cannot compile stops start-up, naming the operation (src/http/request-check.ts).
 */
import Fastify from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { describe, expect, it } from 'vitest'
import { listOperations, releaseDocument } from '../../src/document/reader.ts'
import { registerOperationRoutes } from '../../src/http/routes.ts'
import { HANDLERS } from '../../src/operations/index.ts'
import { LATEST_VERSION } from '../../spec/versions.ts'
import { startTestMock } from '../helpers/http.ts'

/** The release's document with one operation's JSON body schema replaced by one Ajv refuses to compile. */
function withBrokenBody(operationId: string): OpenAPIObject {
  const document = structuredClone(releaseDocument(LATEST_VERSION)) as OpenAPIObject
  const entry = listOperations(document).find((e) => e.operationId === operationId)!
  const content = (entry.operation.requestBody as { content: Record<string, { schema: unknown }> }).content
  content['application/json']!.schema = { type: 'no-such-type' }
  return document
}

describe('request validators', () => {
  it('are compiled when the routes are added: a broken schema stops start-up naming its operation', () => {
    const app = Fastify()
    expect(() => registerOperationRoutes(app, withBrokenBody('saveItems'), HANDLERS)).toThrow(/operation saveItems \(POST \/ExplorerApi\/api\/items\/save\): its request schema does not compile/)
    void app.close()
  })

  it('of the served document all compile, and a started mock answers with them', async () => {
    const app = Fastify()
    expect(() => registerOperationRoutes(app, releaseDocument(LATEST_VERSION), HANDLERS)).not.toThrow()
    await app.close()
    const mock = await startTestMock()
    try {
      const reply = await mock.request('POST', '/ExplorerApi/api/items/save', { headers: mock.dataHeaders(await mock.signIn()), json: { Rows: 'not an array' } })
      expect(reply.status).toBe(400)
      expect(reply.body.code).toBe('VALIDATION')
    } finally {
      await mock.close()
    }
  })
})
