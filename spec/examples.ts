/**
 * Example values used across the document. They use the default fixture's identifiers
 * (see the project's interface notes) so a reader can paste them against `npm start`.
 * Every value here is checked against its schema by test/spec/document.test.ts.
 */

export const ORGANIZATION = 'acme'
export const ADMIN_USER = 'admin@acme.test'
export const ADMIN_PASSWORD = 'admin-pass'
export const CLIENT_ID = 'appdataapiv1'
export const LEGACY_CLIENT_ID = 'appdata-legacy'
export const SCOPE = 'openid apiv1 nosession'
export const WORKSPACE_ID = '6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b70'
export const APPLICATION_ID = 'a1b2c3d4-0000-4000-8000-000000000001'
export const MASTER_STORAGE_ID = '5e7d0c1a-1111-4111-8111-000000000001'
export const IDENTITY_FIELD = 'IdRow'
export const RELATION_KEY = 'OrderLines'
export const ACTION_OK = 'c0ffee00-0000-4000-8000-000000000001'
export const ACTION_FAILS = 'c0ffee00-0000-4000-8000-000000000002'
export const EMAIL_PROVIDER_ID = 'e0000000-0000-4000-8000-000000000001'
/** An opaque session token; its format is the service's business. */
export const SESSION_TOKEN = 'q8ZbN3v1Tj0sXc7LmR2yKd5wHf9PaE4u'

/** Row versions as read results carry them: base64 of the 8-byte big-endian integer. */
export const ROW_VERSION = { 1001: 'AAAAAAAAA+k=', 1002: 'AAAAAAAAA+o=', 2001: 'AAAAAAAAB9E=', 2002: 'AAAAAAAAB9I=' } as const

const system = (id: number, version: string, order: number) => ({
  Id: id,
  TIMESTAMP: version,
  CT_ATTACHMENTS: null,
  DT_CREATION: '2024-03-01T09:15:00Z',
  DT_LAST_UPDATE: '2024-03-04T16:40:12Z',
  ROW_ORDER: order,
  USER_ID_CREATION: 1,
  USER_ID_LAST_UPDATE: 1,
})

/** Two master rows of the Orders application. */
export const masterRows = [
  { ...system(1, ROW_VERSION[1001], 1), CT_ATTACHMENTS: 3, IdRow: 1, Customer: 'Northwind Traders', Amount: 1250.5, Status: 'Open' },
  { ...system(2, ROW_VERSION[1002], 2), IdRow: 2, Customer: 'Blue Harbor Foods', Amount: 310, Status: 'Open' },
]

/** The two detail rows (relation key OrderLines) of master row 1. */
export const detailRows = [
  { ...system(1, ROW_VERSION[2001], 1), CT_ATTACHMENTS: 1, IdRow: 1, MasterId: 1, Product: 'Steel bracket', Quantity: 40, UnitPrice: 12.5 },
  { ...system(2, ROW_VERSION[2002], 2), IdRow: 2, MasterId: 1, Product: 'Hex bolt M8', Quantity: 500, UnitPrice: 0.35 },
]

/** A count result: 25 master rows match. */
export const countResult = { Timestamp: 1709543112000, Items: [{ _FieldCount_: 25 }] }

/** Counters and fields every save or delete result carries, for a successful call. */
const resultBase = {
  ReturnStates: [],
  MasterToRecalculate: [],
  CreatedItems: 0,
  UpdatedItems: 0,
  DeletedItems: 0,
  LockedItems: 0,
  MasterRowLink: null,
  RowIdentifier: IDENTITY_FIELD,
  StorageName: 'Orders',
  SavedItems: null,
}

/** Create one master row with two detail rows. */
export const saveCreate = {
  Rows: [
    {
      Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: 'Contoso Retail', Amount: 99.9, Status: 'Open' },
      Details: [
        {
          RelationKey: RELATION_KEY,
          Rows: [
            { Id: -1, IdRow: null, TIMESTAMP: null, Product: 'Steel bracket', Quantity: 4, UnitPrice: 12.5 },
            { Id: -2, IdRow: null, TIMESTAMP: null, Product: 'Hex bolt M8', Quantity: 100, UnitPrice: 0.35 },
          ],
        },
      ],
    },
  ],
}

export const saveCreateResult = {
  ...resultBase,
  IsSaveSuccessfully: true,
  ReturnData: { PrimaryKeyData: { '-1': { newKeys: { Id: '26', IdRow: '26', 'OrderLines:-1': '51', 'OrderLines:-2': '52' } } } },
  CreatedItems: 3,
}

