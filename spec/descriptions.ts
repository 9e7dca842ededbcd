/**
 * Long Markdown texts of the document: the overview in `info.description` and the query language
 * shared by the POST and GET forms of the items query. Kept apart so path modules stay short.
 */

/** Limits as the mock applies them; the 413/414 responses and TokenResult quote the same numbers. */
export const LIMITS = {
  urlLength: 2048,
  bodyBytes: 60 * 1024 * 1024,
  /** A JSON body's nesting and the members of one of its objects: the mock's choice (no body the API describes comes near either). */
  bodyDepth: 64,
  bodyMembers: 1000,
  tokenSeconds: 3600,
} as const

/** Identity values one reservation may ask for at most (the description sets no bound; the mock's choice). */
export const MAX_IDENTITY_COUNT = 10_000

export const LIMITS_TABLE = [
  '| Limit | Value | When exceeded |',
  '|---|---|---|',
  `| URL length (path and query string) | ${LIMITS.urlLength} characters | 414 URI Too Long |`,
  `| Request body | 60 MB (62,914,560 bytes) | 413 Content Too Large |`,
  `| JSON request body: nesting (the mock's choice) | ${LIMITS.bodyDepth} levels of objects and arrays | 400 Bad Request (\`BAD_JSON\`), before the body is parsed |`,
  `| JSON request body: members of one object (the mock's choice) | ${LIMITS.bodyMembers.toLocaleString('en-US')} | 400 Bad Request (\`BAD_JSON\`), before the body is parsed |`,
  `| Session token lifetime | \`expires_in\` seconds from sign-in, ${LIMITS.tokenSeconds} by default (mock flag \`--token-ttl\`) | 401 Unauthorized |`,
].join('\n')

export const INFO_DESCRIPTION = `Reads and writes the data of business applications hosted in an installation: master rows and the detail rows that hang off them, their attachments, custom actions, queued e-mails, links that open a row, and reserved identity values. A client signs in once and sends the token it receives with every later call.

This document describes the service more strictly than the API's published description. Wherever it fills a gap in that description with a choice the mock makes, the place is marked with \`x-mock-defined\`.

## Identifiers

| Identifier | Where it travels |
|---|---|
| Organization physical name | sign-in path (releases from 3.0.19) |
| Workspace Id (a GUID; before 3.0 it was the Domain Id) | \`WorkspaceId\` header |
| Application Id (a GUID) | \`ApplicationId\` header |
| Detail Relation Key | \`relationKey\` in queries, \`RelationKey\` in save and delete bodies, \`rk\` in attachment downloads |
| Storage Id (a GUID) and Identity field name | identity reservation path |

## Authentication

Sign-in returns a session token (\`access_token\`, or \`SessionToken\` in the legacy form). Data operations send it in the \`SessionToken\` header together with \`WorkspaceId\` and \`ApplicationId\`; the e-mail operation sends it as a bearer token in \`Authorization\`. What a response contains depends on the signed-in user's rights: fields a user may not see are left out of rows, and a user without write rights cannot save or delete.

## Product versions

The interface changed between releases. \`info.version\` (3.0.19) is the release whose forms this document calls current; the older forms are described next to them:

- **3.0.19 and later**: sign-in path carries the organization.
- **3.0.0 to 3.0.18**: sign-in path without the organization segment.
- **below 3.0**: legacy sign-in under the user management path; items are read with GET and no body, and queries reach master rows only; the save and delete results spell the flag \`IsSaveSuccesfully\`; delete takes an older body shape.

The mock emulates one release at a time (\`--product-version\`).

## Extensions

- \`x-product-versions\` (on operations, \`oneOf\` branches and examples): the releases in which the operation, the branch or the example applies, as a semver range (\`*\`, \`>=3.0.0\`, \`>=3.0.0 <3.0.19\`, \`<3.0.0\`). A release written \`2.9\` means \`2.9.0\`. Without it, the part applies wherever its operation does.
- \`x-mock-defined\`: the published description leaves this open and the document states what the mock does. The value is \`true\` for the whole object, or a short text naming the part that is the mock's choice; on a response schema that text lists the schema keywords that are the mock's (\`type format\`, \`pattern\`). A real installation may behave differently there, and a check of an installation against this document must not hold it to these parts.
- \`x-request-example\` (on response examples): the request example of the same operation that this example answers, on a freshly started mock with the default fixture.

## Servers

A real installation serves this API over HTTPS (the published description: "All calls use HTTPS"), at a base URL of its own. The appdata-kit mock serves it at its own address, over HTTP unless told otherwise; a running mock lists its own origin as the first server of the document it serves.

## Errors

The published description shows only successful calls, all HTTP 200. Save and delete report business failures in the result (\`IsSaveSuccessfully\` false, one \`ReturnStates\` entry per problem, nothing written), custom actions in \`IsSuccessful\`. Every error status in this document (400, 401, 403, 404, 413, 414, 503) is the mock's choice and answers with RFC 9457 problem details (\`application/problem+json\`). A method a path does not take answers 405 with \`Allow\`.

## Strict and lenient

What the published description shows or allows, the mock accepts on every release that has the operation. Where the description is silent and a real installation most plausibly accepts a request (an unknown query option, an extra sign-in field, the older delete body on a newer release, ...), the mock accepts it too and reports a warning: its code in the \`X-Mock-Warnings\` response header, the request journal and the log. Started with \`--strict\` (or per request with \`X-Mock-Strict: 1\`), it refuses such requests with a 400 \`STRICT_MODE\` problem instead. Schemas mark these places with \`x-mock-defined\`.

## Limits

${LIMITS_TABLE}

The URL and body limits come from the hosting environment rather than from the service itself. The published description states no maximum page size and no rate limits.`

