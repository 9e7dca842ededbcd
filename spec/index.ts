/**
 * The hand-written OpenAPI 3.1 document of the Application Data Web API: the single source the mock,
 * the contract suite and the generated spec/openapi.{json,yaml} are built from.
 */
import { OpenApiBuilder, type OpenAPIObject, type ReferenceObject, type ResponseObject } from 'openapi3-ts/oas31'
import { MOCK_DEFINED, STRICT_OVERLAY } from './extensions.ts'
import { LATEST_VERSION } from './versions.ts'
import { INFO_DESCRIPTION } from './descriptions.ts'
import { schemas } from './schemas.ts'
import { parameters } from './parameters.ts'
import { responses } from './responses.ts'
import { operations } from './paths/index.ts'
import { MOCK_ORIGIN } from './examples.ts'

export { MOCK_DEFINED, PRODUCT_VERSIONS } from './extensions.ts'

/** The response header that lists the warnings of a request (the mock's own). */
const WARNINGS_HEADER_NAME = 'X-Mock-Warnings'

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
  const document = structuredClone(builder.getSpec())
  declareWarningsHeader(document)
  openRequestMembers(document)
  // Structured copy so no caller can reach (and change) the module-level objects the document is made of.
  return document
}

/**
 * Every answer of the mock may carry `X-Mock-Warnings`: declared once as a header component and
 * referenced from each response, so readers and generated clients know it.
 */
function declareWarningsHeader(document: OpenAPIObject): void {
  const components = (document.components ??= {})
  components.headers = {
    [WARNINGS_HEADER_NAME]: {
      description:
        'The codes of the warnings the request raised, comma-separated: what it relied on that the published description does not ' +
        'promise (docs/behaviour.md lists the codes). Sent by the mock only; a real installation does not.',
      [MOCK_DEFINED]: true,
      schema: { type: 'string', pattern: '^[A-Z][A-Z_]*(, [A-Z][A-Z_]*)*$' },
      example: 'UNSUPPORTED_QUERY_OPTION',
    },
  }
  const header = { $ref: `#/components/headers/${WARNINGS_HEADER_NAME}` }
  const responses = [
    ...Object.values(document.paths ?? {}).flatMap((item) =>
      Object.values(item as Record<string, { responses?: Record<string, ResponseObject> }>).flatMap((op) => Object.values(op.responses ?? {})),
    ),
    ...Object.values(components.responses ?? {}),
  ] as Array<ResponseObject | ReferenceObject>
  for (const response of responses) {
    if ('$ref' in response) continue
    response.headers = { ...response.headers, [WARNINGS_HEADER_NAME]: header }
  }
}

type Node = Record<string, unknown>
const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value)

/** Calls `visit` on every object below `node`, and collects the component schemas it references. */
function visitAll(node: unknown, visit: (value: Node) => void, refs: Set<string>): void {
  if (Array.isArray(node)) node.forEach((item) => visitAll(item, visit, refs))
  else if (isNode(node)) {
    if (typeof node.$ref === 'string' && node.$ref.startsWith('#/components/schemas/')) refs.add(node.$ref.slice('#/components/schemas/'.length))
    visit(node)
    // An overlay holds the strict mode's keywords, not a schema of the lenient document.
    for (const [key, value] of Object.entries(node)) if (key !== STRICT_OVERLAY) visitAll(value, visit, refs)
  }
}

/**
 * The published document is the default (lenient) mode's, and the lenient mock accepts body members
 * no schema names (with the warning UNKNOWN_MEMBER): so in the request schemas, written closed in
 * spec/schemas, `additionalProperties: false` moves into the strict overlay (`x-mock-strict`), which
 * strict mode applies. Answers keep theirs: the mock never sends a member its schema does not name.
 */
function openRequestMembers(document: OpenAPIObject): void {
  const open = (node: Node) => {
    if (node.additionalProperties !== false) return
    delete node.additionalProperties
    node[STRICT_OVERLAY] = { ...(isNode(node[STRICT_OVERLAY]) ? node[STRICT_OVERLAY] : {}), additionalProperties: false }
  }
  const seen = new Set<string>()
  let pending = new Set<string>()
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of Object.values(item as Node)) {
      if (!isNode(operation)) continue
      visitAll(operation.requestBody, open, pending)
      visitAll(operation.parameters, open, pending)
    }
  }
  const schemas = (document.components?.schemas ?? {}) as Record<string, unknown>
  while (pending.size > 0) {
    const next = new Set<string>()
    for (const name of pending) {
      if (seen.has(name)) continue
      seen.add(name)
      visitAll(schemas[name], open, next)
    }
    pending = next
  }
}
