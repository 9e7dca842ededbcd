import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import swagger from '@fastify/swagger'
import swaggerUi from '@fastify/swagger-ui'
import { stringify } from 'yaml'
import { publicBase } from '../operations/context.ts'

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
 * The document as this mock serves it: the first server (the mock's) is the origin the client
 * reached, so "Try it out" and generated clients talk to this mock, whatever its port and scheme.
 * A shallow copy; the document itself is shared and never changed.
 */
export function withOrigin(document: OpenAPIObject, origin: string): OpenAPIObject {
  const [, ...others] = document.servers ?? []
  return { ...document, servers: [{ url: origin, description: 'This appdata-kit mock.' }, ...others] }
}

/** Texts of a document per origin; a mock is reached under few names, so a handful are kept. */
function perOrigin(render: (origin: string) => string): (request: FastifyRequest) => string {
  const cache = new Map<string, string>()
  return (request) => {
    const origin = publicBase(request)
    let text = cache.get(origin)
    if (text === undefined) {
      if (cache.size >= 16) cache.delete(cache.keys().next().value as string)
      text = render(origin)
      cache.set(origin, text)
    }
    return text
  }
}

/**
 * Serves the whole document (every release, so readers see the older forms too) at
 * `/openapi.json` and `/openapi.yaml`, and a documentation page at `/docs`. With the control
 * plane on, the page offers its document as a second definition.
 */
export async function registerDocs(app: FastifyInstance, document: OpenAPIObject, controlDocument?: OpenAPIObject): Promise<void> {
  const json = perOrigin((origin) => JSON.stringify(withOrigin(document, origin)))
  const yaml = perOrigin((origin) => stringify(withOrigin(document, origin), { aliasDuplicateObjects: false }))
  app.get('/openapi.json', async (request, reply) => reply.type('application/json; charset=utf-8').send(json(request)))
  app.get('/openapi.yaml', async (request, reply) => reply.type('application/yaml; charset=utf-8').send(yaml(request)))
  await app.register(swagger, { mode: 'static', specification: { document: forPage(document) as never } })
  const definitions = controlDocument === undefined ? {} : controlPlaneDefinition(app, document.info.title, controlDocument)
  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, defaultModelsExpandDepth: 1, displayOperationId: true, ...definitions },
    transformSpecificationClone: false,
    transformSpecification: (specification, request) => withOrigin(specification as OpenAPIObject, publicBase(request)) as never,
  })
}

/** The page's definition selector: the API first, the control plane second. */
function controlPlaneDefinition(app: FastifyInstance, main: string, controlDocument: OpenAPIObject): Record<string, unknown> {
  const text = perOrigin((origin) => JSON.stringify(withOrigin(forPage(controlDocument), origin)))
  app.get('/docs/control-plane.json', async (request, reply) => reply.type('application/json; charset=utf-8').send(text(request)))
  return {
    urls: [
      { url: '/docs/json', name: main },
      { url: '/docs/control-plane.json', name: String(controlDocument.info.title) },
    ],
    'urls.primaryName': main,
  }
}
