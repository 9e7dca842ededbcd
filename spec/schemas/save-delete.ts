/** Save and delete requests and their results, in the current and the pre-3.0 spellings. */
import type { SchemaObject } from 'openapi3-ts/oas31'
import { RANGES } from '../versions.ts'
import { MOCK_DEFINED, PRODUCT_VERSIONS, STRICT_OVERLAY } from '../extensions.ts'
import { schemaRef } from '../refs.ts'

export const SaveDetailGroup: SchemaObject = {
  type: 'object',
  title: 'Detail rows of one relation',
  description:
    'Detail rows saved under their master row, for one Detail Relation Key. Rows are sent as they are, without a `Row` wrapper. ' +
    'Every new detail row may carry `Id` -1, as the published description shows.',
  required: ['RelationKey', 'Rows'],
  properties: {
    RelationKey: {
      type: 'string',
      minLength: 1,
      description: 'Detail Relation Key of the detail table: a name, or a GUID as real installations have them (GUIDs compare without regard to case).',
    },
    Rows: {
      type: 'array',
      items: schemaRef('WriteRow'),
      description:
        "The rows to create or update. The published description shows no empty list: the mock's default mode takes one and saves nothing (with the " +
        'warning EMPTY_DETAIL_GROUP); strict mode refuses it.',
      [MOCK_DEFINED]: 'an empty list is accepted with a warning',
      [STRICT_OVERLAY]: { minItems: 1 },
    },
  },
  additionalProperties: false,
}

export const SaveMaster: SchemaObject = {
  type: 'object',
  title: 'Master row with its detail rows',
  required: ['Row', 'Details'],
  properties: {
    Row: schemaRef('WriteRow'),
    Details: {
      type: 'array',
      description: 'One group per detail table that receives rows; an empty array when no detail row is saved.',
      items: schemaRef('SaveDetailGroup'),
    },
  },
  additionalProperties: false,
}

export const SaveRequest: SchemaObject = {
  type: 'object',
  title: 'Save request',
  description: 'Master rows to create or update, each with the detail rows to create or update under it. The whole request is saved, or none of it.',
  required: ['Rows'],
  properties: { Rows: { type: 'array', minItems: 1, items: schemaRef('SaveMaster') } },
  additionalProperties: false,
}

export const ReturnState: SchemaObject = {
  type: 'object',
  title: 'Save or delete problem',
  [MOCK_DEFINED]: true,
  description:
    "One reason a save or delete was refused. The published description only ever shows `ReturnStates` empty; this shape is the mock's. " +
    "The product's reference (Save rows) says a failed save names the failing row by its row identifier and the table: an entry of a " +
    'lock or a field rule (the codes from `LOCKED` on, below) carries the table (`Table`) and the row (`Row`: its Identity value, else ' +
    'its Id or temporary Id), beside `Id` and `RelationKey`, and the field (`Field`) of a rule; entries of the other codes keep the ' +
    'shape they had before these were added (`Id`, `RelationKey`, and `Field` when one field is at fault). ' +
    'Codes the mock uses: `CONCURRENCY` (TIMESTAMP is stale, or null in a delete), `NOT_FOUND` (no row with that Id), `DUPLICATE_KEY` ' +
    '(identity value already taken), `DUPLICATE_TEMPORARY_ID` (two new masters with one temporary Id), `DUPLICATE_ROW` (one existing row ' +
    'named twice), `UNKNOWN_FIELD`, `INVALID_VALUE`, `UNKNOWN_RELATION_KEY`; `LOCKED` (the row is locked by another user, counted in ' +
    "`LockedItems`); and one per field rule of the application (a fixture field's `rules`): `REQUIRED`, `READ_ONLY`, `BELOW_MINIMUM`, " +
    '`ABOVE_MAXIMUM`, `TOO_LONG`, `NOT_ALLOWED`, `NOT_UNIQUE`.',
  required: ['Code', 'Message', 'RelationKey', 'Id'],
  properties: {
    Code: { type: 'string', description: 'What went wrong, as a stable upper-case word.', examples: ['CONCURRENCY', 'REQUIRED', 'LOCKED'] },
    Message: { type: 'string', description: 'The problem in words, for people.' },
    RelationKey: { type: ['string', 'null'], description: 'Detail Relation Key of the row concerned; null for a master row.' },
    Table: { type: 'string', description: 'Codes of locks and field rules: name of the storage the row is in (`StorageName` for a master row).' },
    Id: { type: 'integer', description: 'Id of the row concerned, as sent (temporary Ids are negative).' },
    Row: {
      type: 'integer',
      description:
        "Codes of locks and field rules: the row as the product names a failed row, its Identity value (the `RowIdentifier` field) when it has one, else its Id as sent (a new row's temporary Id).",
    },
    Field: { type: 'string', description: 'Field concerned, when the problem is about one field.' },
  },
}

