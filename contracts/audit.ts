/**
 * The audit: every statement of the API's description that promises behaviour on the wire, by
 * section, with the contracts that check it (they name it in their `statements`) or the reason it
 * cannot be checked against an installation. contracts/AUDIT.md is written from it (`npm run
 * audit`) and a test keeps both in step with the contracts.
 */
import type { Contract } from './types.ts'

/**
 * Why a statement cannot be checked against an installation:
 * - `admin-screen`: what it needs is set or read in the product's administration screens only;
 * - `second-user`: it needs a second user with other authorizations, and verify signs in as one;
 * - `open`: the description leaves the outcome open (no status, no form, no value shown), so no
 *   answer could be held wrong; where clients need to know, verify reports what it finds;
 * - `environment`: the hosting environment decides it, not the service (Limits: "set by the
 *   environment, not by the service's own logic"), and the caller chooses it.
 */
export type Unchecked = { kind: 'admin-screen' | 'second-user' | 'open' | 'environment'; why: string }

export interface Statement {
  /** Stable id a contract names in its `statements`. */
  id: string
  /** Where the description says it. */
  section: string
  /** What it promises, in the description's words as far as they go. */
  text: string
  /** Set when no contract can check it, with why; never "not written yet". */
  unchecked?: Unchecked
  /** What verify reports about it as information (never a failure). */
  informs?: string
  /**
   * Set on the rows the latest revision of the audit changed, saying what changed and why; it is
   * printed in the row and the head of AUDIT.md names the rows. Cleared by the next revision.
   */
  changed?: string
}

