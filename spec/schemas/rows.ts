/** Schemas of application rows as read (ReadRow) and as written (WriteRow), and the row key used by delete. */
import type { SchemaObject } from 'openapi3-ts/oas31'
import { schemaRef } from '../refs.ts'
import { MOCK_DEFINED } from '../extensions.ts'

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
    "A master or detail row as query results return it: the system fields below, then the application's own fields " +
    '(for the Orders application: `Customer`, `Amount`, `Status` on masters; `MasterId`, `Product`, `Quantity`, `UnitPrice` ' +
    "on `OrderLines` details) and the storage's Identity field (for example `IdRow`). Fields the signed-in user may not see " +
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
      anyOf: [schemaRef('DateTimeValue'), { type: 'null' }],
      // The published description says only "nullable"; the form is the product's reference's.
      [MOCK_DEFINED]: true,
      description:
        "When the row was created: a DateTime number yyyyMMddHHmmss in the installation's time zone (the product's reference, Data Types; " +
        "the description's attachment record writes its `DT_CREATION` so too), nullable in the published description.",
      examples: [20240304081500],
    },
    DT_LAST_UPDATE: {
      anyOf: [schemaRef('DateTimeValue'), { type: 'null' }],
      [MOCK_DEFINED]: true,
      description: 'When the row was last changed; as `DT_CREATION`.',
      examples: [20240306111500],
    },
    ROW_ORDER: {
      type: ['integer', 'null'],
      [MOCK_DEFINED]: 'type',
      description: "Row order, nullable in the published description; the mock sends the row's position in the order rows were created.",
    },
    USER_ID_CREATION: nullableUser,
    USER_ID_LAST_UPDATE: nullableUser,
  },
  // User-defined fields are "not shown" in the description (Resources): a value of any kind may come back.
  additionalProperties: schemaRef('FieldValue'),
}

export const WriteRow: SchemaObject = {
  type: 'object',
  title: 'Row as written',
  description:
    "A row in a save request. To create a row, give it a negative temporary `Id` (-1, -2, ... unique among the request's " +
    "master rows; every new detail row may be -1), `TIMESTAMP` null and the storage's Identity field null; the service assigns all three. To update, " +
    "send the row's `Id`, the `TIMESTAMP` integer decoded from the last read, and only the fields that change. The Identity " +
    "field's name is chosen per storage (`IdRow` in the default fixture), so it travels as one of the additional properties.",
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
  // A user-defined field, or the storage's Identity field (null when creating, omitted when updating).
  additionalProperties: {
    anyOf: [schemaRef('FieldValue'), { type: 'boolean' }],
    [MOCK_DEFINED]: 'boolean',
    description:
      "A field's value in its type's form (FieldValue). `true`/`false` are accepted too and converted to a Boolean's 1/0 with a " +
      '`VALUE_FORM_CONVERTED` warning (refused in strict mode), as clients written for JSON booleans send them.',
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
    "Identifies one stored row version: the row's `Id` and the `TIMESTAMP` integer read last. The published description allows `TIMESTAMP` null in " +
    'delete requests; null matches no row version, so the delete is refused (`IsSaveSuccessfully` false) rather than malformed.',
  required: ['Id', 'TIMESTAMP'],
  properties: {
    Id: { type: 'integer' },
    TIMESTAMP: { type: ['integer', 'null'], minimum: 0, maximum: 9007199254740991 },
  },
  additionalProperties: false,
}
