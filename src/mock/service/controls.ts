import { dirname, resolve } from 'node:path'
import type { MockConfig } from '../config.ts'
import type { MockClock } from '../../deps.ts'
import type { Outbox, QueuedEmail } from '../../store/outbox.ts'
import type { Store } from '../../store/store.ts'
import type { Fixture } from '../../store/model/types.ts'
import { advanceClock, readClock, type ClockState } from './clock.ts'
import type { FaultList, FaultRuleInput } from '../../rules/faults.ts'
import type { RuleTable } from '../../rules/table.ts'
import type { ActiveAnswerRule, AnswerRuleInput, AnswerRuleList } from '../../rules/answers.ts'
import { loadFixtureInSlices, loadFixtureInto, type FixtureLoadResult, type LoadFixtureOptions } from './fixtures.ts'
import type { JournalEntry, JournalFilter, Journal } from '../../journal/journal.ts'
import { resetMock, resetMockInSlices, userIdsOf, type ResetOptions, type ResetResult } from './reset.ts'
import type { TokenStore } from '../../http/auth/tokens.ts'
import { addAttachments, type UploadInput } from './uploads.ts'
import { toFixtureFile } from '../../fixtures/export.ts'
import type { FixtureFile } from '../../fixtures/file-format.ts'
import type { UsageFile } from '../../usage-file/file.ts'
import { ProblemError } from '../../errors.ts'
import { assertRequested, type AssertRequestedOptions } from '../../journal/assertion.ts'
import type { RequestQuery } from '../../journal/match.ts'
import { heldLocks, lockRows, unlockRows, type HeldLocks, type LockList, type LockRequest } from './locks.ts'

/**
 * The control plane as plain methods: what `/__mock/` offers over HTTP, for tests that start the
 * mock in-process with `startMock()` and need no HTTP to steer it. The HTTP routes call these
 * same methods, so both give the same results and the same refusals (`ProblemError`, or
 * `FixtureError` for a bad fixture).
 * @example
 * const mock = await startMock({ port: 0 })
 * beforeEach(() => mock.reset())
 * mock.setFaults([{ operationId: 'saveItems', status: 503, times: 1 }])
 * expect(mock.emails()).toHaveLength(1)
 */
