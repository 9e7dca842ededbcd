/**
 * components.schemas, gathered from spec/schemas/*. Typed by the fixed list of names in refs.ts,
 * so a schema added without a name, or a name without a schema, does not compile.
 */
import type { SchemaObject } from 'openapi3-ts/oas31'
import type { SchemaName } from './refs.ts'
import { ReadRow, WriteRow, RowList, RowKey } from './schemas/rows.ts'
import { ItemsQuery, CountQuery, CountResult } from './schemas/queries.ts'
import {
  SaveRequest, SaveMaster, SaveDetailGroup, SaveResult, SaveResultLegacy, ReturnState, ReturnData, PrimaryKeyData,
  DeleteRequest, DeleteRequestLegacy, DeleteResult, DeleteResultLegacy,
} from './schemas/save-delete.ts'
import { Attachment, DownloadRequest } from './schemas/attachments.ts'
import { ActionParameter, ActionRequest, ActionResult, EmailRequest, RowLinkRequest } from './schemas/actions.ts'
import { PasswordGrant, TokenResult, LegacyTokenResult } from './schemas/sign-in.ts'
import { Problem } from './schemas/problem.ts'
import {
  FieldValue, StringValue, NumericValue, BooleanValue, DateValue, DateTimeValue, TimeValue, TimespanValue, MultiselectionValue, FileValue,
  LinkValue, LatitudeValue, LongitudeValue, WktShapeValue, ImageUriValue, ColorValue, IconValue, RichTextValue,
} from './schemas/data-types.ts'

export const schemas: Record<SchemaName, SchemaObject> = {
  ReadRow,
  WriteRow,
  RowList,
  RowKey,
  ItemsQuery,
  CountQuery,
  CountResult,
  SaveRequest,
  SaveMaster,
  SaveDetailGroup,
  SaveResult,
  SaveResultLegacy,
  ReturnState,
  ReturnData,
  PrimaryKeyData,
  DeleteRequest,
  DeleteRequestLegacy,
  DeleteResult,
  DeleteResultLegacy,
  Attachment,
  DownloadRequest,
  ActionParameter,
  ActionRequest,
  ActionResult,
  EmailRequest,
  RowLinkRequest,
  PasswordGrant,
  TokenResult,
  LegacyTokenResult,
  Problem,
  FieldValue,
  StringValue,
  NumericValue,
  BooleanValue,
  DateValue,
  DateTimeValue,
  TimeValue,
  TimespanValue,
  MultiselectionValue,
  FileValue,
  LinkValue,
  LatitudeValue,
  LongitudeValue,
  WktShapeValue,
  ImageUriValue,
  ColorValue,
  IconValue,
  RichTextValue,
}
