/**
 * components.responses: the problem+json answers for 400, 401, 403, 404, 413 and 414. The published description defines
 * no error status, so each one is the mock's choice and says so.
 */
import type { ExampleObject, ResponseObject } from 'openapi3-ts/oas31'
import { ERROR_RESPONSES, responseRef, schemaRef, type ErrorStatus, type ResponseName } from './refs.ts'
import { MOCK_DEFINED } from './extensions.ts'
import { LIMITS } from './descriptions.ts'

function problem(when: string, examples: Record<string, ExampleObject>): ResponseObject {
  return {
    description: `The published description defines no error statuses; this is what the mock answers ${when}`,
    [MOCK_DEFINED]: true,
    content: { 'application/problem+json': { schema: schemaRef('Problem'), examples } },
  }
}

export const responses: Record<ResponseName, ResponseObject> = {
  BadRequest: problem(
    'when the body is not well-formed, breaks the operation\'s schema, or a query option or `$filter` cannot be parsed. ' +
      'Schema violations are all listed in `violations`.',
    {
      schemaViolation: {
        summary: 'Body breaks the schema',
        value: {
          title: 'Request does not match the schema',
          status: 400,
          detail: 'The request body has 2 problems.',
          violations: [
            { pointer: '/Rows/0/Row/TIMESTAMP', keyword: 'type', message: 'must be integer,null' },
            { pointer: '/Rows/0', keyword: 'required', message: "must have required property 'Details'" },
          ],
        },
      },
      unparsableFilter: {
        summary: 'Filter cannot be parsed',
        value: { title: 'Invalid query', status: 400, detail: "$filter: expected an operator after 'Status' at position 7." },
      },
    },
  ),
  Unauthorized: problem(
    'when the session token (or bearer token) is missing, unknown or expired, or sign-in credentials are wrong. ' +
      `Tokens stay valid \`expires_in\` seconds (${LIMITS.tokenSeconds} by default).`,
    { expiredToken: { summary: 'Token expired', value: { title: 'Session token expired', status: 401, detail: 'The session token expired; sign in again.' } } },
  ),
  Forbidden: problem(
    'when the token is valid but the workspace is not the user\'s, or a user without write rights saves or deletes.',
    {
      readOnlyUser: {
        summary: 'Read-only user writes',
        value: { title: 'Not allowed', status: 403, detail: 'User viewer@acme.test may not change rows of this application.' },
      },
    },
  ),
  NotFound: problem(
    'when the application, organization, Detail Relation Key, storage, Identity field, attachment, custom action or ' +
      'e-mail provider named in the request does not exist.',
    {
      unknownRelationKey: {
        summary: 'Unknown relation key',
        value: { title: 'Not found', status: 404, detail: "Application a1b2c3d4-0000-4000-8000-000000000001 has no relation key 'OrderLine'." },
      },
    },
  ),
  PayloadTooLarge: problem(
    `when the request body is larger than 60 MB (${LIMITS.bodyBytes} bytes), the limit the hosting environment sets.`,
    {
      bodyTooLarge: {
        summary: 'Body over 60 MB',
        value: { title: 'Request body too large', status: 413, detail: `The request body exceeds ${LIMITS.bodyBytes} bytes.` },
      },
    },
  ),
  UriTooLong: problem(
    `when the URL (path and query string) is longer than ${LIMITS.urlLength} characters, the limit the hosting environment sets.`,
    {
      urlTooLong: {
        summary: 'URL over 2048 characters',
        value: { title: 'URL too long', status: 414, detail: `The URL has 2311 characters; at most ${LIMITS.urlLength} are accepted.` },
      },
    },
  ),
}

/** Entries of an operation's responses map for the given error statuses, as references. */
export function errorResponses(...statuses: ErrorStatus[]): Record<string, ReturnType<typeof responseRef>> {
  return Object.fromEntries(statuses.map((status) => [String(status), responseRef(ERROR_RESPONSES[status])]))
}