export interface MockControls {
  /**
   * Data back to the start fixture; outbox, fault rules, answer rules (and scenario states) and journal emptied; sessions and clock kept
   * (`{ sessions: true }` ends every session too).
   */
  reset(options?: ResetOptions): ResetResult
  /**
   * Replaces the data with this fixture object (same format as fixtures/default.json); throws FixtureError naming each
   * problem. Sessions of users the fixture lacks end.
   */
  loadFixture(fixture: unknown, options?: Partial<LoadFixtureOptions>): FixtureLoadResult
  /** The data as it is now, in the fixture format (`loadFixture()` and `--fixture` take it back). */
  state(): FixtureFile
  /** Attaches files to a row; returns the new records in the API's attachment record shape. */
  addAttachment(input: UploadInput): Array<Record<string, unknown>>
  /** E-mails queued through Send Email, oldest first. */
  emails(): readonly QueuedEmail[]
  clearEmails(): number
  /**
   * The request journal's entries, oldest first; `match` keeps those matching a rule's `match`
   * pattern (`{ body?, headers?, user? }`), before `limit`.
   */
  requests(filter?: JournalFilter): JournalEntry[]
  clearRequests(): number
  /**
   * Resolves with the journal's entries matching `{ operationId?, match? }` when there are `times`
   * of them (at least one when `times` is absent); otherwise rejects with a RequestAssertionError
   * naming what was expected, how many matched and the closest requests with the members that
   * differ. Waits (up to 1 s) for answers already sent to be recorded first.
   * @example
   * await mock.assertRequested({ operationId: 'saveItems', match: { body: { Rows: [{ Row: { Customer: 'Initech' } }] } } }, { times: 1 })
   */
  assertRequested(query: RequestQuery, options?: AssertRequestedOptions): Promise<JournalEntry[]>
  /**
   * Replaces every fault rule; `seed` makes `rate` draws repeatable. A `status` is a gateway status
   * (500, 502, 503, 504: any operation, flagged `INFRASTRUCTURE_ANSWER`), one the operation's
   * document lists, or any with `offDocument: true` (flagged `OFF_DOCUMENT_ANSWER`; refused by a
   * mock started with `--strict`); a rule for every operation (`*`) takes gateway statuses, `drop`,
   * `commitThenDrop` and latency only; `headers` (such as `Retry-After`) go with `status`, under the
   * header rules of `stub`. Throws the 400 `ProblemError` the HTTP call answers, with `violations`.
   * @example
   * mock.setFaults([{ operationId: 'saveItems', status: 503, headers: { 'Retry-After': '1' }, times: 1 }])
   */
  setFaults(rules: FaultRuleInput[], options?: { seed?: number }): FaultList
  faults(): FaultList
  clearFaults(): number
  /**
   * Adds an answer rule (`POST /__mock/stubs`) and returns it with its `id`; throws the
   * `ProblemError` the HTTP call answers (400, `violations` pointing into the rule under `/body`)
   * for a rule the served document cannot answer, unless it says `offDocument: true` (then
   * `STRICT_MODE` in a mock started with `--strict`); a gateway status (500, 502, 503, 504) needs no
   * `offDocument`. What is not valid HTTP is refused either way: a header name that is no RFC 9110
   * token, a value with anything but visible ASCII, spaces and tabs, `Content-Length`,
   * `Transfer-Encoding`, the hop-by-hop headers, `Host`, `Access-Control-*`, a body nested deeper
   * than 64 levels.
   * @example
   * mock.stub({ operationId: 'saveItems', answer: { patch: { LockedItems: 1 } }, times: 1 })
   */
  stub(rule: AnswerRuleInput): ActiveAnswerRule
  /** The answer rules in the order they are tried, with their hit counts, and the scenario states. */
  stubs(): AnswerRuleList
  /** Removes one answer rule; throws a 404 `ProblemError` for an unknown id. */
  removeStub(id: number): ActiveAnswerRule
  /** Removes every answer rule and scenario state; returns how many rules there were. */
  clearStubs(): number
  /**
   * Locks rows of one table as if another user had them open: a save or delete touching one is
   * refused for it (`LOCKED`, counted in `LockedItems`). A reset or fixture load puts back the
   * fixture's `locks`. Refused (404 problem) for an unknown application, relation key or row.
   * @example mock.lock({ applicationId: ORDERS, ids: [2] })
   */
  lock(request: LockRequest): LockList
  /** Unlocks rows of one table (Ids not locked are passed over). */
  unlock(request: LockRequest): LockList
  /** The locks held now, table by table: `{ locks }`, as `GET /__mock/locks` answers. */
  locks(): HeldLocks
  /** Moves the mock's clock forward by `ms` without waiting. */
  advanceClock(ms: number): ClockState
  clock(): ClockState
  /**
   * What clients used of the API so far, as `--record-usage` writes it at stop (shapes, never
   * values or secrets); refused (404 problem) when the mock does not record.
   */
  usage(): UsageFile
}

/** What the controls act on: the decorations `buildApp` gives the Fastify instance. */
export interface ControlledParts {
  store: Store
  outbox: Outbox
  journal: Journal
  rules: RuleTable
  /**
   * Requests held by a rule's wait (plugins/holds.ts): a reset or fixture load answers them at once
   * (503 DATA_REPLACED). Typed by what the controls call, so the package's public types (this file's)
   * need no Fastify.
   */
  holds: { refuseAll(reason: string): number }
  clock: MockClock
  tokens: TokenStore
  mockConfig: MockConfig
  /** Where a fixture load's warnings are logged, as the start fixture's are at start. */
  log: { warn(message: string): void }
  /** The usage recorder (`--record-usage`), typed by what the controls read of it. */
  usage: { usage(): UsageFile } | null
}