export const STATEMENTS: readonly Statement[] = [
  // What the service does
  {
    id: 'service.access-level',
    section: 'What the service does, 2',
    text: 'The data returned depends on the access level of the session; data the user lacks authorization for is left out of the response.',
    unchecked: { kind: 'second-user', why: 'telling what a user may not see needs a second user with fewer authorizations' },
  },
  { id: 'service.json', section: 'What the service does, 3', text: 'Responses are JSON objects or content streams (files).' },
  {
    id: 'service.https',
    section: 'What the service does, 4',
    text: 'All calls use HTTPS.',
    unchecked: { kind: 'environment', why: 'the scheme is the address the caller gives; no answer can show it' },
    informs: 'whether the base URL verify was given uses HTTPS',
  },
  {
    id: 'service.identifiers',
    section: 'What the service does, 5-6',
    text: "Organization, Workspace, Application and Detail Relation Key identify the data; they are looked up in the product's administration screens.",
    changed:
      'was not checkable (the identifiers come from the administration screens); that they identify the data is checkable as it is for the Workspace Id: another Workspace Id, ApplicationId or relation key answers none of the rows the right ones do (the Organization is named only by the sign-in path, where a wrong one stops verify before any contract)',
  },
  { id: 'service.session-header', section: 'What the service does, 7', text: 'The header SessionToken carries the access_token value returned by sign-in.' },

  // Resources
  {
    id: 'resources.row-fields',
    section: 'Resources, Application row',
    text: 'Every row returned by Get Items has Id (integer), CT_ATTACHMENTS, DT_CREATION, DT_LAST_UPDATE, ROW_ORDER, TIMESTAMP, USER_ID_CREATION and USER_ID_LAST_UPDATE.',
  },
  {
    id: 'resources.row-system-forms',
    section: 'Resources, Application row',
    text: 'CT_ATTACHMENTS, DT_CREATION, DT_LAST_UPDATE, ROW_ORDER, USER_ID_CREATION, USER_ID_LAST_UPDATE are nullable; their form is not given (data types: "a separate data types description").',
    unchecked: { kind: 'open', why: 'the description gives no type or form for them on rows' },
    informs: 'the form of DT_CREATION and DT_LAST_UPDATE on rows (number yyyyMMddHHmmss, ISO text, ...) and of each user field',
  },
  {
    id: 'resources.new-id-replaced',
    section: 'Resources, Application row (Id)',
    text: 'On save, a new row carries a negative sequential number in Id (-1, -2, ...); the service replaces it with the real value.',
  },
  {
    id: 'resources.timestamp-read',
    section: 'Resources, Application row (TIMESTAMP)',
    text: 'TIMESTAMP is a string (base64-like text) in read results and a number in save and delete requests.',
  },
  {
    id: 'resources.timestamp-required',
    section: 'Resources, Application row (TIMESTAMP)',
    text: 'The row version value is required to update or delete a row.',
  },
  {
    id: 'resources.identity-assigned',
    section: 'Resources, Application row (Identity field)',
    text: "A Storage's Identity field is sent as null on creation and the service assigns it.",
  },
  {
    id: 'resources.attachment-record',
    section: 'Resources, Attachment record',
    text: 'Id, ParentId (the row Id), FolderId (integer or null), IsFolder, Name, Description, TypeImage (media type), DT_CREATION (a number yyyymmddhhmmss or null), DT_LAST_UPDATE (number or null), USER_ID_CREATION, USER_ID_LAST_UPDATE.',
  },
  {
    id: 'resources.result-flag',
    section: 'Resources, Save / delete result object',
    text: 'IsSaveSuccessfully is true when the operation succeeded; older versions spell it IsSaveSuccesfully.',
  },
  {
    id: 'resources.result-primary-keys',
    section: 'Resources, Save / delete result object',
    text: 'ReturnData.PrimaryKeyData is keyed by the temporary negative Id sent; each newKeys maps a key-like name to the assigned Id as a string.',
  },
  {
    id: 'resources.result-counters',
    section: 'Resources, Save / delete result object',
    text: 'CreatedItems, UpdatedItems, DeletedItems, LockedItems are integer counters.',
    changed:
      'was not checkable with the lists below; a counter named for what it counts is checked at its weakest reading: at least 1 when the request created, updated or deleted a row (LockedItems is not: no run can lock a row); the lists are now resources.result-lists',
  },
  {
    id: 'resources.result-lists',
    section: 'Resources, Save / delete result object',
    text: 'ReturnStates and MasterToRecalculate are "empty in all shown cases"; SavedItems null.',
    unchecked: {
      kind: 'open',
      why: 'what ReturnStates holds on a refusal, and when MasterToRecalculate or SavedItems hold anything, is not stated (their types are checked on every save and delete answer by the document)',
    },
    changed: 'new: split from resources.result-counters, unchecked as before',
  },
  {
    id: 'resources.result-links',
    section: 'Resources, Save / delete result object',
    text: 'MasterRowLink (string or null), RowIdentifier (name of the Storage Identity field, or null), StorageName (or null).',
    unchecked: { kind: 'open', why: 'when each is null is not stated (their types are checked by the document on every save answer)' },
  },
  {
    id: 'resources.action-result',
    section: 'Resources, Custom action result',
    text: 'Message (string), IsSuccessful (boolean), Result (string), IsAsync (boolean).',
  },
  {
    id: 'resources.count-result',
    section: 'Resources, Count result',
    text: 'Timestamp (integer) and Items: one object holding _FieldCount_ (integer, the count).',
  },
  {
    id: 'resources.token-result',
    section: 'Resources, Token result (current sign-in)',
    text: 'access_token (string), expires_in (integer), token-type (string), scope (string).',
  },
  {
    id: 'resources.expires-in-unit',
    section: 'Resources, Token result (current sign-in)',
    text: 'expires_in is "described as the expiry time in milliseconds; the sample value is 3600".',
    unchecked: { kind: 'open', why: 'the description contradicts itself (3600 ms would be 3.6 s); the unit cannot be held' },
  },
  {
    id: 'resources.legacy-token-result',
    section: 'Resources, Token result (legacy sign-in)',
    text: 'Domain (Id GUID, Name, CreationDate /Date(ms)/, IsActive, IsAdmin, IsBusinessDomain), EncryptedCredentials, RedirectPage (integer), SessionToken (string).',
  },

  // Endpoints, common
  {
    id: 'endpoints.headers',
    section: 'Endpoints (common request headers)',
    text: 'Data operations take ApplicationId, SessionToken and WorkspaceId (the Workspace Id); rows in requests are JSON objects keyed by field name.',
    changed:
      "the ApplicationId is held as the WorkspaceId was: another ApplicationId answers none of the application's rows (auth.unknown-application-no-rows)",
  },

  // 1. Sign in
  {
    id: 'sign-in.current',
    section: 'Endpoints, 1. Sign in (current)',
    text: 'POST identityprovider/{organization}/connect/token, form-encoded client_id, username, password, grant_type=password, scope "openid apiv1 nosession"; no other headers; 200 with the token result.',
  },
  { id: 'sign-in.before-3.0.19', section: 'Endpoints, 1. Sign in (current)', text: 'For versions earlier than 3.0.19 the path has no organization segment.' },

  // 2. Get Items
  { id: 'items.read', section: 'Endpoints, 2. Get Items', text: 'POST ExplorerApi/api/items with a body { query }; 200 with an array of row objects.' },
  { id: 'items.top', section: 'Endpoints, 2. Get Items ($top)', text: '$top: maximum rows to return.' },
  { id: 'items.skip', section: 'Endpoints, 2. Get Items ($skip)', text: '$skip: rows to skip.' },
  { id: 'items.orderby', section: 'Endpoints, 2. Get Items ($orderby)', text: '$orderby: a field name followed by asc or desc.' },
  { id: 'items.filter', section: 'Endpoints, 2. Get Items ($filter)', text: "$filter: <field> <operator> '<value>' (the sample uses eq)." },
  {
    id: 'items.filter-operators',
    section: 'Endpoints, 2. Get Items',
    text: 'The list of supported filter operators and options is not shown.',
    unchecked: { kind: 'open', why: 'only eq is shown; other operators are checked only against the mock' },
  },
  {
    id: 'items.relation-key',
    section: 'Endpoints, 2. Get Items (relationKey)',
    text: 'relationKey: include it only to retrieve Detail rows; omit it for Master rows.',
    changed:
      "the relation key is held as the WorkspaceId was: a relation key the application does not have answers none of its master rows nor its detail table's (items.unknown-relation-key-no-rows)",
  },
  {
    id: 'items.default-order',
    section: 'Endpoints, 2. Get Items',
    text: 'The order of rows read without $orderby is not stated.',
    unchecked: { kind: 'open', why: 'no order is promised without $orderby' },
    informs: 'the order the installation answers without $orderby (by Id ascending, descending, or another)',
  },
  {
    id: 'items.legacy-get',
    section: 'Endpoints, 2. Get Items (older variant)',
    text: 'Older variant: GET ExplorerApi/api/items with ApplicationId and SessionToken and no body.',
  },
  {
    id: 'items.page-size',
    section: 'Limits',
    text: 'The sample $top is 200; a maximum page size is not stated.',
    unchecked: { kind: 'open', why: 'no maximum page size is promised' },
  },

  // 3. Count
  {
    id: 'count.result',
    section: 'Endpoints, 3. Get Items Count',
    text: 'query $inlinecount=allpages, optionally with filter parameters and relationKey, answers the count result: the number of rows.',
  },

  // 4. Save
  {
    id: 'save.body',
    section: 'Endpoints, 4. Save',
    text: 'Rows: one element per Master row; Row holds its field values; Id negative sequential to create; Details: one element per Detail table; 200 with the save result.',
  },
  {
    id: 'save.details',
    section: 'Endpoints, 4. Save (Rows[].Details)',
    text: 'Detail rows are written directly (no Row wrapper), each with Id (-1 for new), the Identity field (null for new), TIMESTAMP (null for new) and its fields.',
  },
  {
    id: 'save.update-procedure',
    section: 'Endpoints, 4. Save, update procedure',
    text: "Read the rows with Get Items, take each row's TIMESTAMP, send it in the save.",
  },
  {
    id: 'save.update-only-fields',
    section: 'Endpoints, 4. Save, update procedure',
    text: 'An update sends only the fields to change plus Id and TIMESTAMP; the Identity field is not needed.',
  },
  {
    id: 'save.detail-to-existing',
    section: 'Endpoints, 4. Save, update procedure',
    text: 'A new Detail row can be added to an existing Master row in the same way.',
  },

  // 5. Delete
  {
    id: 'delete.removes',
    section: 'Endpoints, 5. Delete',
    text: 'The row with that Id and TIMESTAMP is deleted; 200 with the result object (no ReturnData), success in IsSaveSuccessfully.',
  },
  {
    id: 'delete.groups',
    section: 'Endpoints, 5. Delete',
    text: 'RelationKey is null for Master rows and the Detail Relation Key for Detail rows; one body may hold a Master group and a Detail group.',
  },
  {
    id: 'delete.legacy-body',
    section: 'Endpoints, 5. Delete (older variant)',
    text: 'Older variant: an array of { Rows: [{ Row: { Id, TIMESTAMP }, Details: [] }] }.',
  },

  // 6. Attachments list
  {
    id: 'attachments.list',
    section: 'Endpoints, 6. Get Attachments List',
    text: "GET ExplorerApi/api/attachments?$filter=ParentId eq <row_id>; 200 with the row's attachment records.",
  },
  { id: 'attachments.folder', section: 'Endpoints, 6. Get Attachments List', text: 'The FolderId condition is needed for an attachment nested in a folder.' },
  {
    id: 'attachments.relation-key',
    section: 'Endpoints, 6. Get Attachments List',
    text: 'relationKey is added only for Detail rows and omitted for Master rows.',
    changed:
      'the relation key is held as the WorkspaceId was: a relation key the application does not have answers none of the records of the row with attachments (attachments.unknown-relation-key-no-records)',
  },

  // 7. Download
  {
    id: 'download.file',
    section: 'Endpoints, 7. Download Attachment',
    text: "Body { ids, rk }; 200 with a file stream, Content-Disposition: attachment; filename=<file_name>, and the file's media type.",
  },
  {
    id: 'download.rk',
    section: 'Endpoints, 7. Download Attachment',
    text: 'rk is given if and only if the attachment belongs to a Detail row.',
    changed:
      "the relation key is held as the WorkspaceId was: an rk the application does not have does not download the master row's file (download.unknown-relation-key-no-file)",
  },
  {
    id: 'download.folder-zip',
    section: 'Endpoints, 7. Download Attachment',
    text: "When the Id is a folder, the response is a .zip archive of the folder's attachments.",
  },
  {
    id: 'download.several-ids',
    section: 'Endpoints, 7. Download Attachment',
    text: 'ids is an array of integers.',
    unchecked: { kind: 'open', why: 'what several ids download as (one archive, the first file) is not stated' },
  },

  // 8. Run Action
  { id: 'action.run', section: 'Endpoints, 8. Run Action', text: 'Body actionId and parametersMap; 200 with the custom action result.' },
  {
    id: 'action.outcome',
    section: 'Endpoints, 8. Run Action; Errors, 2',
    text: 'IsSuccessful = true means the action ran successfully.',
    unchecked: { kind: 'admin-screen', why: 'whether an action succeeded is known only from its definition, in the administration screens' },
  },
  {
    id: 'action.media-type',
    section: 'Endpoints, 8. Run Action',
    text: 'The sample labels the response media type as XML although the body is JSON.',
    unchecked: { kind: 'open', why: 'either label is what the description shows; the body is read as JSON whatever its label' },
  },

  // 9. Send Email
  {
    id: 'email.queue',
    section: 'Endpoints, 9. Send Email',
    text: 'POST webaggregator/api/v1/email/queue with Authorization: Bearer and WorkspaceId; to, subject, body; 200 with an empty body.',
  },
  {
    id: 'email.default-provider',
    section: 'Endpoints, 9. Send Email',
    text: "When providerId is absent, the installation's default provider is used.",
    unchecked: { kind: 'admin-screen', why: 'which provider sent an e-mail is seen only in the administration screens' },
  },

  // 10. Row link
  { id: 'row-link.opens-row', section: 'Endpoints, 10. Generate Row Link', text: 'Response 200: a string holding a URL that opens the row.' },
  {
    id: 'row-link.values',
    section: 'Endpoints, 10. Generate Row Link',
    text: 'values is one row Id or an array of row Ids; relationKey null and valueType 1 fixed.',
  },
  {
    id: 'row-link.masters-only',
    section: 'Endpoints, 10. Generate Row Link',
    text: 'Only Master rows are supported; Detail rows have no direct link.',
    unchecked: { kind: 'open', why: 'what a request for a detail row answers is not stated' },
  },

  // 11. Identities
  { id: 'identities.values', section: 'Endpoints, 11. Get Identities', text: '<count> sequential values are generated; 200 with the array of integers.' },
  { id: 'identities.reserved', section: 'Endpoints, 11. Get Identities', text: 'Reserved values are not used by other saves.' },

  // 12. Legacy sign-in
  {
    id: 'sign-in.legacy',
    section: 'Endpoints, 12. Sign in (legacy)',
    text: "POST the user management service's Token with userName, password, clientId; 200 with the legacy token result.",
  },

  // Authentication
  {
    id: 'auth.sign-in',
    section: 'Authentication, 1',
    text: 'A user signs in with username, password and the password grant; the response carries access_token.',
  },
  {
    id: 'auth.session-token',
    section: 'Authentication, 2',
    text: 'Every data operation sends that value in SessionToken, with WorkspaceId and for most ApplicationId.',
  },
  { id: 'auth.bearer', section: 'Authentication, 3', text: 'The e-mail operation sends the same value as Authorization: Bearer.' },
  { id: 'auth.legacy-token', section: 'Authentication, 5', text: 'The legacy sign-in returns SessionToken; later calls use it in the SessionToken header.' },
  {
    id: 'auth.authorizations',
    section: 'Authentication, 6',
    text: "The signed-in user's authorizations decide which data a response contains.",
    unchecked: { kind: 'second-user', why: 'needs a second user with other authorizations' },
  },
  {
    id: 'auth.refresh',
    section: 'Authentication, 7',
    text: 'Token refresh, revocation and the authorization model are not shown.',
    unchecked: { kind: 'open', why: 'not shown' },
  },

  // Errors
  { id: 'errors.success-200', section: 'Errors, 1', text: 'Success is HTTP 200; save and delete report the outcome in IsSaveSuccessfully.' },
  {
    id: 'errors.duplicate-key',
    section: 'Errors, 3',
    text: 'A save that reuses an already taken identity value produces a duplicate key error; reserving values with Get Identities avoids it.',
  },
  {
    id: 'errors.codes',
    section: 'Errors, 4-5',
    text: 'Error status codes, their conditions and the error body are not shown.',
    unchecked: { kind: 'open', why: 'no status or body is promised; contracts hold refusals to "not accepted, no data" instead' },
  },

  // Limits
  {
    id: 'limits.url-body',
    section: 'Limits; Errors, 6',
    text: 'URL up to 2048 characters, request body up to 60 MB; beyond is outside the accepted range.',
    unchecked: { kind: 'environment', why: 'set by the hosting environment, and what it answers beyond them is not stated' },
  },
  {
    id: 'limits.token-lifetime',
    section: 'Limits',
    text: 'The token lives for expires_in.',
    unchecked: { kind: 'open', why: 'the unit is contradictory (see resources.expires-in-unit), and waiting out a lifetime is no check a run can make' },
  },
  { id: 'limits.rate', section: 'Limits', text: 'Rate limits: not shown.', unchecked: { kind: 'open', why: 'not shown' } },

  // Versioning
  { id: 'versioning.email-path', section: 'Versioning, 1', text: 'No version segment in the paths except /api/v1/ in the e-mail path.' },
  { id: 'versioning.sign-in', section: 'Versioning, 2-3', text: 'Release 3.0 changed sign-in; from 3.0.19 its path includes the Organization physical name.' },
  { id: 'versioning.workspace-id', section: 'Versioning, 4', text: 'From 3.0 the WorkspaceId header takes the Workspace Id; earlier Domain Ids are invalid.' },
  {
    id: 'versioning.domain-ids-invalid',
    section: 'Versioning, 4',
    text: 'Earlier Domain Ids are invalid from 3.0.',
    unchecked: { kind: 'admin-screen', why: 'an earlier Domain Id of the workspace is known only from the administration screens of the release before' },
  },
  {
    id: 'versioning.older-forms',
    section: 'Versioning, 5',
    text: 'Older forms: Get Items by GET, no detail rows in queries, IsSaveSuccesfully, legacy sign-in.',
  },
  {
    id: 'versioning.policy',
    section: 'Versioning, 6',
    text: 'Version identifier and deprecation policy: not shown.',
    unchecked: { kind: 'open', why: 'not shown' },
  },
]