/** Update one field of master row 1 and the quantity of its first detail row. */
export const saveUpdate = {
  Rows: [
    {
      Row: { Id: 1, TIMESTAMP: 1001, Status: 'Shipped' },
      Details: [{ RelationKey: RELATION_KEY, Rows: [{ Id: 1, TIMESTAMP: 2001, Quantity: 48 }] }],
    },
  ],
}

export const saveUpdateResult = {
  ...resultBase,
  IsSaveSuccessfully: true,
  ReturnData: { PrimaryKeyData: {} },
  UpdatedItems: 2,
}

/** A save refused because row 1 changed since it was read; nothing was written. */
export const saveStaleResult = {
  ...resultBase,
  IsSaveSuccessfully: false,
  ReturnStates: [
    { Code: 'CONCURRENCY', Message: 'Row 1 was changed after it was read; read it again and resend with the new TIMESTAMP.', RelationKey: null, Id: 1, Field: 'TIMESTAMP' },
  ],
  ReturnData: { PrimaryKeyData: {} },
}

/** The same update as answered by a release below 3.0. */
export const saveLegacyResult = {
  ...resultBase,
  IsSaveSuccesfully: true,
  ReturnData: { PrimaryKeyData: {} },
  UpdatedItems: 1,
}

/** Delete master row 2 and detail row 2 (of master row 1) in one call. */
export const deleteCurrent = [
  { RelationKey: null, Rows: [{ Row: { Id: 2, TIMESTAMP: 1002 } }] },
  { RelationKey: RELATION_KEY, Rows: [{ Row: { Id: 2, TIMESTAMP: 2002 } }] },
]

export const deleteLegacy = [{ Rows: [{ Row: { Id: 2, TIMESTAMP: 1002 }, Details: [] }] }]

export const deleteResult = { ...resultBase, IsSaveSuccessfully: true, DeletedItems: 2 }
export const deleteLegacyResult = { ...resultBase, IsSaveSuccesfully: true, DeletedItems: 1 }

const attachmentBase = { DT_CREATION: 20240301091500, DT_LAST_UPDATE: null, USER_ID_CREATION: 1, USER_ID_LAST_UPDATE: 1 }

/** Top level of master row 1: a file and a folder. */
export const masterAttachments = [
  { ...attachmentBase, Id: 1, ParentId: 1, FolderId: null, IsFolder: false, Name: 'invoice.pdf', Description: 'Invoice for order 1', TypeImage: 'application/pdf' },
  { ...attachmentBase, Id: 2, ParentId: 1, FolderId: null, IsFolder: true, Name: 'Photos', Description: 'Delivery photos', TypeImage: '' },
]

/** Contents of the Photos folder (Id 2) of master row 1. */
export const folderAttachments = [
  { ...attachmentBase, Id: 3, ParentId: 1, FolderId: 2, IsFolder: false, Name: 'front.jpg', Description: 'Front of the parcel', TypeImage: 'image/jpeg' },
  { ...attachmentBase, Id: 4, ParentId: 1, FolderId: 2, IsFolder: false, Name: 'back.jpg', Description: 'Back of the parcel', TypeImage: 'image/jpeg' },
]

/** The file attached to the first detail row of master row 1. */
export const detailAttachments = [
  { ...attachmentBase, Id: 5, ParentId: 1, FolderId: null, IsFolder: false, Name: 'spec.txt', Description: 'Part specification', TypeImage: 'text/plain' },
]

export const actionRequest = {
  actionId: ACTION_OK,
  parametersMap: [
    { Name: 'ProcedureName', Value: 'usp_RecalculateTotals' },
    { Name: 'Parameters', Value: [{ key: 'OrderId', value: '1' }, { key: 'IncludeLines', value: 'true' }] },
  ],
}

export const actionFailingRequest = {
  actionId: ACTION_FAILS,
  parametersMap: [{ Name: 'ProcedureName', Value: 'usp_CloseQuarter' }],
}

export const actionResult = { Message: 'Totals recalculated for order 1.', IsSuccessful: true, Result: '1', IsAsync: false }
export const actionFailedResult = { Message: 'The quarter cannot be closed while orders are open.', IsSuccessful: false, Result: '', IsAsync: false }

export const tokenResult = { access_token: SESSION_TOKEN, expires_in: 3600, 'token-type': '', scope: '' }

export const legacyTokenResult = {
  Domain: {
    Id: WORKSPACE_ID,
    Name: 'Acme Operations',
    CreationDate: '/Date(1704067200000)/',
    IsActive: true,
    IsAdmin: true,
    IsBusinessDomain: false,
  },
  EncryptedCredentials: null,
  RedirectPage: 0,
  SessionToken: SESSION_TOKEN,
}