export const PrimaryKeyData: SchemaObject = {
  type: 'object',
  title: 'Assigned keys',
  description:
    'Keys the service assigned to created rows, grouped by master row: one entry per master row of the request that ' +
    'gained new keys, named after the `Id` it was sent with (the negative temporary number for a new master row).',
  propertyNames: { pattern: '^-?[0-9]+$' },
  additionalProperties: {
    type: 'object',
    required: ['newKeys'],
    properties: {
      newKeys: {
        type: 'object',
        [MOCK_DEFINED]: true,
        description:
          "Assigned values as strings. The mock uses these names: `Id` for the new master row Id, the storage's Identity " +
          "field name (for example `IdRow`) for its identity value, and for each new detail row's Id " +
          "`<RelationKey>[<position>]`, its 0-based position among the master's rows of that relation key in the request, " +
          'counted across all its groups of that key and including rows sent to update (for example `OrderLines[1]`), plus ' +
          '`<RelationKey>:<temporary Id>` (for example `OrderLines:-2`) when no other new row of that master and relation key ' +
          'has the same temporary Id.',
        additionalProperties: { type: 'string', pattern: '^-?[0-9]+$' },
      },
    },
  },
}

export const ReturnData: SchemaObject = {
  type: 'object',
  title: 'Save return data',
  required: ['PrimaryKeyData'],
  properties: { PrimaryKeyData: schemaRef('PrimaryKeyData') },
}

/** Fields every save or delete result shares; `flag` is the success flag's spelling. */
function result(flag: string, withReturnData: boolean): Pick<SchemaObject, 'required' | 'properties'> {
  const counter = (what: string): SchemaObject => ({ type: 'integer', minimum: 0, description: `Number of rows ${what}.` })
  return {
    required: [
      flag,
      'ReturnStates',
      ...(withReturnData ? ['ReturnData'] : []),
      'MasterToRecalculate',
      'CreatedItems',
      'UpdatedItems',
      'DeletedItems',
      'LockedItems',
      'MasterRowLink',
      'RowIdentifier',
      'StorageName',
      'SavedItems',
    ],
    properties: {
      [flag]: { type: 'boolean', description: 'True when the whole request was carried out; false when it was refused and nothing changed.' },
      ReturnStates: { type: 'array', description: 'Why the request was refused, one entry per problem; empty on success.', items: schemaRef('ReturnState') },
      ...(withReturnData ? { ReturnData: schemaRef('ReturnData') } : {}),
      MasterToRecalculate: {
        type: 'array',
        description: 'Master rows whose computed values need recalculating. The published description only shows it empty and leaves its items undescribed.',
        items: {},
      },
      CreatedItems: counter('created'),
      UpdatedItems: counter('updated'),
      DeletedItems: counter('deleted'),
      LockedItems: {
        type: 'integer',
        minimum: 0,
        description:
          'Number of rows that were locked by someone else. The mock counts each locked row the request touched once, with a ' +
          '`ReturnStates` entry of Code `LOCKED` naming it; the row is not written, and whether the rest is follows the save mode.',
        [MOCK_DEFINED]: 'what counts as touching a locked row',
      },
      MasterRowLink: { type: ['string', 'null'], description: 'Link that opens the master row, when the service provides one.' },
      RowIdentifier: { type: ['string', 'null'], description: "Name of the storage's Identity field (for example `IdRow`)." },
      StorageName: { type: ['string', 'null'], description: 'Name of the master storage.' },
      SavedItems: { type: ['array', 'null'], description: 'Always null in the published description.', items: {} },
    },
  }
}

