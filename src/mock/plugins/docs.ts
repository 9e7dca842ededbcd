import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { publicBase } from '../../http/context.ts'

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
function perOrigin(render: (origin: string) => string | Promise<string>): (request: FastifyRequest) => Promise<string> {
  const cache = new Map<string, string>()
  return async (request) => {
    const origin = publicBase(request)
    let text = cache.get(origin)
    if (text === undefined) {
      if (cache.size >= 16) cache.delete(cache.keys().next().value as string)
      text = await render(origin)
      cache.set(origin, text)
    }
    return text
  }
}

/** The YAML writer, loaded at the first YAML request: most mocks never serve one. */
async function yamlText(document: OpenAPIObject): Promise<string> {
  const { stringify } = await import('yaml')
  return stringify(document, { aliasDuplicateObjects: false })
}

/**
 * Serves the document of the mock's own mode and release (src/document/modes.ts) at `/openapi.json`
 * and `/openapi.yaml`, and a documentation page at `/docs`, so what a client reads is what this mock
 * does. With the control plane on, the page offers its document as a second definition. `document`
 * is asked for at the first request that reads it: building a release's view is a good part of a
 * first start, and most runs never read it.
 */
export async function registerDocs(app: FastifyInstance, document: () => OpenAPIObject, controlDocument?: OpenAPIObject): Promise<void> {
  const json = perOrigin((origin) => JSON.stringify(withOrigin(document(), origin)))
  const yaml = perOrigin((origin) => yamlText(withOrigin(document(), origin)))
  app.get('/openapi.json', async (request, reply) => reply.type('application/json; charset=utf-8').send(await json(request)))
  app.get('/openapi.yaml', async (request, reply) => reply.type('application/yaml; charset=utf-8').send(await yaml(request)))
  const definitions = controlDocument === undefined ? () => ({}) : controlPlaneDefinition(app, controlDocument)
  // The page (Swagger UI and its assets) is made at its first request, in an app of its own that
  // this one forwards /docs to: its plugins are a good part of a start, and most runs never open it.
  let page: Promise<FastifyInstance> | undefined
  const forward = async (request: FastifyRequest, reply: FastifyReply) => {
    page ??= documentationPage(document(), definitions(document().info.title))
    const answer = await (await page).inject({
      method: request.method as 'GET',
      url: request.url,
      headers: { ...request.headers, [ORIGIN_HEADER]: publicBase(request) },
    })
    for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name) && value !== undefined) reply.header(name, value)
    return reply.code(answer.statusCode).send(answer.rawPayload)
  }
  app.get('/docs', forward)
  app.get('/docs/*', forward)
}

/** The origin the page's "Try it out" must call, as the mock saw it, for the page's own app. */
const ORIGIN_HEADER = 'x-appdata-kit-docs-origin'
/** Headers of the page's answers the mock's own reply sets for itself. */
const HOP_BY_HOP = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date'])

/** Swagger UI over the document, in an app that is never listened on (the mock forwards to it). */
async function documentationPage(document: OpenAPIObject, definitions: Record<string, unknown>): Promise<FastifyInstance> {
  const [{ default: Fastify }, { default: swagger }, { default: swaggerUi }] = await Promise.all([
    import('fastify'),
    import('@fastify/swagger'),
    import('@fastify/swagger-ui'),
  ])
  const docs = Fastify({ logger: false })
  await docs.register(swagger, { mode: 'static', specification: { document: forPage(document) as never } })
  await docs.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { docExpansion: 'list', deepLinking: true, defaultModelsExpandDepth: 1, displayOperationId: true, ...definitions },
    transformSpecificationClone: false,
    transformSpecification: (specification, request) => withOrigin(specification as OpenAPIObject, String(request.headers[ORIGIN_HEADER])) as never,
  })
  await docs.ready()
  return docs
}

/** Serves the control plane's document for the page; the page's definition selector (the API, titled `main`, first; the control plane second). */
function controlPlaneDefinition(app: FastifyInstance, controlDocument: OpenAPIObject): (main: string) => Record<string, unknown> {
  const text = perOrigin((origin) => JSON.stringify(withOrigin(forPage(controlDocument), origin)))
  app.get('/docs/control-plane.json', async (request, reply) => reply.type('application/json; charset=utf-8').send(await text(request)))
  return (main) => ({
    urls: [
      { url: '/docs/json', name: main },
      { url: '/docs/control-plane.json', name: String(controlDocument.info.title) },
    ],
    'urls.primaryName': main,
  })
}