/** The statements a contract checks, by id. */
export function statementsOf(contract: Contract): string[] {
  return contract.statements ?? []
}

/** The contracts held to the description that name a statement. */
export function checkersOf(statement: Statement, contracts: readonly Contract[]): Contract[] {
  return contracts.filter((contract) => contract.holdsTo === 'description' && statementsOf(contract).includes(statement.id))
}

const REASONS: Record<Unchecked['kind'], string> = {
  'admin-screen': 'needs an administration screen',
  'second-user': 'needs a second user',
  open: 'the description leaves it open',
  environment: 'set by the environment',
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ')

/** The audit as Markdown: one row per statement, then the counts. */
export function renderAudit(contracts: readonly Contract[]): string {
  const checkable = STATEMENTS.filter((s) => s.unchecked === undefined)
  const described = contracts.filter((c) => c.holdsTo === 'description')
  const proven = described.filter((c) => c.deviation !== undefined)
  const changed = STATEMENTS.filter((s) => s.changed !== undefined)
  const lines = [
    "<!-- Written by `npm run audit` from contracts/audit.ts and the contracts' own metadata; edit those, not this file. -->",
    '# Audit: the description, statement by statement',
    '',
    "Every statement of the API's description that promises behaviour on the wire, by section, with the",
    'contracts of `appdata-kit verify` that check it and with what data, or why no contract can check it',
    'against an installation. A contract that names a statement missing here, or a row that names a',
    'contract that does not exist, fails the test suite (test/contracts/audit.test.ts).',
    '',
    `${STATEMENTS.length} statements; ${checkable.length} checkable, each checked by at least one contract; ${STATEMENTS.length - checkable.length} not checkable, with the reason.`,
    `${described.length} contracts hold an installation to the description (${contracts.length} in all, with the mock's own choices); ${proven.length} of them are proven against a \`--deviate\` fault of the mock made for them.`,
    ...(changed.length === 0 ? [] : [`Rows this revision changed (each says how, after "Changed:"): ${changed.map((s) => `\`${s.id}\``).join(', ')}.`]),
    '',
    '| Statement | Section | What it promises | Checked by (with what data) |',
    '|---|---|---|---|',
  ]
  for (const statement of STATEMENTS) {
    const checkers = checkersOf(statement, contracts)
    const by =
      statement.unchecked !== undefined
        ? `not checkable: ${REASONS[statement.unchecked.kind]} (${statement.unchecked.why})`
        : checkers.map((c) => `\`${c.id}\`${c.deviation === undefined ? '' : ` [fault \`${c.deviation}\`]`}: ${c.data ?? c.title}`).join('<br>')
    const informs = statement.informs === undefined ? '' : `<br>Reported as information: ${statement.informs}.`
    const change = statement.changed === undefined ? '' : `<br>Changed: ${statement.changed}.`
    lines.push(`| \`${statement.id}\` | ${cell(statement.section)} | ${cell(statement.text)} | ${cell(by)}${cell(informs)}${cell(change)} |`)
  }
  return `${lines.join('\n')}\n`
}
