/**
 * Domain types of the in-memory store. Nothing here knows about HTTP or about the wire
 * spellings of a product release; operations translate between the two.
 */

import type { FieldType } from '../../wire/type-forms.ts'
import type { PrimaryKeys } from './primary-keys.ts'

export type { FieldType } from '../../wire/type-forms.ts'

/** A value a row field can hold (a Multiselection holds an array; booleans only before conversion). */
export type FieldValue = string | number | boolean | null | ReadonlyArray<string | number>

/** How a table's column holds its values: numbers (Booleans and dates too), text, or Multiselection arrays. */
export type ColumnKind = 'number' | 'text' | 'array'

/** One column's values in a chunk: numbers with NaN for null, or references (strings, arrays) with null for none. */
export type ChunkValues = Float64Array | FieldValue[]

/**
 * Rows of one table by column, as the durable state writes and reads them: `count` rows in
 * ascending Id order, `columns[i]` the values of the table's i-th column for those rows (at least
 * `count` long). A table image makes them (engine/table.ts), `Table.appendChunk` puts them back; no
 * row object is built either way.
 */
export interface ColumnChunk {
  count: number
  columns: ChunkValues[]
}

/** A row as the store keeps it: system fields plus user fields, keyed by physical field name. */
export interface Row {
  Id: number
  /** Row version, a growing integer below 2^53 (read results carry it as base64 of 8 big-endian bytes). */
  TIMESTAMP: number
  [field: string]: FieldValue
}

export interface FieldDef {
  name: string
  type: FieldType
  /** Numeric only: decimal places the application's format allows (0: integers); absent, any. */
  decimals?: number
  /** Optional JSON Schema fragment used to generate realistic values (`--rows`). */
  generate?: Record<string, unknown>
  /** The application's own rules for the field, which a save must keep (src/store/field-rules.ts). */
  rules?: FieldRules
}

/**
 * An application's rules for one field, as its designer set them (the product's reference, Save
 * rows: a failed save names the row and the table). Checked by every save; see field-rules.ts.
 */
export interface FieldRules {
  /** A create must give a value other than null and ''; an update may leave the field out but not set it to null or ''. */
  required?: boolean
  /** Numeric-valued types: the smallest value allowed. */
  minimum?: number
  /** Numeric-valued types: the largest value allowed. */
  maximum?: number
  /** Text types: the most characters allowed. */
  maxLength?: number
  /** No two rows of the table hold the same non-null value. */
  unique?: boolean
  /** No save may write the field (a create may send it null); only the fixture and actions set it. */
  readOnly?: boolean
  /** The only values allowed (null aside, which `required` governs). */
  allowed?: FieldValue[]
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
  /** How a save or delete writes its rows: all in one operation (default) or each master row on its own. */
  saveMode: SaveMode
}

export type SaveMode = 'all-or-nothing' | 'per-row'

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
  /** IANA name of the installation's time zone: the wall clock of the DateTime values the mock stamps. */
  timeZone: string
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
  /**
   * A file recorded without its bytes (a capture without `--attachments`): its size, and downloads
   * answer this many placeholder bytes instead of a payload.
   */
  placeholderBytes?: number
  createdAt: string
  userId: number
}

export interface ActionDef {
  id: string
  /** Application the action belongs to; absent = runs in any application. */
  applicationId?: string
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
  /** Rows to generate into one application when the store loads (`--rows`); made again at each reset. */
  generated?: GeneratedRows
  /** Where each storage's sequences stand, by storage Id (a state export keeps them); else after the largest values. */
  sequences?: Sequences
  /**
   * Rows locked as if another user were editing them, per application id: `master` and detail
   * relation keys to row Ids. A save or delete touching one refuses it (LOCKED, `LockedItems`).
   */
  locks?: Locks
  /** What loading changed in an older fixture (type names, value forms), said once at start. */
  notices?: string[]
  /**
   * Rows held by column instead of in `data` (a state file's snapshot): the store reads them table
   * by table as it loads, and again at each reset. Never part of a fixture file.
   */
  stored?: StoredRows
}

/**
 * Rows a fixture holds by column (a state file's snapshot), read table by table when the store
 * loads. src/state reads them from its file; the store knows only this.
 */
