import type { FastifyInstance } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { stringify } from 'yaml'

/**
 * Serves the whole document (every release, so readers see the older forms too) at
 * `/openapi.json` and `/openapi.yaml`, and a documentation page at `/docs`.
 */
export async function registerDocs(app: FastifyInstance, document: OpenAPIObject): Promise<void> {
  const json = JSON.stringify(document)
  const yaml = stringify(document, { aliasDuplicateObjects: false })
  app.get('/openapi.json', { logLevel: 'warn' }, async (_request, reply) => reply.type('application/json; charset=utf-8').send(json))
  app.get('/openapi.yaml', { logLevel: 'warn' }, async (_request, reply) => reply.type('application/yaml; charset=utf-8').send(yaml))
  // The page's renderer warns about any dialect but its own default; its view drops the field,
  // while /openapi.json and /openapi.yaml keep it for tools that read schemas as 2020-12.
  const { jsonSchemaDialect: _dialect, ...forPage } = document as OpenAPIObject & { jsonSchemaDialect?: string }
  await app.register(swagger, { mode: 'static', specification: { document: forPage as never } })
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, defaultModelsExpandDepth: 1, displayOperationId: true },
  })
}