/** The part of the query grammar the published description leaves open (it shows one `eq` filter and one sort key), for `x-mock-defined`. */
export const GRAMMAR_CHOICE = 'the $filter language beyond eq, and several $orderby keys'

export const FILTER_GRAMMAR = `#### Filter expressions (\`$filter\`)

The published description shows only \`Field eq 'value'\`; the rest of this language is the mock's choice.

\`\`\`
expression = term *( " or " term )
term       = factor *( " and " factor )
factor     = "not " factor / "(" expression ")" / comparison / function
comparison = field " " operator " " value
operator   = "eq" / "ne" / "gt" / "ge" / "lt" / "le"
function   = ( "contains" / "startswith" / "endswith" ) "(" field "," quoted ")"
value      = quoted / number / "null"
quoted     = "'" *( any character but "'" / "''" ) "'"
number     = [ "-" ] digits [ "." digits ]
field      = the name of a field of the queried table
\`\`\`

\`not\` binds tighter than \`and\`, and \`and\` tighter than \`or\`. A quote inside a quoted value is doubled. \`null\` compares with \`eq\` and \`ne\` only (\`Status eq null\` finds rows whose \`Status\` has no value). Examples: \`Status eq 'Open'\`, \`Amount ge 1000 and not (Status eq 'Closed')\`, \`contains(Customer,'Harbor')\`, \`Customer eq 'O''Brien Ltd'\`. An expression outside this language answers 400.`

export const QUERY_GRAMMAR = `#### Query options

The \`query\` text is a list of \`name=value\` options joined by \`&\`, like a URL query string without the leading \`?\`. Names and values may be sent as they are or form-encoded (\`%24top=10\`, \`$filter=Status%20eq%20%27Open%27\`, \`$filter=Status+eq+'Open'\`); each is decoded once, as form-encoded text: \`+\` is a space like \`%20\`, so a literal plus is \`%2B\`. An \`&\` inside a value is sent as \`%26\`: a raw one inside a quoted value is read as part of it with the warning QUOTED_AMPERSAND, and refused in strict mode.

| Option | Value | Effect |
|---|---|---|
| \`$top\` | integer, 0 or more | Return at most this many rows. |
| \`$skip\` | integer, 0 or more | Leave out this many rows, counted after ordering. |
| \`$orderby\` | \`Field asc\` or \`Field desc\`, several joined by commas | Sort order, first key first; the direction may be left out and then is \`asc\`. |
| \`$filter\` | a filter expression (below) | Keep only rows for which the expression holds. |
| \`relationKey\` | a Detail Relation Key | Query that detail table instead of the master table; leave it out for master rows. |
| \`$inlinecount\` | \`allpages\` | Answer with the number of matching rows (a count result) instead of rows; \`$top\` and \`$skip\` do not limit the count. |

${FILTER_GRAMMAR}`