export interface StoredRows {
  /** Rows of a storage (none for a storage it does not hold). */
  rowsOf(storageId: string): number
  /** A storage's rows in ascending Id order, in the columns asked for (a table's, in its order; a column it lacks is null). */
  chunks(storageId: string, columns: readonly string[], kinds: readonly ColumnKind[]): Iterable<ColumnChunk>
  readonly masterRows: number
  readonly detailRows: number
  /** The next row version (TIMESTAMP) when the rows were written. */
  readonly nextVersion: number
  /** Where each storage's ROW_ORDER stood, by storage Id (a fixture's sequences do not say). */
  readonly nextRowOrders: Readonly<Record<string, number>>
}

/** Locked row Ids per application id, by `master` or relation key. */
export type Locks = Record<string, Record<string, number[]>>

/** Per storage Id, the next database Id and the next Identity value to hand out. */
export type Sequences = Record<string, { nextId?: number; nextIdentity?: number }>

/** How many rows to add, and from which seed. */
export interface GeneratedRows {
  /** Master rows to add. */
  rows: number
  seed: number
  /** The application that gets them; default: the fixture's first (Orders in the default fixture). */
  applicationId?: string
  /** Detail rows per master row, in each detail table. Default 2. */
  detailsPerMaster?: number
}

/** Where generated rows go, table by table, each table's rows in ascending Id order (masters first). */
export interface GeneratedRowSink {
  master(row: Row): void
  detail(relationKey: string, row: Row): void
}

/**
 * What makes the rows a fixture's `generated` asks for (src/fixtures/generate.ts has the one the
 * mock uses). The store is handed it (createStore) rather than importing it: the generator loads
 * json-schema-faker, and the store stays pure and below the fixtures.
 */
