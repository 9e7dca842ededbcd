/**
 * Example values used across the document, built from the default fixture (fixtures/default.json)
 * rather than typed again, so a reader can paste them against `npm start` and get the answers
 * shown. Row versions are the ones a freshly started mock gives: masters first, in Id order, from
 * 1, then detail rows. test/spec/examples-drift.test.ts sends every request example to a fresh
 * mock and compares the answer with the response example that names it (`x-request-example`).
 */
import defaultFixture from '../fixtures/default.json' with { type: 'json' }
import { PROBLEMS, problemType, type ProblemCode } from '../src/errors.ts'

type FixtureRow = { Id: number; [field: string]: string | number | boolean | null }

const organization = defaultFixture.organization
const [adminUser, viewerUser] = organization.users as [(typeof organization.users)[number], (typeof organization.users)[number]]
const [salesWorkspace] = organization.workspaces as [(typeof organization.workspaces)[number]]
const [orders] = defaultFixture.applications as [(typeof defaultFixture.applications)[number]]
const [orderLines] = orders.details as [(typeof orders.details)[number]]
const [recalculate, closePeriod] = defaultFixture.actions as [(typeof defaultFixture.actions)[number], (typeof defaultFixture.actions)[number]]
const [defaultProvider] = defaultFixture.emailProviders as [(typeof defaultFixture.emailProviders)[number]]
const ordersData = (defaultFixture.data as unknown as Record<string, { masters: FixtureRow[]; details: Record<string, FixtureRow[]> }>)[orders.id] as {
  masters: FixtureRow[]
  details: Record<string, FixtureRow[]>
}
const masters = ordersData.masters
const lines = ordersData.details[orderLines.relationKey] as FixtureRow[]

export const ORGANIZATION = organization.physicalName
export const ADMIN_USER = adminUser.email
export const ADMIN_PASSWORD = adminUser.password
export const VIEWER_USER = viewerUser.email
export const CLIENT_ID = organization.clientId
export const LEGACY_CLIENT_ID = organization.legacyClientId
export const SCOPE = 'openid apiv1 nosession'
export const WORKSPACE_ID = salesWorkspace.id
export const APPLICATION_ID = orders.id
export const MASTER_STORAGE_ID = orders.master.id
export const IDENTITY_FIELD = orders.master.identityField
export const RELATION_KEY = orderLines.relationKey
export const ACTION_OK = recalculate.id
export const ACTION_FAILS = closePeriod.id
export const EMAIL_PROVIDER_ID = defaultProvider.id
/** An opaque session token; its format is the service's business. */
export const SESSION_TOKEN = 'q8ZbN3v1Tj0sXc7LmR2yKd5wHf9PaE4u'
/** Where the mock listens by default; row links in examples point there. */
export const MOCK_ORIGIN = 'http://127.0.0.1:4080'

/** Base64 of the 8-byte big-endian integer, as read results carry a row version. */
export function encodeVersion(version: number): string {
  const bytes = Buffer.alloc(8)
  bytes.writeBigUInt64BE(BigInt(version))
  return bytes.toString('base64')
}

/** Row version of the i-th master (0-based, Id order) in a freshly started mock. */
export const masterVersion = (index: number): number => index + 1
/** Row version of the i-th OrderLines row (0-based, Id order) in a freshly started mock. */
export const lineVersion = (index: number): number => masters.length + index + 1

/** The number of files (folders not counted) attached to a row: its `CT_ATTACHMENTS`. */
function fileCount(relationKey: string | null, rowId: number): number | null {
  const count = defaultFixture.attachments.filter((a) => a.relationKey === relationKey && a.parentId === rowId && a.isFolder !== true).length
  return count === 0 ? null : count
}

/** A fixture row as Get Items answers it: system fields filled in the way the mock fills them. */
function readRow(row: FixtureRow, relationKey: string | null, index: number, version: number): Record<string, unknown> {
  return {
    ...row,
    CT_ATTACHMENTS: fileCount(relationKey, row.Id),
    DT_LAST_UPDATE: row.DT_LAST_UPDATE ?? row.DT_CREATION ?? null,
    ROW_ORDER: index + 1,
    TIMESTAMP: encodeVersion(version),
    USER_ID_LAST_UPDATE: row.USER_ID_LAST_UPDATE ?? row.USER_ID_CREATION ?? null,
  }
}

/** The first two master rows of the Orders application, as `$top=2&$orderby=Id asc` reads them. */
export const masterRows = masters.slice(0, 2).map((row, i) => readRow(row, null, i, masterVersion(i)))

/** The detail rows (relation key OrderLines) of master row 1. */
export const detailRows = lines.flatMap((row, i) => (row.MasterId === 1 ? [readRow(row, RELATION_KEY, i, lineVersion(i))] : []))

/** How many master rows have Status Open. */
export const openOrders = masters.filter((row) => row.Status === 'Open').length

