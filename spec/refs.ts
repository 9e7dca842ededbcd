/**
 * Component names and typed `$ref` builders. Every reference in the document goes through these,
 * so a misspelt component name is a compile error rather than a dangling `$ref`.
 */
import type { ReferenceObject } from 'openapi3-ts/oas31'

/** Names of components.schemas; `spec/schemas.ts` must define exactly these. */
export const SCHEMA_NAMES = [
  'ReadRow',
  'WriteRow',
  'RowList',
  'RowKey',
  'ItemsQuery',
  'CountQuery',
  'CountResult',
  'SaveRequest',
  'SaveMaster',
  'SaveDetailGroup',
  'SaveResult',
  'SaveResultLegacy',
  'ReturnState',
  'ReturnData',
  'PrimaryKeyData',
  'DeleteRequest',
  'DeleteRequestLegacy',
  'DeleteResult',
  'DeleteResultLegacy',
  'Attachment',
  'DownloadRequest',
  'ActionParameter',
  'ActionRequest',
  'ActionResult',
  'EmailRequest',
  'RowLinkRequest',
  'PasswordGrant',
  'TokenResult',
  'LegacyTokenResult',
  'Problem',
  'FieldValue',
  'StringValue',
  'NumericValue',
  'BooleanValue',
  'DateValue',
  'DateTimeValue',
  'TimeValue',
  'TimespanValue',
  'MultiselectionValue',
  'FileValue',
  'LinkValue',
  'LatitudeValue',
  'LongitudeValue',
  'WktShapeValue',
  'ImageUriValue',
  'ColorValue',
  'IconValue',
  'RichTextValue',
] as const
export type SchemaName = (typeof SCHEMA_NAMES)[number]

/** Names of components.parameters. */
export type ParameterName =
  | 'ApplicationId'
  | 'SessionToken'
  | 'WorkspaceId'
  | 'WorkspaceIdOptional'
  | 'OrganizationPhysicalName'
  | 'StorageId'
  | 'FieldName'
  | 'IdentityCount'

/** Names of components.responses, keyed by the status each one answers. */
export const ERROR_RESPONSES = {
  400: 'BadRequest',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  413: 'PayloadTooLarge',
  414: 'UriTooLong',
  503: 'ServiceUnavailable',
} as const
export type ErrorStatus = keyof typeof ERROR_RESPONSES
export type ResponseName = (typeof ERROR_RESPONSES)[ErrorStatus]

/** `$ref` to a schema component. */
export function schemaRef(name: SchemaName): ReferenceObject {
  return { $ref: `#/components/schemas/${name}` }
}

/** `$ref` to a parameter component. */
export function parameterRef(name: ParameterName): ReferenceObject {
  return { $ref: `#/components/parameters/${name}` }
}

/** `$ref` to a response component. */
export function responseRef(name: ResponseName): ReferenceObject {
  return { $ref: `#/components/responses/${name}` }
}
