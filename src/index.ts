/**
 * appdata-kit as a library: start the mock from your tests, talk to any installation with the
 * typed client, read the OpenAPI document and the fixture format.
 * @example
 * import { startMock } from 'appdata-kit'
 * const mock = await startMock()            // a free port; mock.url says which
 * await mock.client.signIn({ username: 'admin@acme.test', password: 'admin-pass' })
 * const rows = await mock.client.rows({ top: 5 })
 * await mock.close()
 */
import { startMock as startMockServer } from './mock/mock.ts'
import type { RunningMock, StartOptions } from './mock/running-mock.ts'

/**
 * Starts the mock and resolves when it listens. `port: 0` picks a free port; the URL tells which.
 * Typed without Node's or Fastify's types (see running-mock.ts), so the package's types compile in
 * a project without `@types/node`.
 * @example
 * const mock = await startMock({ port: 0 })
 * await fetch(`${mock.url}/identityprovider/acme/connect/token`, { method: 'POST', body: form })
 * await mock.close()
 */
export const startMock: (options?: StartOptions) => Promise<RunningMock> = startMockServer
export type { RunningMock, StartOptions, LogStream } from './mock/running-mock.ts'
export type { MockConfig } from './mock/config.ts'
export type { MockControls } from './mock/service/controls.ts'
export { RequestAssertionError, type AssertRequestedOptions } from './journal/assertion.ts'
export type { RequestQuery, NearMiss } from './journal/match.ts'
export type { RequestMatch, Difference } from './rules/pattern.ts'
export type { JournalEntry, JournalFilter } from './journal/journal.ts'
export type { AnswerRuleInput, ActiveAnswerRule, AnswerRuleList, WholeAnswerInput, PatchAnswerInput } from './rules/answers.ts'
export type { HeldLocks, LockRequest, LockList } from './mock/service/locks.ts'
export type { LockEntry } from './store/locks.ts'
export {
  createClient,
  rowVersion,
  successOf,
  queryText,
  deleteBody,
  ApiError,
  type Client,
  type ClientOptions,
  type Answer,
  type CallInput,
  type QueryOptions,
  type WriteOutcome,
  type DeleteGroups,
  type ReadRow,
  type WriteRow,
  type SaveRequest,
  type AttachmentRecord,
  type ActionResult,
  type EmailRequest,
  type Problem,
} from './client/client.ts'
export {
  httpTransport,
  injectTransport,
  TransportError,
  type Transport,
  type WireRequest,
  type WireResponse,
  type HttpTransportOptions,
  type InjectableApp,
} from './wire/transport.ts'
export type { FixtureFile, FileApplication, FileStorage, FileRow, FileAttachment } from './fixtures/file-format.ts'
export type { FieldRules, Locks } from './store/model/types.ts'
export { FixtureError } from './fixtures/load.ts'
export { ProblemError, PROBLEMS, type ProblemCode, type ProblemBody } from './errors.ts'
export { WARNINGS, type WarningCode } from './policy/warnings.ts'
export { buildDocument } from '../spec/index.ts'
export { buildControlPlaneDocument } from '../spec/control-plane.ts'
export type { paths, components, operations } from '../spec/wire/api.ts'
export { resolveProfile, type Profile } from '../spec/profiles.ts'
export { mergeUsage, readUsageFile, UsageFileError, type UsageFile, type Interaction, type AnswerRecord } from './usage-file/file.ts'
export type { RequestShape, QueryShape, RowKind } from './usage-file/request-shape.ts'
export type { Shape } from './usage-file/shape.ts'
export { coverageOf, type Coverage, type CoverageItem, type OperationCoverage } from './commands/usage/coverage.ts'
export { DEFAULT_FIXTURE, type DefaultFixtureIds } from './fixtures/default-ids.ts'