export interface RowGenerator {
  /** The application the rows go to; throws a RangeError for options it cannot use. */
  target(fixture: Fixture, options: GeneratedRows): ApplicationDef
  /**
   * Hands the rows to `sink` one at a time (one row object per table, reused: copy what you keep),
   * pausing every few thousand rows: the store runs it to the end, or a slice at a time (a reset
   * made in slices).
   */
  emit(fixture: Fixture, options: GeneratedRows, sink: GeneratedRowSink): Iterable<void>
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

/**
 * The data epoch (`Store.epoch()`) a write was received under: a write stamped with an older one is
 * refused (epoch.ts's DataReplaced), nothing written. Absent: the current epoch.
 */
export interface Stamped {
  epoch?: number
}

export interface SaveCommand extends Stamped {
  applicationId: string
  userId: number
  masters: Array<{
    row: WireRow
    details: Array<{ relationKey: string; rows: WireRow[] }>
  }>
}

export interface DeleteCommand extends Stamped {
  applicationId: string
  /** relationKey null: master rows. */
  groups: Array<{ relationKey: string | null; rows: Array<{ Id: number; TIMESTAMP: number | null }> }>
}

/** One business problem of a save or delete (stale TIMESTAMP, unknown Id, duplicate identity value, ...). */
export interface ReturnState {
  code: ReturnStateCode
  message: string
  relationKey: string | null
  id: number
  field?: string
  /** Name of the storage the row is in; filled in for every problem whose table is known. */
  table?: string
  /** How the product names the row: its Identity value when it has one, else its Id (a temporary Id for a new row). */
  row?: number
}

export type ReturnStateCode =
  | 'CONCURRENCY'
  | 'NOT_FOUND'
  | 'DUPLICATE_KEY'
  | 'DUPLICATE_TEMPORARY_ID'
  | 'DUPLICATE_ROW'
  | 'UNKNOWN_FIELD'
  | 'INVALID_VALUE'
  | 'UNKNOWN_RELATION_KEY'
  /** The row is locked (as by another user): not written, counted in LockedItems. */
  | 'LOCKED'
  /** The application's field rules (FieldRules), one code each. */
  | 'REQUIRED'
  | 'READ_ONLY'
  | 'BELOW_MINIMUM'
  | 'ABOVE_MAXIMUM'
  | 'TOO_LONG'
  | 'NOT_ALLOWED'
  | 'NOT_UNIQUE'

// ---------------------------------------------------------------------------------------------
// Additions for the store's operations (queries, save and delete outcomes, error values).
// ---------------------------------------------------------------------------------------------

/** Codes of the store's error values for reads and look-ups (save and delete use `ReturnState`). */
export type StoreErrorCode =
  | 'BAD_QUERY'
  | 'BAD_FILTER'
  | 'UNKNOWN_FIELD'
  | 'UNKNOWN_RELATION_KEY'
  | 'UNKNOWN_APPLICATION'
  | 'UNKNOWN_STORAGE'
  | 'UNKNOWN_ACTION'
  | 'UNKNOWN_ROW'
  | 'INVALID_COUNT'

/** A failure returned as a value: `message` says exactly what was not understood or not found. */
export interface StoreError<C extends StoreErrorCode = StoreErrorCode> {
  error: C
  message: string
}

export type { OrderItem, ParsedQuery, QueryError } from '../../wire/query-string.ts'

/** Field name to type, system fields included; what a filter or an order may refer to. */
export type FieldLookup = ReadonlyMap<string, FieldType>

/** What a successful save did, in the terms the result object needs. */
export interface SaveResult {
  /** Rows created, masters and details together. */
  created: number
  /** Rows updated, masters and details together (a master sent only to carry new details is not counted). */
  updated: number
  /**
   * PrimaryKeyData: keyed by the temporary master Id as text (`"-1"`), or by the real Id of an
   * existing master that received new detail rows. All values are strings, as the description
   * shows them. Kept as JSON text (`text()`; `toObject()` for the object form).
   */
  primaryKeys: PrimaryKeys
  /** Physical name of the master storage's Identity field (`RowIdentifier`). */
  identityField: string
  /** Name of the master storage (`StorageName`). */
  storageName: string
  /** Real Id of the first master of the request, for `MasterRowLink`; null when no master was sent. */
  firstMasterId: number | null
}

/**
 * Writes a plan decided on; opaque to callers. Applying cannot fail, but it must happen before
 * any other write to the store (the store checks that and throws on a programming error).
 */
export interface StoreChanges {
  readonly kind: 'changes'
  /** Store generation the plan was made against. */
  readonly generation: number
  /** Opaque per-table writes. */
  readonly tables: readonly unknown[]
  /** Next row version after the writes. */
  readonly nextVersion: number
}

/** The outcome of planning a save or a delete: every problem found, or the changes and the result. */
export type PlanOutcome<R> = { ok: false; returnStates: ReturnState[] } | { ok: true; changes: StoreChanges; result: R }

export type SaveOutcome = PlanOutcome<SaveResult>

/**
 * What a save or delete did, once written. `written`: in the per-row save mode, what the rows
 * without problems wrote while others failed.
 */
export type WriteOutcome<R> = { ok: true; result: R } | { ok: false; returnStates: ReturnState[]; written?: R }

/** What a successful delete did. */
export interface DeleteResult {
  /** Rows named in the request and deleted (cascaded detail rows are not counted here). */
  deleted: number
  /** Detail rows deleted because their master was deleted. */
  cascaded: number
}

export type DeleteOutcome = PlanOutcome<DeleteResult>

/** A custom action run as the store sees it. */
export interface ActionCommand extends Stamped {
  applicationId: string
  actionId: string
  userId: number
  /** The `Parameters` entry of `parametersMap`, as key/value pairs. */
  parameters: Array<{ key: string; value: string }>
}

/** A custom action's result, plus which master rows its effect changed. */
export interface ActionOutcome {
  message: string
  isSuccessful: boolean
  result: string
  isAsync: boolean
  /** Master row Ids the action's effect changed (empty when it has none). */
  changedIds: number[]
}

/** An attachment to add (the control plane's upload): the store assigns the Id and the time. */
export type NewAttachment = Omit<AttachmentDef, 'id' | 'createdAt' | 'file' | 'description'> & { description?: string }

/**
 * A committed write as the state file's change log keeps it, one JSON line each: what the write
 * left behind (whole rows, deleted Ids, where the sequences stand), never the request that made
 * it, so replaying it needs no clock, no randomness and no checks. Every field is an absolute
 * value, so a record means the same however often it is read.
 */
export type ChangeRecord =
  /** A save, delete or custom action: per storage the rows written, the Ids deleted and [nextId, nextIdentity, nextRowOrder]; the next row version. */
  | { v: number; t: Array<{ s: string; p: Row[]; d: number[]; n: [number, number, number] }> }
  /** An identity reservation: the storage's sequence moved to `i`. */
  | { s: string; i: number }
  /** An upload: the files and folders it added, their bytes in base64. */
  | { u: RecordedAttachment[] }
  /** A lock or unlock: every lock held after it, in the fixture's form (null: none). */
  | { l: Locks | null }

/** An attachment as a change record holds it: its bytes in base64. */
export type RecordedAttachment = Omit<AttachmentDef, 'content' | 'file'> & { content?: string }