/**
 * What `reset()` returns to: the fixture the mock was built with, whatever is loaded later (with
 * `--state-file`, the data it started with, as its start wrote it).
 */
export interface StartData {
  fixture: Fixture
}

/** A fixture load's options as the controls complete them. */
function loadOptions(parts: ControlledParts, options: Partial<LoadFixtureOptions>): LoadFixtureOptions {
  return {
    source: 'loadFixture',
    ...(parts.mockConfig.timeZone === undefined ? {} : { timeZone: parts.mockConfig.timeZone }),
    strict: parts.mockConfig.strict,
    ...options,
    baseDir: options.baseDir ?? dirname(resolve(parts.mockConfig.fixture)),
  }
}

/** Everything of a fixture load but the data, once the data is in place. */
function afterLoad(parts: ControlledParts, loaded: FixtureLoadResult): FixtureLoadResult {
  // Their tokens could never work again; ended, they stop taking room under --max-sessions.
  parts.tokens.forgetUsersOtherThan(userIdsOf(parts.store.organization().users))
  parts.holds.refuseAll('A fixture load replaced the data')
  for (const warning of loaded.warnings) parts.log.warn(warning)
  return loaded
}

/** The controls of one mock; `start.fixture` is what `reset()` returns to. */
export function createControls(parts: ControlledParts, start: StartData): MockControls {
  return {
    reset: (options) => resetMock(parts, start.fixture, options),
    loadFixture: (fixture, options = {}) => afterLoad(parts, loadFixtureInto(parts.store, fixture, loadOptions(parts, options))),
    state: () => toFixtureFile(parts.store.snapshot()),
    addAttachment: (input) => addAttachments(parts.store, input, parts.mockConfig.uploadLimit),
    emails: () => [...parts.outbox.list()],
    clearEmails: () => parts.outbox.clear(),
    requests: (filter) => parts.journal.read(filter).entries,
    clearRequests: () => parts.journal.clear(),
    assertRequested: (query, options) => assertRequested(parts.journal, query, options),
    setFaults: (rules, options = {}) => parts.rules.faults.set(options.seed === undefined ? { rules } : { rules, seed: options.seed }),
    faults: () => parts.rules.faults.list(),
    clearFaults: () => parts.rules.faults.clear(),
    stub: (rule) => parts.rules.answers.add(rule),
    stubs: () => parts.rules.answers.list(),
    removeStub: (id) => parts.rules.answers.remove(id),
    clearStubs: () => parts.rules.answers.clear(),
    lock: (request) => lockRows(parts.store, request),
    unlock: (request) => unlockRows(parts.store, request),
    locks: () => heldLocks(parts.store),
    advanceClock: (ms) => advanceClock(parts.clock, ms),
    clock: () => readClock(parts.clock),
    usage: () => {
      if (parts.usage === null)
        throw new ProblemError(
          'NOT_FOUND',
          'This mock does not record usage: start it with --record-usage FILE (MOCK_RECORD_USAGE, or startMock({ recordUsage: FILE })).',
        )
      return parts.usage.usage()
    },
  }
}

/**
 * The reset and the fixture load as the control plane's HTTP routes run them: the new data built
 * and written (with `--state-file`) a slice at a time, awaiting `pause` between slices, so the
 * clients beside them are answered meanwhile; the same answers and refusals as `reset()` and
 * `loadFixture()`, which do it all at once.
 */
export interface SlicedControls {
  reset(options?: ResetOptions): Promise<ResetResult>
  loadFixture(fixture: unknown, options?: Partial<LoadFixtureOptions>): Promise<FixtureLoadResult>
}

/** The sliced reset and fixture load of one mock; `pause` gives the other clients a turn between slices. */
export function createSlicedControls(parts: ControlledParts, start: StartData, pause: () => Promise<void>): SlicedControls {
  return {
    reset: (options = {}) => resetMockInSlices(parts, start.fixture, options, pause),
    loadFixture: async (fixture, options = {}) => afterLoad(parts, await loadFixtureInSlices(parts.store, fixture, loadOptions(parts, options), pause)),
  }
}