export const SaveResult: SchemaObject = {
  type: 'object',
  title: 'Save result',
  [PRODUCT_VERSIONS]: RANGES.current,
  description:
    "Outcome of a save. A refused save (stale TIMESTAMP, unknown Id, duplicate identity value, a value in no form of its field's type, ...) " +
    "still answers 200, with `IsSaveSuccessfully` false. An application whose designer chose to save each row on its own (the mock's " +
    '`saveMode: "per-row"`) writes the rows without problems and reports the others in `ReturnStates` (their `Id` and `RelationKey`); ' +
    "the counters and `PrimaryKeyData` then say what was written, and `IsSaveSuccessfully` is true only when every row was saved (the mock's choice).",
  [MOCK_DEFINED]: 'IsSaveSuccessfully in the per-row save mode',
  ...result('IsSaveSuccessfully', true),
}

export const SaveResultLegacy: SchemaObject = {
  type: 'object',
  title: 'Save result (before 3.0)',
  [PRODUCT_VERSIONS]: RANGES.legacy,
  description: 'Outcome of a save on releases below 3.0: as the current result, with the success flag spelt `IsSaveSuccesfully`.',
  ...result('IsSaveSuccesfully', true),
}

export const DeleteResult: SchemaObject = {
  type: 'object',
  title: 'Delete result',
  [PRODUCT_VERSIONS]: RANGES.current,
  description: 'Outcome of a delete: the save result without `ReturnData`.',
  ...result('IsSaveSuccessfully', false),
}

export const DeleteResultLegacy: SchemaObject = {
  type: 'object',
  title: 'Delete result (before 3.0)',
  [PRODUCT_VERSIONS]: RANGES.legacy,
  description: 'Outcome of a delete on releases below 3.0, with the success flag spelt `IsSaveSuccesfully`.',
  ...result('IsSaveSuccesfully', false),
}

export const DeleteRequest: SchemaObject = {
  type: 'array',
  title: 'Delete request',
  [PRODUCT_VERSIONS]: RANGES.all,
  [MOCK_DEFINED]: 'accepted below 3.0 too (with the warning CURRENT_DELETE_BODY), and a group without RelationKey (warning DELETE_GROUP_WITHOUT_RELATION_KEY)',
  // Strict mode takes this body where the description shows it, from 3.0 only.
  [STRICT_OVERLAY]: { [PRODUCT_VERSIONS]: RANGES.current },
  description:
    'Rows to delete, grouped by table: `RelationKey` null for master rows, a Detail Relation Key for detail rows. One request may hold several groups. ' +
    'The published description shows this body for current releases; the mock also takes it below 3.0, and reads a group that leaves `RelationKey` out as master rows, each with a warning.',
  minItems: 1,
  items: {
    type: 'object',
    required: ['Rows'],
    [STRICT_OVERLAY]: { required: ['RelationKey', 'Rows'] },
    properties: {
      RelationKey: {
        type: ['string', 'null'],
        description:
          'Null for master rows; the Detail Relation Key for detail rows. An empty text reads as null (with the warning EMPTY_RELATION_KEY; strict mode refuses it).',
        [STRICT_OVERLAY]: { minLength: 1 },
      },
      Rows: {
        type: 'array',
        description: 'The rows to delete. An empty list deletes nothing (with the warning EMPTY_DELETE_GROUP; strict mode refuses it).',
        [STRICT_OVERLAY]: { minItems: 1 },
        items: { type: 'object', required: ['Row'], properties: { Row: schemaRef('RowKey') }, additionalProperties: false },
      },
    },
    additionalProperties: false,
  },
}

export const DeleteRequestLegacy: SchemaObject = {
  type: 'array',
  title: 'Delete request (older form)',
  [PRODUCT_VERSIONS]: RANGES.all,
  [MOCK_DEFINED]: 'accepted from 3.0 too (with the warning LEGACY_DELETE_BODY)',
  // The description calls it the older variant: strict mode takes it below 3.0 only.
  [STRICT_OVERLAY]: { [PRODUCT_VERSIONS]: RANGES.legacy },
  description:
    'Master rows to delete, in the older shape: groups without a relation key, each row with an empty `Details` array. The published description ' +
    'calls it the older variant without saying that a release dropped it, so the mock takes it on every release (from 3.0 with a warning).',
  minItems: 1,
  items: {
    type: 'object',
    required: ['Rows'],
    properties: {
      Rows: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['Row', 'Details'],
          properties: {
            Row: schemaRef('RowKey'),
            Details: { type: 'array', maxItems: 0, items: { description: 'None: the array is always empty.' }, description: 'Always empty.' },
          },
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  },
}
