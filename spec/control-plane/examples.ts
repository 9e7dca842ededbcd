/**
 * Example values of the control-plane document. Identifiers come from spec/examples.ts, the default
 * fixture's, so the examples line up with what the mock serves after `npm start`.
 */
import type { ExampleObject } from 'openapi3-ts/oas31'
import {
  ADMIN_PASSWORD,
  ADMIN_USER,
  APPLICATION_ID,
  CLIENT_ID,
  EMAIL_PROVIDER_ID,
  IDENTITY_FIELD,
  LEGACY_CLIENT_ID,
  MASTER_STORAGE_ID,
  ORGANIZATION,
  WORKSPACE_ID,
} from '../examples.ts'

export const ISO_NOW = '2026-11-01T09:00:00.000Z'

export const summaryExample = { organization: ORGANIZATION, applications: 1, users: 2, masterRows: 25, detailRows: 50, attachments: 5 }

/** A small fixture that passes the loader: one user, one application without detail tables, two rows. */
export const MINIMAL_FIXTURE = {
  organization: {
    physicalName: ORGANIZATION,
    clientId: CLIENT_ID,
    legacyClientId: LEGACY_CLIENT_ID,
    users: [{ id: 1, email: ADMIN_USER, password: ADMIN_PASSWORD, workspaceIds: [WORKSPACE_ID], canWrite: true }],
    workspaces: [{ id: WORKSPACE_ID, name: 'Sales', createdAt: '2023-11-06T09:30:00.000Z', applicationIds: [APPLICATION_ID] }],
  },
  applications: [
    {
      id: APPLICATION_ID,
      name: 'Orders',
      master: {
        id: MASTER_STORAGE_ID,
        name: 'Orders',
        identityField: IDENTITY_FIELD,
        fields: [
          { name: 'Customer', type: 'string' },
          { name: 'Amount', type: 'number' },
        ],
      },
    },
  ],
  data: {
    [APPLICATION_ID]: {
      masters: [
        { Id: 1, IdRow: 1001, Customer: 'Initech', Amount: 120.5 },
        { Id: 2, IdRow: 1002, Customer: 'Globex', Amount: 99 },
      ],
    },
  },
}

export const attachmentExample = {
  Id: 6,
  ParentId: 2,
  FolderId: null,
  IsFolder: false,
  Name: 'delivery-note.pdf',
  Description: '',
  TypeImage: 'application/pdf',
  DT_CREATION: 20261101090000,
  DT_LAST_UPDATE: 20261101090000,
  USER_ID_CREATION: 1,
  USER_ID_LAST_UPDATE: 1,
}

export const emailExample = {
  id: 1,
  queuedAt: ISO_NOW,
  workspaceId: WORKSPACE_ID,
  providerId: EMAIL_PROVIDER_ID,
  from: ADMIN_USER,
  to: ['buyer@northwind.example'],
  subject: 'Order 1 has shipped',
  body: 'Your order left our warehouse today.',
}

export const journalEntryExample = {
  seq: 12,
  time: ISO_NOW,
  method: 'POST',
  url: '/ExplorerApi/api/items/save',
  path: '/ExplorerApi/api/items/save',
  operationId: 'saveItems',
  user: 'admin@acme.test',
  status: 200,
  durationMs: 3.2,
  fault: null,
  stub: null,
  abandoned: false,
  warnings: [],
}

/** A problem+json example whose `type` is derived from its code, as the mock derives it. */
export const problemExample = (status: number, code: string, title: string, detail: string): ExampleObject => ({
  summary: title,
  value: { type: `urn:appdata-kit:problem:${code.toLowerCase().replaceAll('_', '-')}`, title, status, detail, code },
})
