import type { Client } from '../src/client/client.ts'
import type { Transport } from '../src/wire/transport.ts'
import type { Profile } from '../spec/profiles.ts'
import type { HoldTo } from './conformance.ts'
import type { Facts } from './facts.ts'
import type { Cleanup } from './cleanup.ts'

/** How bad it is when a contract does not hold. */
export type Severity = 'critical' | 'high' | 'medium' | 'low'

/** State a contract needs; without it the contract is skipped, and the report says why. */
export type Need =
  | 'writes' // --allow-writes
  | 'relation-key' // --relation-key
  | 'storage' // --storage-id (and the Identity field: given, or guessed on the mock only)
  | 'action' // --action-id
  | 'email-to' // --email-to

/**
 * One thing an installation must do. `holdsTo` says whose promise it is: the API's published
 * description (checked everywhere) or a choice of the mock's (`x-mock-defined`, checked only
 * against the mock). `deviation` names the mock's `--deviate` fault that must make it fail.
 */
export interface Contract {
  /** Stable id, `<area>.<behaviour>` (`save.temporary-ids-remapped`). */
  id: string
  title: string
  severity: Severity
  holdsTo: HoldTo
  /** True when the contract writes (saves, deletes, reserves, runs actions, queues e-mail). */
  writes: boolean
  needs: Need[]
  /** Semver range of the releases the contract applies to (default: all). */
  releases?: string
  /** Free tags for `--only` / `--skip` (besides the id and `writes`, `mock`, `description`). */
  tags?: string[]
  /** The mock's `--deviate` fault this contract must catch, if one is made for it. */
  deviation?: string
  /**
   * The statements of the API's description it checks, by their ids in the audit (audit.ts,
   * AUDIT.md). Every contract held to the description names at least one.
   */
  statements?: string[]
  /** With what data it checks them, for the audit: the rows, fields and values that can show a fault. */
  data?: string
  run(ctx: ContractContext): Promise<void>
}

/** What a failed check expected and what came back, with where to look. */
export interface Failure {
  expected: string
  received: string
  /** The exchange that showed it (method, path, status). */
  exchange?: string
  /** The schema path that failed, for answers that do not match the document. */
  schemaPath?: string
}

/** The installation under test and what verify may do to it. */
export interface Target {
  transport: Transport
  /** Normalized release number. */
  release: string
  /** Whether the target is an appdata-kit mock; decides whether the mock's own choices are checked. */
  holdTo: HoldTo
  credentials: { username: string; password: string }
  organization: string
  clientId: string
  legacyClientId: string
  workspaceId: string
  applicationId: string
  relationKey: string | undefined
  storageId: string | undefined
  /** The master storage's Identity field; guessed from the rows only when the target is held to the mock's choices. */
  identityField: string | undefined
  allowWrites: boolean
  /** The only address an e-mail may go to; e-mail is sent only when writes are allowed too. */
  emailTo: string | undefined
  actionIds: string[]
  /** Runs and seed of the contracts that draw random input (fast-check); the seed is reported with a failure. */
  fuzz: { runs: number; seed: number }
}

/** What a contract works with: a signed-in client of its own, the shared facts, the cleanup list. */
export interface ContractContext {
  target: Target
  profile: Profile
  /** Signed in; its answers are held to the document, and those that do not conform fail the contract. */
  client: Client
  /** A client of the same target with no session. */
  anonymous(): Client
  facts: Facts
  cleanup: Cleanup
  /** Records a failure when `ok` is false; returns `ok`. */
  check(ok: boolean, failure: Failure): boolean
  /** As check, but stops the contract on failure (the following steps would mean nothing). */
  require(ok: boolean, failure: Failure): asserts ok
  /** Stops the contract as skipped: a state it needs is not there (no row with attachments, ...). */
  skip(reason: string): never
  /** Something the report should say that is no failure: a part left unchecked, an answer worth a look. */
  note(text: string): void
  /** A value as a failure may show it: itself from the mock, its outline (names, Ids) from an installation. */
  show(value: unknown, max?: number): string
  /** Aborted when the run is interrupted; a contract's requests are refused from then on. */
  signal: AbortSignal
}

export type Outcome = 'passed' | 'failed' | 'skipped'

/** One contract's result in a run. */
export interface ContractResult {
  contract: Pick<Contract, 'id' | 'title' | 'severity' | 'holdsTo' | 'writes'>
  outcome: Outcome
  failures: Failure[]
  /** Why it was skipped. */
  reason?: string
  /** What it noted besides failures (parts left unchecked, answers worth a look). */
  notes?: string[]
  durationMs: number
}