/** Rows of every application in the fixture: a fresh mock's latest row version. */
const allRows = Object.values(defaultFixture.data as Record<string, { masters?: unknown[]; details?: Record<string, unknown[]> }>).reduce(
  (sum, data) => sum + (data.masters?.length ?? 0) + Object.values(data.details ?? {}).reduce((n, rows) => n + rows.length, 0),
  0,
)

/** A count result for `$filter=Status eq 'Open'`. `Timestamp` is the service's (the mock sends its latest row version). */
export const countResult = { Timestamp: allRows, Items: [{ _FieldCount_: openOrders }] }

/** The next values of the Orders storages' sequences in a fresh mock. */
const nextMasterId = Math.max(...masters.map((row) => row.Id)) + 1
const nextMasterIdentity = Math.max(...masters.map((row) => Number(row[IDENTITY_FIELD]))) + 1
const nextLineId = Math.max(...lines.map((row) => row.Id)) + 1

/** Counters and fields every save or delete result carries. */
const resultBase = {
  ReturnStates: [],
  MasterToRecalculate: [],
  CreatedItems: 0,
  UpdatedItems: 0,
  DeletedItems: 0,
  LockedItems: 0,
  MasterRowLink: null,
  RowIdentifier: IDENTITY_FIELD,
  StorageName: orders.master.name,
  SavedItems: null,
}

/** The link Generate Row Link gives, and save results carry, for master rows of Orders. */
export function rowLink(...ids: number[]): string {
  return `${MOCK_ORIGIN}/rowlink/${APPLICATION_ID}/${ids.join(',')}`
}

/** Create one master row with two detail rows, both `Id: -1`, exactly as the description shows a new detail row. */
export const saveCreate = {
  Rows: [
    {
      Row: { Id: -1, [IDENTITY_FIELD]: null, TIMESTAMP: null, Customer: 'Contoso Retail', Amount: 99.9, Status: 'Open' },
      Details: [
        {
          RelationKey: RELATION_KEY,
          Rows: [
            { Id: -1, [IDENTITY_FIELD]: null, TIMESTAMP: null, Product: 'Pallet wrap film 500 mm', Quantity: 4, UnitPrice: 18.9 },
            { Id: -1, [IDENTITY_FIELD]: null, TIMESTAMP: null, Product: 'Euro pallet, used', Quantity: 10, UnitPrice: 9.5 },
          ],
        },
      ],
    },
  ],
}

export const saveCreateResult = {
  ...resultBase,
  IsSaveSuccessfully: true,
  ReturnData: {
    PrimaryKeyData: {
      '-1': {
        newKeys: {
          Id: String(nextMasterId),
          [IDENTITY_FIELD]: String(nextMasterIdentity),
          [`${RELATION_KEY}[0]`]: String(nextLineId),
          [`${RELATION_KEY}[1]`]: String(nextLineId + 1),
        },
      },
    },
  },
  CreatedItems: 3,
  MasterRowLink: rowLink(nextMasterId),
}

/** Update the status of master row 1 and the quantity of its first detail row, with the versions read last. */
export const saveUpdate = {
  Rows: [
    {
      Row: { Id: 1, TIMESTAMP: masterVersion(0), Status: 'Shipped' },
      Details: [{ RelationKey: RELATION_KEY, Rows: [{ Id: 1, TIMESTAMP: lineVersion(0), Quantity: 48 }] }],
    },
  ],
}

export const saveUpdateResult = {
  ...resultBase,
  IsSaveSuccessfully: true,
  ReturnData: { PrimaryKeyData: {} },
  UpdatedItems: 2,
  MasterRowLink: rowLink(1),
}

/** An update of master row 2 sent with the version master row 2 had before someone else saved it. */
export const saveStale = { Rows: [{ Row: { Id: 2, TIMESTAMP: 1, Status: 'Closed' }, Details: [] }] }

/** The stale update refused; nothing was written. */
export const saveStaleResult = {
  ...resultBase,
  IsSaveSuccessfully: false,
  ReturnStates: [
    {
      Code: 'CONCURRENCY',
      Message: `master row 2 was changed by someone else: TIMESTAMP 1 is not the current ${masterVersion(1)}`,
      RelationKey: null,
      Id: 2,
      Field: 'TIMESTAMP',
    },
  ],
  ReturnData: { PrimaryKeyData: {} },
}

/**
 * A new order refused the product's way, for a required field left empty: one ReturnStates entry
 * naming the field, nothing written. The answer of the answer-rule examples (addStub); the tests of
 * answer rules send it too.
 */
export const saveRefusedResult = {
  ...resultBase,
  ReturnStates: [{ Code: 'REQUIRED', Message: 'Amount is required', RelationKey: null, Id: -1, Field: 'Amount' }],
  IsSaveSuccessfully: false,
  ReturnData: { PrimaryKeyData: {} },
}

