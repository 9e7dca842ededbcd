import type { FastifyInstance } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { stringify } from 'yaml'

type Dialected = OpenAPIObject & { jsonSchemaDialect?: string }

/**
 * The page's renderer warns about any dialect but its own default, so its view drops the field;
 * /openapi.json and /openapi.yaml keep it for tools that read schemas as 2020-12.
 */
function forPage(document: OpenAPIObject): OpenAPIObject {
  const { jsonSchemaDialect: _dialect, ...rest } = document as Dialected
  return rest
}

/**
 * Serves the whole document (every release, so readers see the older forms too) at
 * `/openapi.json` and `/openapi.yaml`, and a documentation page at `/docs`. With the control
 * plane on, the page offers its document as a second definition.
 */
export async function registerDocs(app: FastifyInstance, document: OpenAPIObject, controlDocument?: OpenAPIObject): Promise<void> {
  const json = JSON.stringify(document)
  const yaml = stringify(document, { aliasDuplicateObjects: false })
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(json))
  app.get('/openapi.yaml', async (_request, reply) => reply.type('application/yaml; charset=utf-8').send(yaml))
  await app.register(swagger, { mode: 'static', specification: { document: forPage(document) as never } })
  const definitions = controlDocument === undefined ? {} : controlPlaneDefinition(app, document.info.title, controlDocument)
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, defaultModelsExpandDepth: 1, displayOperationId: true, ...definitions },
  })
}

/** The page's definition selector: the API first, the control plane second. */
function controlPlaneDefinition(app: FastifyInstance, main: string, controlDocument: OpenAPIObject): Record<string, unknown> {
  const text = JSON.stringify(forPage(controlDocument))
  app.get('/docs/control-plane.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(text))
  return {
    urls: [
      { url: '/docs/json', name: main },
      { url: '/docs/control-plane.json', name: String(controlDocument.info.title) },
    ],
    'urls.primaryName': main,
  }
}
