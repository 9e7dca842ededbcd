/**
 * components.schemas of the control plane, gathered from ./schemas/*. Attachment and Problem are the
 * API document's own, so uploads and refusals look the same on both sides.
 */
import type { SchemaObject } from 'openapi3-ts/oas31'
import type { ControlSchemaName } from './refs.ts'
import { Attachment } from '../schemas/attachments.ts'
import { Problem } from '../schemas/problem.ts'
import { Cleared } from './schemas/common.ts'
import { FixtureSummary, ResetResult, Fixture, FixtureLoadResult, AttachmentUpload } from './schemas/state.ts'
import { QueuedEmail, EmailList, JournalEntry, JournalPage, NearMiss, NearMissList } from './schemas/observation.ts'
import { FaultRule, FaultRuleSet, ActiveFaultRule, FaultList } from './schemas/faults.ts'
import { AnswerRule, ActiveAnswerRule, AnswerRuleList } from './schemas/stubs.ts'
import { LockRequest, LockEntry, LockList, HeldLocks } from './schemas/locks.ts'
import { ClockAdvance, ClockState } from './schemas/clock.ts'
import { Usage } from './schemas/usage.ts'
import { ControlDocument, Health } from './schemas/document.ts'

export const schemas: Record<ControlSchemaName, SchemaObject> = {
  FixtureSummary,
  ResetResult,
  Fixture,
  FixtureLoadResult,
  AttachmentUpload,
  Attachment,
  QueuedEmail,
  EmailList,
  Cleared,
  JournalEntry,
  JournalPage,
  NearMiss,
  NearMissList,
  Usage,
  FaultRule,
  FaultRuleSet,
  ActiveFaultRule,
  FaultList,
  AnswerRule,
  ActiveAnswerRule,
  AnswerRuleList,
  LockRequest,
  LockEntry,
  LockList,
  HeldLocks,
  ClockAdvance,
  ClockState,
  ControlDocument,
  Health,
  Problem,
}