/** The same update as answered by a release below 3.0. */
export const saveLegacyResult = { ...resultBase, IsSaveSuccesfully: true, ReturnData: { PrimaryKeyData: {} }, UpdatedItems: 2, MasterRowLink: rowLink(1) }

/** The second detail row of master row 1. */
const secondLine = lines.findIndex((row) => row.MasterId === 1 && row.Id !== 1)

/** Delete master row 2 (its detail rows go with it) and the second detail row of master row 1, in one call. */
export const deleteCurrent = [
  { RelationKey: null, Rows: [{ Row: { Id: 2, TIMESTAMP: masterVersion(1) } }] },
  { RelationKey: RELATION_KEY, Rows: [{ Row: { Id: (lines[secondLine] as FixtureRow).Id, TIMESTAMP: lineVersion(secondLine) } }] },
]

export const deleteLegacy = [{ Rows: [{ Row: { Id: 2, TIMESTAMP: masterVersion(1) }, Details: [] }] }]

export const deleteResult = { ...resultBase, IsSaveSuccessfully: true, DeletedItems: 2 }
export const deleteLegacyResult = { ...resultBase, IsSaveSuccesfully: true, DeletedItems: 1 }

/** yyyymmddhhmmss as a number, as the attachments list writes times. */
function compactTime(iso: string): number {
  return Number(iso.slice(0, 19).replace(/[-T:]/g, ''))
}

type FixtureAttachment = (typeof defaultFixture.attachments)[number]

/** A fixture attachment as Get Attachments List answers it. */
function attachmentRecord(a: FixtureAttachment): Record<string, unknown> {
  return {
    Id: a.id,
    ParentId: a.parentId,
    FolderId: a.folderId,
    IsFolder: a.isFolder,
    Name: a.name,
    Description: a.description,
    TypeImage: a.isFolder ? '' : (a as { mediaType?: string }).mediaType,
    DT_CREATION: compactTime(a.createdAt),
    DT_LAST_UPDATE: compactTime(a.createdAt),
    USER_ID_CREATION: a.userId,
    USER_ID_LAST_UPDATE: a.userId,
  }
}

const attachmentsWhere = (relationKey: string | null, parentId: number, folderId: number | null) =>
  defaultFixture.attachments.filter((a) => a.relationKey === relationKey && a.parentId === parentId && a.folderId === folderId).map(attachmentRecord)

/** Top level of master row 1: a file and a folder. */
export const masterAttachments = attachmentsWhere(null, 1, null)

/** The folder of master row 1, and its contents. */
export const PHOTOS_FOLDER_ID = (defaultFixture.attachments.find((a) => a.relationKey === null && a.parentId === 1 && a.isFolder) as FixtureAttachment).id
export const folderAttachments = attachmentsWhere(null, 1, PHOTOS_FOLDER_ID)

/** The file attached to the first detail row of master row 1. */
export const detailAttachments = attachmentsWhere(RELATION_KEY, 1, null)

/** Ids of attachments to download: a master row's file, and a detail row's. */
export const INVOICE_ID = (masterAttachments.find((a) => a.IsFolder === false) as { Id: number }).Id
export const SPEC_ID = (detailAttachments[0] as { Id: number }).Id

export const actionRequest = {
  actionId: ACTION_OK,
  parametersMap: [
    { Name: 'ProcedureName', Value: recalculate.procedureName },
    { Name: 'Parameters', Value: [{ key: recalculate.effect?.rowsFromParameter ?? 'Ids', value: '1,2' }] },
  ],
}

export const actionFailingRequest = {
  actionId: ACTION_FAILS,
  parametersMap: [{ Name: 'ProcedureName', Value: closePeriod.procedureName }],
}

export const actionResult = { Message: recalculate.message, IsSuccessful: recalculate.isSuccessful, Result: recalculate.result, IsAsync: recalculate.isAsync }
export const actionFailedResult = {
  Message: closePeriod.message,
  IsSuccessful: closePeriod.isSuccessful,
  Result: closePeriod.result,
  IsAsync: closePeriod.isAsync,
}

export const tokenResult = { access_token: SESSION_TOKEN, expires_in: 3600, 'token-type': '', scope: '' }

export const legacyTokenResult = {
  Domain: {
    Id: WORKSPACE_ID,
    Name: salesWorkspace.name,
    CreationDate: `/Date(${Date.parse(salesWorkspace.createdAt)})/`,
    IsActive: true,
    IsAdmin: adminUser.canWrite,
    IsBusinessDomain: true,
  },
  EncryptedCredentials: null,
  RedirectPage: 0,
  SessionToken: SESSION_TOKEN,
}

/** The next three values of the Orders master storage's Identity field in a fresh mock. */
export const reservedIdentities = [nextMasterIdentity, nextMasterIdentity + 1, nextMasterIdentity + 2]

/** A problem body as the mock writes it, for error examples. */
export function problemExample(code: ProblemCode, detail: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { status, title } = PROBLEMS[code]
  return { type: problemType(code), title, status, detail, code, ...extra }
}
