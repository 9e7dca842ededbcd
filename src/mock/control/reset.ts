import type { Outbox } from '../../store/outbox.ts'
import type { Store } from '../../store/store.ts'
import type { Fixture } from '../../store/types.ts'
import { summarizeFixture, type FixtureSummary } from './fixtures.ts'
import type { FaultTable } from './fault-table.ts'
import type { Journal } from './journal-store.ts'

/** The answer to a reset (the `ResetResult` schema). */
export interface ResetResult {
  reset: true
  fixture: FixtureSummary
  cleared: { emails: number; faults: number; requests: number }
  kept: Array<'sessions' | 'clock'>
}

/**
 * Back to the start: the fixture the mock started with, and no e-mails, fault rules or journal
 * entries, so each test sees only its own effects. Sessions are kept so a token signed in once
 * per suite survives; the clock is kept because time does not go back.
 */
export function resetMock(parts: { store: Store; outbox: Outbox; faults: FaultTable; journal: Journal }, startFixture: Fixture): ResetResult {
  parts.store.reset(startFixture)
  const cleared = { emails: parts.outbox.clear(), faults: parts.faults.clear(), requests: parts.journal.clear() }
  return { reset: true, fixture: summarizeFixture(startFixture), cleared, kept: ['sessions', 'clock'] }
}
