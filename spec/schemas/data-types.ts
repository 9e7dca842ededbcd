/**
 * One schema per data type of the product, with its form on the wire and an example (the product's
 * reference, Data Types: every JSON object the API returns encodes the types in these forms), and
 * FieldValue, the value of a user-defined field of any type. Which fields an application has, and
 * their types, depend on the application.
 */
import type { SchemaObject } from 'openapi3-ts/oas31'
import { schemaRef } from '../refs.ts'
import { MOCK_DEFINED } from '../extensions.ts'

export const StringValue: SchemaObject = { type: 'string', title: 'String', description: 'Text.', examples: ['Northwind Traders'] }

export const NumericValue: SchemaObject = {
  type: 'number',
  title: 'Numeric',
  description: "An integer or a decimal number, as the application's format for the field says (decimal places).",
  examples: [18.9],
}

export const BooleanValue: SchemaObject = { type: 'integer', enum: [0, 1], title: 'Boolean', description: 'The number 0 (false) or 1 (true).', examples: [1] }

export const DateValue: SchemaObject = {
  type: 'integer',
  minimum: 10000101,
  maximum: 99991231,
  title: 'Date',
  description: "The number yyyyMMdd, in the installation's time zone. The mock refuses a date that is not in the calendar (20240231).",
  examples: [20220101],
}

export const DateTimeValue: SchemaObject = {
  type: 'integer',
  minimum: 10000101000000,
  maximum: 99991231235959,
  title: 'DateTime',
  description:
    "The number yyyyMMddHHmmss, on the wall clock of the installation's time zone (not UTC). The mock's zone is the fixture's " +
    '`organization.timeZone` or `--time-zone` (default UTC).',
  examples: [20220101221000],
}

export const TimeValue: SchemaObject = { type: 'integer', minimum: 0, maximum: 235959, title: 'Time', description: 'The number HHmmss.', examples: [181035] }

export const TimespanValue: SchemaObject = { type: 'integer', title: 'Timespan', description: 'A duration in milliseconds.', examples: [60000] }

export const MultiselectionValue: SchemaObject = {
  type: 'array',
  items: { type: ['string', 'number'] },
  title: 'Multiselection',
  [MOCK_DEFINED]: 'items',
  description:
    "An array of the selected values. The product's reference does not show the elements' shape; the mock takes texts or numbers. " +
    "In `$filter`, `eq` matches a row whose array holds the value and `ne` one whose array does not (the mock's choice); other operators are refused.",
  examples: [['Fragile', 'Express']],
}

export const FileValue: SchemaObject = {
  type: 'string',
  contentEncoding: 'base64',
  title: 'File',
  description: "The file's bytes as Base64 text.",
  examples: ['UE9EIDAwMDEgc2lnbmVk'],
}

export const LinkValue: SchemaObject = {
  type: 'string',
  format: 'uri',
  title: 'Link',
  description: 'A URL.',
  examples: ['https://tracking.example.test/DLV-2024-0001'],
}

export const LatitudeValue: SchemaObject = {
  type: 'number',
  minimum: -90,
  maximum: 90,
  title: 'Latitude',
  description: 'Decimal degrees.',
  examples: [45.4642],
}

export const LongitudeValue: SchemaObject = {
  type: 'number',
  minimum: -180,
  maximum: 180,
  title: 'Longitude',
  description: 'Decimal degrees.',
  examples: [9.19],
}

export const WktShapeValue: SchemaObject = {
  type: 'string',
  title: 'WKT Shape',
  description: 'A shape as Well-Known Text, typically a polygon.',
  examples: ['POLYGON((9.18 45.45, 9.20 45.45, 9.20 45.47, 9.18 45.47, 9.18 45.45))'],
}

export const ImageUriValue: SchemaObject = {
  type: 'string',
  format: 'uri',
  title: 'Image Uri',
  description: 'The URI of an image.',
  examples: ['https://images.example.test/deliveries/0001.jpg'],
}

export const ColorValue: SchemaObject = {
  type: 'string',
  pattern: '^(?:#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})|rgba?\\(.*\\))$',
  title: 'Color',
  [MOCK_DEFINED]: 'pattern',
  description: 'An RGBA colour as text. The reference does not show the notation; the mock takes `#RRGGBBAA`, `#RRGGBB`, `#RGB(A)` and `rgba(r, g, b, a)`.',
  examples: ['#1E88E5FF'],
}

export const IconValue: SchemaObject = { type: 'string', title: 'Icon', description: 'Text naming an icon.', examples: ['truck'] }

export const RichTextValue: SchemaObject = {
  type: 'string',
  contentMediaType: 'text/html',
  title: 'Rich Text',
  description: 'HTML text.',
  examples: ['<p>Deliver to <b>Milano</b> depot.</p>'],
}

export const FieldValue: SchemaObject = {
  title: 'Field value',
  description:
    "Value of a user-defined field, in the form of the field's data type (one of the schemas below); null for no value. Which fields " +
    'exist, and their types, depend on the application. A save may send a value in another form that says one thing only (ISO 8601 text ' +
    'into a date type, true/false into a Boolean, digits in quotes into a number): the mock converts it with a `VALUE_FORM_CONVERTED` ' +
    'warning, and refuses it in strict mode.',
  // User-defined fields are "not shown" in the published description; the forms are the product's reference's.
  [MOCK_DEFINED]: true,
  anyOf: [
    schemaRef('StringValue'),
    schemaRef('NumericValue'),
    schemaRef('BooleanValue'),
    schemaRef('DateValue'),
    schemaRef('DateTimeValue'),
    schemaRef('TimeValue'),
    schemaRef('TimespanValue'),
    schemaRef('MultiselectionValue'),
    schemaRef('FileValue'),
    schemaRef('LinkValue'),
    schemaRef('LatitudeValue'),
    schemaRef('LongitudeValue'),
    schemaRef('WktShapeValue'),
    schemaRef('ImageUriValue'),
    schemaRef('ColorValue'),
    schemaRef('IconValue'),
    schemaRef('RichTextValue'),
    { type: 'null' },
  ],
}
