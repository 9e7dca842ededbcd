import type { Outbox } from '../../store/outbox.ts'
import type { Store } from '../../store/store.ts'
import type { Fixture } from '../../store/model/types.ts'
import { summarizeFixture, type FixtureSummary } from './fixtures.ts'
import type { RuleTable } from '../../rules/table.ts'
import type { Journal } from '../../journal/journal.ts'
import type { TokenStore } from '../../http/auth/tokens.ts'

/** The answer to a reset (the `ResetResult` schema). */
export interface ResetResult {
  reset: true
  fixture: FixtureSummary
  cleared: { emails: number; faults: number; stubs: number; requests: number; sessions: number }
  kept: Array<'sessions' | 'clock'>
}

/** What a reset may do beyond the data: `sessions` ends every session too. */
export interface ResetOptions {
  sessions?: boolean
}

/**
 * Back to the start: the fixture the mock started with, and no e-mails, fault rules, answer rules
 * (nor scenario states) or journal entries, so each test sees only its own effects. Sessions are kept so a token signed in once
 * per suite survives (only those of users the start fixture lacks end, as in a fixture load);
 * `sessions: true` ends them all, the way out of a sandbox whose sessions are full. The clock is
 * kept because time does not go back.
 */
export function resetMock(parts: ResetParts, startFixture: Fixture, options: ResetOptions = {}): ResetResult {
  parts.store.reset(startFixture)
  return afterReset(parts, startFixture, options)
}

/** As resetMock, without holding other clients: the data is built and kept in slices (Store.resetInSlices), the rest done once it is in place. */
export async function resetMockInSlices(parts: ResetParts, startFixture: Fixture, options: ResetOptions, pause: () => Promise<void>): Promise<ResetResult> {
  await parts.store.resetInSlices(startFixture, pause)
  return afterReset(parts, startFixture, options)
}

/** What a reset touches. */
type ResetParts = { store: Store; outbox: Outbox; rules: RuleTable; holds: { refuseAll(reason: string): number }; journal: Journal; tokens: TokenStore }

/** Everything of a reset but the data, once the data is in place. */
function afterReset(parts: ResetParts, startFixture: Fixture, options: ResetOptions): ResetResult {
  // A clean cut: requests received before it and still held by a rule's wait are answered now,
  // 503 DATA_REPLACED, instead of going on in the new data (a write among them would land there).
  parts.holds.refuseAll('A reset replaced the data')
  const sessions = options.sessions === true ? parts.tokens.clear() : parts.tokens.forgetUsersOtherThan(userIdsOf(startFixture.organization.users))
  const cleared = {
    emails: parts.outbox.clear(),
    faults: parts.rules.faults.clear(),
    stubs: parts.rules.answers.clear(),
    requests: parts.journal.clear(),
    sessions,
  }
  return { reset: true, fixture: summarizeFixture(startFixture), cleared, kept: options.sessions === true ? ['clock'] : ['sessions', 'clock'] }
}

/** The ids of a fixture's users: whose sessions stay valid with it. */
export function userIdsOf(users: ReadonlyArray<{ id: number }>): Set<number> {
  return new Set(users.map((user) => user.id))
}
