/** Building blocks shared by the operation modules: header sets, security requirements, JSON bodies, the sign-in form. */
import type {
  ExampleObject,
  MediaTypeObject,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
  SecurityRequirementObject,
} from 'openapi3-ts/oas31'
import { parameterRef, schemaRef } from '../refs.ts'
import { ADMIN_PASSWORD, ADMIN_USER, CLIENT_ID, SCOPE, countResult, detailRows, masterRows, tokenResult } from '../examples.ts'
import { RANGES } from '../versions.ts'
import { MEDIA_TYPE_MARK, MOCK_DEFINED, PRODUCT_VERSIONS, REQUEST_EXAMPLE, STRICT_OVERLAY } from '../extensions.ts'

/** What every module under spec/paths exports. */
export interface OperationModule {
  path: string
  method: 'get' | 'post'
  operation: OperationObject
}

/** Headers every data operation takes. */
export const DATA_HEADERS: (ParameterObject | ReferenceObject)[] = [
  parameterRef('ApplicationId'),
  parameterRef('SessionToken'),
  parameterRef('WorkspaceId'),
]

/** Security of data operations: the session token header. */
export const SESSION_SECURITY: SecurityRequirementObject[] = [{ SessionToken: [] }]

/** Security of the e-mail operation: the same token as a bearer token. */
export const BEARER_SECURITY: SecurityRequirementObject[] = [{ BearerAuth: [] }]

/** A media type object with its schema and named examples. */
export function media(schema: SchemaObject | ReferenceObject, examples: Record<string, ExampleObject>): MediaTypeObject {
  return { schema, examples }
}

/** A required JSON request body. */
export function jsonBody(description: string, schema: SchemaObject | ReferenceObject, examples: Record<string, ExampleObject>): RequestBodyObject {
  return { description, required: true, content: { 'application/json': media(schema, examples) } }
}

/** A JSON response. */
export function jsonResponse(description: string, schema: SchemaObject | ReferenceObject, examples: Record<string, ExampleObject>): ResponseObject {
  return { description, content: { 'application/json': media(schema, examples) } }
}

/**
 * A JSON response whose media type the mock chose where the description shows another label
 * (Run Action, "labels the response media type as XML although the body is JSON"): held to the
 * description, any label is taken, the body still held to the schema.
 */
export function labelChosenByMock(response: ResponseObject): ResponseObject {
  const content = Object.fromEntries(Object.entries(response.content ?? {}).map(([type, media]) => [type, { ...media, [MOCK_DEFINED]: MEDIA_TYPE_MARK }]))
  return { ...response, content }
}

/** The password-grant form both current sign-in paths take. */
export const passwordGrantForm: RequestBodyObject = {
  description: 'Password grant, as an HTML form.',
  required: true,
  content: {
    'application/x-www-form-urlencoded': {
      schema: {
        type: 'object',
        title: 'Password grant',
        description:
          'The five fields of the password grant. As OAuth 2.0 servers do (RFC 6749, section 3.2), the mock ignores fields it ' +
          'does not know, and takes `client_id` from HTTP Basic client authentication (`Authorization: Basic`, section 2.3.1) ' +
          'when the form leaves it out; both raise a warning, since the published description shows neither.',
        required: ['client_id', 'username', 'password', 'grant_type', 'scope'],
        // Strict mode refuses other fields (SIGN_IN_EXTRA_PARAMETER). Said with propertyNames, not additionalProperties: the
        // sign-in handler reports unknown fields itself, so the mock's request check must not report them a second time.
        [STRICT_OVERLAY]: { propertyNames: { enum: ['client_id', 'username', 'password', 'grant_type', 'scope'] } },
        properties: {
          // Property examples are what the documentation page's "Try it out" fills the form with.
          client_id: { type: 'string', minLength: 1, description: 'The client constant of the installation\'s API.', examples: [CLIENT_ID] },
          username: { type: 'string', minLength: 1, description: 'The user\'s e-mail address.', examples: [ADMIN_USER] },
          password: { type: 'string', minLength: 1, examples: [ADMIN_PASSWORD] },
          grant_type: { type: 'string', const: 'password' },
          scope: {
            type: 'string',
            // Any of the three scopes the description sends, in any order, each at most as often as the mock reads it: one or more.
            pattern: '^\\s*(?:(?:openid|apiv1|nosession)(?:\\s+(?:openid|apiv1|nosession))*)?\\s*$',
            [MOCK_DEFINED]: 'pattern',
            description: 'Space-separated scopes: `openid apiv1 nosession` as the description sends them; the mock grants these three and refuses any other.',
            examples: [SCOPE],
          },
        },
        additionalProperties: { type: 'string', [MOCK_DEFINED]: 'other fields are ignored with a warning' },
      },
      examples: {
        admin: {
          summary: 'Full-access user',
          value: { client_id: CLIENT_ID, username: ADMIN_USER, password: ADMIN_PASSWORD, grant_type: 'password', scope: SCOPE },
        },
      },
    },
  },
}

/** The 200 answer of both current sign-in paths. */
export const tokenResponse: ResponseObject = jsonResponse('Signed in.', schemaRef('TokenResult'), {
  session: { summary: 'A one-hour session', value: tokenResult, [REQUEST_EXAMPLE]: 'admin' },
})

/** The 200 answer of both forms of the items query: rows, or a count for `$inlinecount=allpages`. */
export function rowsOrCountResponse(withDetailRows: boolean): ResponseObject {
  return jsonResponse(
    'The matching rows, or their number when the query asked for a count.',
    { oneOf: [schemaRef('RowList'), schemaRef('CountResult')] },
    {
      masterRows: { summary: 'The first two master rows', value: masterRows, [REQUEST_EXAMPLE]: 'firstPage' },
      ...(withDetailRows
        ? { detailRows: { summary: 'Detail rows of master row 1', value: detailRows, [REQUEST_EXAMPLE]: 'detailQuery', [PRODUCT_VERSIONS]: RANGES.current } }
        : {}),
      count: { summary: 'How many orders are open', value: countResult, [REQUEST_EXAMPLE]: 'countQuery' },
    },
  )
}
