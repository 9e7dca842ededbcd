/**
 * The hand-written OpenAPI 3.1 document of the Application Data Web API: the single source the mock,
 * the contract suite and the generated spec/openapi.{json,yaml} are built from.
 */
import { OpenApiBuilder, type OpenAPIObject } from 'openapi3-ts/oas31'
import { LATEST_VERSION } from './versions.ts'
import { INFO_DESCRIPTION } from './descriptions.ts'
import { schemas } from './schemas.ts'
import { parameters } from './parameters.ts'
import { responses } from './responses.ts'
import { operations } from './paths/index.ts'
import { MOCK_ORIGIN } from './examples.ts'

export { MOCK_DEFINED, PRODUCT_VERSIONS } from './extensions.ts'

const TAGS = [
  { name: 'Sign-in', description: 'Getting a session token.' },
  { name: 'Items', description: 'Reading, counting, saving and deleting master and detail rows.' },
  { name: 'Attachments', description: 'Files and folders attached to rows.' },
  { name: 'Actions', description: 'Custom actions defined for an application.' },
  { name: 'E-mail', description: 'Queuing e-mails.' },
  { name: 'Metadata', description: 'Row links and identity values.' },
]

/** Builds the document. Pure and deterministic: each call returns a fresh object the caller may change. */
export function buildDocument(): OpenAPIObject {
  // openapi3-ts's type lacks 3.1's jsonSchemaDialect, so the root is typed with it added.
  // The empty members fix the order of the top-level keys in the generated files.
  const root: OpenAPIObject & { jsonSchemaDialect: string } = {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Application Data Web API',
      description: INFO_DESCRIPTION,
      version: LATEST_VERSION,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [],
    tags: [],
    paths: {},
    components: { schemas: {}, parameters: {}, responses: {}, securitySchemes: {} },
  }
  const builder = OpenApiBuilder.create(root)
  // The mock serves this document with its own origin as the first server, so "Try it out" works on any port.
  builder.addServer({ url: MOCK_ORIGIN, description: 'The appdata-kit mock (its default address; a running mock names its own).' })
  builder.addServer({
    url: 'https://{host}',
    description: 'An installation of the product. All calls use HTTPS.',
    variables: { host: { default: 'appdata.acme.test', description: 'Host name of the installation, with its port and any path prefix.' } },
  })
  for (const tag of TAGS) builder.addTag(tag)
  for (const { path, method, operation } of operations) builder.addPath(path, { [method]: operation })
  for (const [name, schema] of Object.entries(schemas)) builder.addSchema(name, schema)
  for (const [name, parameter] of Object.entries(parameters)) builder.addParameter(name, parameter)
  for (const [name, response] of Object.entries(responses)) builder.addResponse(name, response)
  builder
    .addSecurityScheme('SessionToken', {
      type: 'apiKey',
      in: 'header',
      name: 'SessionToken',
      description: 'The token sign-in returned, in the `SessionToken` header. Used by every data operation.',
    })
    .addSecurityScheme('BearerAuth', {
      type: 'http',
      scheme: 'bearer',
      description: 'The same token as a bearer token in `Authorization`. Used by the e-mail operation.',
    })
  // Structured copy so no caller can reach (and change) the module-level objects the document is made of.
  return structuredClone(builder.getSpec())
}
