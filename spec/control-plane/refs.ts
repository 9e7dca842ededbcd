/**
 * Component names of the control-plane document and typed `$ref` builders. spec/refs.ts cannot serve:
 * its names are the API document's, and this document has components of its own.
 */
import type { ReferenceObject } from 'openapi3-ts/oas31'

/** Names of components.schemas; `schemas.ts` must define exactly these. */
export type ControlSchemaName =
  | 'FixtureSummary'
  | 'ResetResult'
  | 'Fixture'
  | 'FixtureLoadResult'
  | 'AttachmentUpload'
  | 'Attachment'
  | 'QueuedEmail'
  | 'EmailList'
  | 'Cleared'
  | 'JournalEntry'
  | 'JournalPage'
  | 'NearMiss'
  | 'NearMissList'
  | 'Usage'
  | 'FaultRule'
  | 'FaultRuleSet'
  | 'ActiveFaultRule'
  | 'FaultList'
  | 'AnswerRule'
  | 'ActiveAnswerRule'
  | 'AnswerRuleList'
  | 'LockRequest'
  | 'LockEntry'
  | 'LockList'
  | 'HeldLocks'
  | 'ClockAdvance'
  | 'ClockState'
  | 'ControlDocument'
  | 'Health'
  | 'Problem'

/** Names of components.parameters. */
export type ControlParameterName =
  | 'Rows'
  | 'Seed'
  | 'JournalOperationId'
  | 'JournalMatch'
  | 'JournalLimit'
  | 'JournalBodies'
  | 'NearMissMatch'
  | 'NearMissLimit'
  | 'ResetSessions'

/** Names of components.responses, keyed by the status each one answers. */
export const CONTROL_ERROR_RESPONSES = {
  400: 'BadRequest',
  401: 'ControlTokenRequired',
  403: 'OtherOrigin',
  404: 'NotFound',
  409: 'SequenceExhausted',
  413: 'PayloadTooLarge',
  414: 'UriTooLong',
  415: 'UnsupportedMediaType',
  507: 'StateNotWritten',
} as const
export type ControlErrorStatus = keyof typeof CONTROL_ERROR_RESPONSES
export type ControlResponseName = (typeof CONTROL_ERROR_RESPONSES)[ControlErrorStatus]

/** `$ref` to a schema component. */
export function schemaRef(name: ControlSchemaName): ReferenceObject {
  return { $ref: `#/components/schemas/${name}` }
}

/** `$ref` to a parameter component. */
export function parameterRef(name: ControlParameterName): ReferenceObject {
  return { $ref: `#/components/parameters/${name}` }
}

/** `$ref` to a response component. */
export function responseRef(name: ControlResponseName): ReferenceObject {
  return { $ref: `#/components/responses/${name}` }
}
