/**
 * Domain types of the in-memory store. Nothing here knows about HTTP or about the wire
 * spellings of a product release; operations translate between the two.
 */

/** A value a row field can hold. */
export type FieldValue = string | number | boolean | null

/** A row as the store keeps it: system fields plus user fields, keyed by physical field name. */
export interface Row {
  Id: number
  /** Row version, a growing integer below 2^53 (read results carry it as base64 of 8 big-endian bytes). */
  TIMESTAMP: number
  [field: string]: FieldValue
}

export type FieldType = 'string' | 'number' | 'integer' | 'boolean' | 'date-time'

export interface FieldDef {
  name: string
  type: FieldType
  /** Optional JSON Schema fragment used to generate realistic values (`--rows`). */
  generate?: Record<string, unknown>
}

export interface StorageDef {
  /** Storage GUID, used by Get Identities. */
  id: string
  name: string
  /** Physical name of the Identity field (for example `IdRow`). */
  identityField: string
  fields: FieldDef[]
}

export interface DetailDef {
  relationKey: string
  /** Field of the detail row that holds the master row's Id (for example `MasterId`). */
  masterField: string
  storage: StorageDef
}

export interface ApplicationDef {
  id: string
  name: string
  master: StorageDef
  details: DetailDef[]
}

export interface UserDef {
  id: number
  email: string
  password: string
  /** Workspaces the user belongs to. */
  workspaceIds: string[]
  canWrite: boolean
  /** Field names hidden from this user, per application id. */
  hiddenFields: Record<string, string[]>
}

export interface WorkspaceDef {
  id: string
  name: string
  /** `/Date(ms)/` in the legacy sign-in result comes from this. */
  createdAt: string
  applicationIds: string[]
}

export interface OrganizationDef {
  physicalName: string
  clientId: string
  legacyClientId: string
  users: UserDef[]
  workspaces: WorkspaceDef[]
}

export interface AttachmentDef {
  id: number
  applicationId: string
  /** null for a master row's attachment, the relation key for a detail row's. */
  relationKey: string | null
  parentId: number
  folderId: number | null
  isFolder: boolean
  name: string
  description: string
  mediaType: string
  /** Path of the payload under `fixtures/`, or inline bytes after an upload. */
  file?: string
  content?: Uint8Array
  createdAt: string
  userId: number
}

export interface ActionDef {
  id: string
  procedureName: string
  message: string
  isSuccessful: boolean
  result: string
  isAsync: boolean
  /** What the action does to rows, the way a stored procedure would (see fixtures schema). */
  effect?: { set: Record<string, FieldValue>; rowsFromParameter: string }
}

export interface EmailProviderDef {
  id: string
  name: string
  isDefault: boolean
}

/** A fixture after validation, before expansion into live tables. */
export interface Fixture {
  organization: OrganizationDef
  applications: ApplicationDef[]
  /** Rows per application id: masters, and details per relation key. */
  data: Record<string, { masters: Row[]; details: Record<string, Row[]> }>
  attachments: AttachmentDef[]
  actions: ActionDef[]
  emailProviders: EmailProviderDef[]
}

/** Injected sources of time and randomness, so tests are deterministic. */
export interface Deps {
  /** Milliseconds since the epoch. */
  now(): number
  /** Random bytes, for tokens. */
  randomBytes(size: number): Uint8Array
}

/** A row of a save request, as sent (`TIMESTAMP` the integer or null, the Identity field maybe null). */
export type WireRow = Record<string, unknown> & { Id: number }

export interface SaveCommand {
  applicationId: string
  userId: number
  masters: Array<{
    row: WireRow
    details: Array<{ relationKey: string; rows: WireRow[] }>
  }>
}

export interface DeleteCommand {
  applicationId: string
  /** relationKey null: master rows. */
  groups: Array<{ relationKey: string | null; rows: Array<{ Id: number; TIMESTAMP: number | null }> }>
}

/** One business problem of a save or delete (stale TIMESTAMP, unknown Id, duplicate identity value, ...). */
export interface ReturnState {
  code: 'CONCURRENCY' | 'NOT_FOUND' | 'DUPLICATE_KEY' | 'DUPLICATE_TEMPORARY_ID' | 'UNKNOWN_FIELD' | 'INVALID_VALUE' | 'UNKNOWN_RELATION_KEY'
  message: string
  relationKey: string | null
  id: number
  field?: string
}
