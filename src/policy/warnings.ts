/**
 * The catalog of warnings: requests the API's description neither shows nor rules out, which the
 * mock accepts (a real installation most plausibly does) and reports, so a team learns that its
 * client relies on something the description does not promise. In strict mode (`--strict`,
 * `MOCK_STRICT=1`, or the `X-Mock-Strict` header) each one is refused instead, with a 400
 * `STRICT_MODE` problem naming the rule, except the informational ones (INFORMATIONAL_WARNINGS),
 * which only report. docs/behaviour.md lists every code next to the problem catalog.
 */
export const WARNINGS = {
  UNKNOWN_MEMBER: 'A body member the operation does not name is ignored.',
  UNKNOWN_PARAMETER: 'A URL query parameter the operation does not declare is ignored.',
  EMPTY_DELETE_GROUP: 'A delete group with no rows deletes nothing.',
  UNSUPPORTED_QUERY_OPTION: 'A Get Items option the description does not list ($select, $expand, $count, ...) is ignored.',
  EMPTY_RELATION_KEY: 'An empty relationKey reads as absent: master rows.',
  QUOTED_AMPERSAND:
    "A raw & inside a quoted value of the query text (Customer eq 'Smith & Sons') is read as part of the value; the description's query text is &-separated, so send it as %26.",
  SIGN_IN_EXTRA_PARAMETER: 'A sign-in form field other than client_id, username, password, grant_type and scope is ignored.',
  SIGN_IN_JSON_BODY: 'A sign-in sent as JSON is read field by field; the description sends it as a form (application/x-www-form-urlencoded).',
  CLIENT_ID_BY_BASIC_AUTH: 'client_id sent by HTTP Basic authentication (OAuth 2.0 client authentication) instead of in the form.',
  LEGACY_DELETE_BODY: 'The older delete body ([{Rows: [{Row, Details}]}]) sent to a release from 3.0.',
  CURRENT_DELETE_BODY: 'The current delete body ([{RelationKey, Rows}]) sent to a release below 3.0.',
  DELETE_GROUP_WITHOUT_RELATION_KEY: 'A delete group without RelationKey deletes master rows, as RelationKey null does.',
  EMPTY_DETAIL_GROUP: 'A save detail group with no rows saves nothing.',
  PROCEDURE_NAME_MISMATCH: "ProcedureName is not the action's stored procedure; the action named by actionId runs.",
  UNKNOWN_ACTION_PARAMETER: 'A parametersMap entry other than ProcedureName and Parameters is ignored.',
  NULL_PARAMETER_VALUE: 'A Parameters entry whose value is null reaches the procedure as empty text.',
  NULL_OPTIONAL_MEMBER: 'null sent for an optional member (rk, providerId) reads as the member left out.',
  ROW_LINK_WITHOUT_RELATION_KEY: 'Generate Row Link without relationKey reads as relationKey null.',
  VALUE_FORM_CONVERTED:
    "A saved value in another form than its field type's (ISO 8601 text into a date type, true/false into a Boolean, digits in quotes into a number) is converted to the type's form.",
  OFF_DOCUMENT_ANSWER:
    'A fault or answer rule added with "offDocument": true gave an answer the served document cannot give (a status, media type, body or patch member outside it).',
  INFRASTRUCTURE_ANSWER:
    'A fault or answer rule gave a gateway status (500, 502, 503, 504): an answer of the infrastructure in front of an installation, which any operation may get though its document need not list it. Informational: strict mode does not refuse it.',
} as const satisfies Record<string, string>

export type WarningCode = keyof typeof WARNINGS

/**
 * Warnings that only inform: what the test itself asked for (a 503 from a fault), not something a
 * client relies on. Strict mode records them like the others and refuses none of them.
 */
export const INFORMATIONAL_WARNINGS = ['INFRASTRUCTURE_ANSWER'] as const satisfies readonly WarningCode[]

/** A warning that only informs (`noteWarning`), never refused. */
export type InformationalWarning = (typeof INFORMATIONAL_WARNINGS)[number]

/** A warning strict mode refuses (`warnOrRefuse`). */
export type RefusableWarning = Exclude<WarningCode, InformationalWarning>

/** One warning raised while a request was handled. */
export interface MockWarning {
  code: WarningCode
  /** What the request did, in its own terms (which option, which field). */
  message: string
}

/** Name of the request header that turns strict mode on or off for one request. */
export const STRICT_HEADER = 'x-mock-strict'

/** Name of the response header that lists the codes of the warnings a request raised. */
export const WARNINGS_HEADER = 'x-mock-warnings'

/**
 * Reads the per-request switch: `1`, `true`, `on`, `yes` turn strict mode on, `0`, `false`,
 * `off`, `no` off; anything else (or no header) leaves the mock's own setting.
 */
export function strictFromHeader(value: string | string[] | undefined, fallback: boolean): boolean {
  const text = (Array.isArray(value) ? value[0] : value)?.trim().toLowerCase()
  if (text === undefined || text === '') return fallback
  if (['1', 'true', 'on', 'yes'].includes(text)) return true
  if (['0', 'false', 'off', 'no'].includes(text)) return false
  return fallback
}
