/**
 * components.responses: the problem+json answers for 400, 401, 403, 404, 409, 413, 414 and 503. The published description
 * defines no error status, so each one is the mock's choice and says so. Examples are written with the mock's own
 * problem catalog, so codes and titles are the ones it sends.
 */
import type { ExampleObject, ResponseObject } from 'openapi3-ts/oas31'
import { ERROR_RESPONSES, responseRef, schemaRef, type ErrorStatus, type ResponseName } from './refs.ts'
import { MOCK_DEFINED } from './extensions.ts'
import { LIMITS } from './descriptions.ts'
import { APPLICATION_ID, VIEWER_USER, WORKSPACE_ID, problemExample } from './examples.ts'

function problem(when: string, examples: Record<string, ExampleObject>): ResponseObject {
  return {
    description: `The published description defines no error statuses; this is what the mock answers ${when}`,
    [MOCK_DEFINED]: true,
    content: { 'application/problem+json': { schema: schemaRef('Problem'), examples } },
  }
}

export const responses: Record<ResponseName, ResponseObject> = {
  BadRequest: problem(
    "when the body is not well-formed, breaks the operation's schema, or a query option or `$filter` cannot be parsed, " +
      'and in strict mode when the request relies on something the published description does not promise. ' +
      'Schema violations are all listed in `violations`.',
    {
      schemaViolation: {
        summary: 'Body breaks the schema',
        value: problemExample('VALIDATION', "/body/Rows/0/Row/TIMESTAMP must be integer,null; /body/Rows/0 must have required property 'Details'", {
          violations: [
            { pointer: '/body/Rows/0/Row/TIMESTAMP', keyword: 'type', message: 'must be integer,null' },
            { pointer: '/body/Rows/0/Details', keyword: 'required', message: "must have required property 'Details'" },
          ],
        }),
      },
      unparsableFilter: {
        summary: 'Filter cannot be parsed',
        value: problemExample('BAD_FILTER', "$filter, character 8: expected an operator (eq, ne, gt, ge, lt, le) after 'Status', got 'is'"),
      },
      strictMode: {
        summary: 'Refused in strict mode',
        value: problemExample(
          'STRICT_MODE',
          "The query option '$select' changed nothing. A Get Items option the description does not list ($select, $expand, $count, ...) is ignored. " +
            "The API's description does not promise this, so strict mode refuses it (warning UNSUPPORTED_QUERY_OPTION).",
          { warning: 'UNSUPPORTED_QUERY_OPTION' },
        ),
      },
    },
  ),
  Unauthorized: problem(
    'when the session token (or bearer token) is missing, unknown or expired, or the client is unknown. ' +
      `Tokens stay valid \`expires_in\` seconds (${LIMITS.tokenSeconds} by default).`,
    { expiredToken: { summary: 'Token expired', value: problemExample('TOKEN_EXPIRED', 'The session token has expired; sign in again.') } },
  ),
  Forbidden: problem(
    "when the token is valid but the workspace is not the user's, or a user without write rights saves, deletes or runs an action that writes.",
    {
      readOnlyUser: {
        summary: 'Read-only user writes',
        value: problemExample('READ_ONLY_USER', `${VIEWER_USER} may read but not change data.`),
      },
    },
  ),
  NotFound: problem(
    'when the application, organization, Detail Relation Key, storage, Identity field, attachment, custom action, row or ' +
      'e-mail provider named in the request does not exist, or the application is not in the workspace named.',
    {
      unknownRelationKey: {
        summary: 'Unknown relation key',
        value: problemExample('UNKNOWN_RELATION_KEY', "relation key OrderLine is not one of application Orders's (OrderLines)"),
      },
      unknownApplication: {
        summary: 'Application not in the workspace',
        value: problemExample('UNKNOWN_APPLICATION', `No application ${APPLICATION_ID.replace(/1$/, '9')} in workspace ${WORKSPACE_ID}.`),
      },
    },
  ),
  PayloadTooLarge: problem(`when the request body is larger than 60 MB (${LIMITS.bodyBytes} bytes), the limit the hosting environment sets.`, {
    bodyTooLarge: {
      summary: 'Body over 60 MB',
      value: problemExample('PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${LIMITS.bodyBytes} bytes (60 MB by default).`, {
        limit: LIMITS.bodyBytes,
      }),
    },
  }),
  UriTooLong: problem(`when the URL (path and query string) is longer than ${LIMITS.urlLength} characters, the limit the hosting environment sets.`, {
    urlTooLong: {
      summary: 'URL over 2048 characters',
      value: problemExample('URI_TOO_LONG', `The URL has 2311 characters; the limit is ${LIMITS.urlLength}.`, { limit: LIMITS.urlLength }),
    },
  }),
  ServiceUnavailable: problem(
    'when a sign-in would pass the number of live sessions the mock keeps (`--max-sessions`, a million by default); ' +
      'live tokens are never ended early to make room. `POST /__mock/reset?sessions=true` ends them all.',
    {
      tooManySessions: {
        summary: 'Too many live sessions',
        value: problemExample(
          'TOO_MANY_SESSIONS',
          'The mock holds 1000000 live sessions, its limit (--max-sessions); sign in again when some have expired, or end them all with POST /__mock/reset?sessions=true.',
        ),
      },
    },
  ),
  Conflict: problem(
    'when a write or a reservation would hand out an Id, an Identity value or a row version (`TIMESTAMP`) past ' +
      `${Number.MAX_SAFE_INTEGER} (2^53 - 1), the largest integer the mock holds exactly; only a fixture whose ` +
      'sequences or values stand that high gets there. Nothing of the request is written (in the per-row save mode, ' +
      'the rows before the one refused are).',
    {
      sequenceExhausted: {
        summary: 'Sequence at its end',
        value: problemExample(
          'SEQUENCE_EXHAUSTED',
          `the next IdRow value of storage Orders would pass ${Number.MAX_SAFE_INTEGER} (2^53 - 1), the largest integer the mock holds exactly; load a fixture with lower values or reset the mock.`,
        ),
      },
    },
  ),
}

/** Entries of an operation's responses map for the given error statuses, as references. */
export function errorResponses(...statuses: ErrorStatus[]): Record<string, ReturnType<typeof responseRef>> {
  return Object.fromEntries(statuses.map((status) => [String(status), responseRef(ERROR_RESPONSES[status])]))
}
