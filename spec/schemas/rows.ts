/** Schemas of application rows as read (ReadRow) and as written (WriteRow), and the row key used by delete. */
import type { SchemaObject } from 'openapi3-ts/oas31'
import { schemaRef } from '../refs.ts'
import { MOCK_DEFINED } from '../extensions.ts'

/** A value a user-defined field can hold; the set of fields depends on the application. */
export const scalarValue: SchemaObject = {
  type: ['string', 'number', 'boolean', 'null'],
  description: 'Value of a user-defined field. Which fields exist, and their types, depend on the application.',
}

const nullableUser: SchemaObject = {
  type: ['integer', 'string', 'null'],
  [MOCK_DEFINED]: 'type',
  description:
    'User who created or last changed the row: a user Id, or a name on installations that store names. The published description says only ' +
    '"nullable"; the mock sends the user\'s Id.',
}

/** Base64 text of eight bytes: 11 characters, the last one carrying 4 bits, then one pad character. */
const ROW_VERSION_PATTERN = '^[A-Za-z0-9+/]{10}[AEIMQUYcgkosw048]=$'

export const ReadRow: SchemaObject = {
  type: 'object',
  title: 'Row as read',
  description:
    'A master or detail row as query results return it: the system fields below, then the application\'s own fields ' +
    '(for the Orders application: `Customer`, `Amount`, `Status` on masters; `MasterId`, `Product`, `Quantity`, `UnitPrice` ' +
    'on `OrderLines` details) and the storage\'s Identity field (for example `IdRow`). Fields the signed-in user may not see ' +
    'are left out of the object.',
  required: ['Id', 'TIMESTAMP', 'CT_ATTACHMENTS', 'DT_CREATION', 'DT_LAST_UPDATE', 'ROW_ORDER', 'USER_ID_CREATION', 'USER_ID_LAST_UPDATE'],
  properties: {
    Id: { type: 'integer', description: 'Database identity of the row.' },
    TIMESTAMP: {
      type: 'string',
      contentEncoding: 'base64',
      pattern: ROW_VERSION_PATTERN,
      [MOCK_DEFINED]: 'contentEncoding pattern',
      description:
        'Row version. The published description calls it "base64-like text" that saves and deletes send back as a number; the mock ' +
        'writes the base64 text of an 8-byte big-endian integer, as SQL Server rowversions are, and reads that integer back (for ' +
        'example `AAAAAAAAA+k=` is 1001).',
      examples: ['AAAAAAAAA+k='],
    },
    CT_ATTACHMENTS: {
      type: ['integer', 'null'],
      minimum: 0,
      [MOCK_DEFINED]: 'type minimum',
      description: 'Attachment marker, nullable in the published description; the mock sends how many files the row has, or null for none.',
    },
    DT_CREATION: {
      type: ['string', 'null'],
      format: 'date-time',
      [MOCK_DEFINED]: 'type format',
      description: 'When the row was created; nullable in the published description, which leaves its format open. The mock sends RFC 3339 text.',
    },
    DT_LAST_UPDATE: {
      type: ['string', 'null'],
      format: 'date-time',
      [MOCK_DEFINED]: 'type format',
      description: 'When the row was last changed; as `DT_CREATION`.',
    },
    ROW_ORDER: {
      type: ['integer', 'null'],
      [MOCK_DEFINED]: 'type',
      description: 'Row order, nullable in the published description; the mock sends the row\'s position in the order rows were created.',
    },
    USER_ID_CREATION: nullableUser,
    USER_ID_LAST_UPDATE: nullableUser,
  },
  // User-defined fields are "not shown" in the description (Resources): a value of any kind may come back.
  additionalProperties: { ...scalarValue, [MOCK_DEFINED]: 'type', description: `${scalarValue.description} The mock sends text, numbers, booleans and null.` },
}

export const WriteRow: SchemaObject = {
  type: 'object',
  title: 'Row as written',
  description:
    'A row in a save request. To create a row, give it a negative temporary `Id` (-1, -2, ... unique among the request\'s ' +
    'master rows; every new detail row may be -1), `TIMESTAMP` null and the storage\'s Identity field null; the service assigns all three. To update, ' +
    'send the row\'s `Id`, the `TIMESTAMP` integer decoded from the last read, and only the fields that change. The Identity ' +
    'field\'s name is chosen per storage (`IdRow` in the default fixture), so it travels as one of the additional properties.',
  required: ['Id', 'TIMESTAMP'],
  properties: {
    Id: { type: 'integer', description: 'Negative temporary number to create the row; the existing database Id to update it.' },
    TIMESTAMP: {
      type: ['integer', 'null'],
      minimum: 0,
      maximum: 9007199254740991,
      description: 'Null when creating; when updating, the row version read last, as an integer.',
    },
  },
  additionalProperties: {
    ...scalarValue,
    description: 'A field of the row: a user-defined field, or the storage\'s Identity field (null when creating, omitted when updating).',
  },
}

export const RowList: SchemaObject = {
  type: 'array',
  title: 'Rows',
  description: 'Rows of one table (the master table, or the detail table named by `relationKey`), in the requested order.',
  items: schemaRef('ReadRow'),
}

export const RowKey: SchemaObject = {
  type: 'object',
  title: 'Row key',
  description:
    'Identifies one stored row version: the row\'s `Id` and the `TIMESTAMP` integer read last. The published description allows `TIMESTAMP` null in ' +
    'delete requests; null matches no row version, so the delete is refused (`IsSaveSuccessfully` false) rather than malformed.',
  required: ['Id', 'TIMESTAMP'],
  properties: {
    Id: { type: 'integer' },
    TIMESTAMP: { type: ['integer', 'null'], minimum: 0, maximum: 9007199254740991 },
  },
  additionalProperties: false,
}
