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
export const DATA_HEADERS: (ParameterObject | ReferenceObject)[] = [parameterRef('ApplicationId'), parameterRef('SessionToken'), parameterRef('WorkspaceId')]

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

/** The password grant as the description sends it: an HTML form. */
const passwordGrantMedia: MediaTypeObject = {
  schema: schemaRef('PasswordGrant'),
  examples: {
    admin: {
      summary: 'Full-access user',
      value: { client_id: CLIENT_ID, username: ADMIN_USER, password: ADMIN_PASSWORD, grant_type: 'password', scope: SCOPE },
    },
  },
}

/**
 * The password-grant form both current sign-in paths take. The lenient mock also reads the same
 * fields sent as JSON (warning SIGN_IN_JSON_BODY), so its document lists `application/json` too;
 * strict mode refuses JSON, so its overlay leaves the form alone.
 */
export const passwordGrantForm: RequestBodyObject = {
  description:
    'Password grant, as an HTML form (`application/x-www-form-urlencoded`), as the description sends it. The mock also reads the ' +
    'same fields sent as JSON, with the warning SIGN_IN_JSON_BODY; strict mode refuses JSON.',
  required: true,
  content: {
    'application/x-www-form-urlencoded': passwordGrantMedia,
    'application/json': { ...passwordGrantMedia, [MOCK_DEFINED]: 'read with the warning SIGN_IN_JSON_BODY' },
  },
  [STRICT_OVERLAY]: {
    description: 'Password grant, as an HTML form (`application/x-www-form-urlencoded`), as the description sends it. JSON is refused.',
    content: { 'application/x-www-form-urlencoded': passwordGrantMedia },
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
