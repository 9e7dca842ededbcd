import { inRange } from '../spec/versions.ts'
import { resolveProfile } from '../spec/profiles.ts'
import { createClient, ApiError, type Answer, type Client } from '../src/client/client.ts'
import { TransportError, type Transport } from '../src/wire/transport.ts'
import { Cleanup, type CleanupReport } from './cleanup.ts'
import { conformanceProblems } from './conformance.ts'
import { Facts } from './facts.ts'
import { gatherInformation, type Finding } from './information.ts'
import { Interrupted, Skip, Stop } from './halt.ts'
import { interruptibleTransport, Session, sessionTransport } from './session.ts'
import { showFor } from './show.ts'
import type { Contract, ContractContext, ContractResult, Failure, Need, Target } from './types.ts'

/** Why a run could not start: the target cannot be reached or signed in to, or (SetupError) its workspace or application cannot be read. */
export class TargetError extends Error {
  override name = 'TargetError'
}

export interface RunOptions {
  /** Contracts run at once (default 1: one after the other). */
  concurrency?: number
  /** Only contracts matching one of these (id, id prefix such as `save`, tag, `writes`, `mock`, `description`). */
  only?: string[]
  /** Leave out contracts matching one of these. */
  skip?: string[]
  /** Told about each contract as it ends (progress output). */
  onResult?(result: ContractResult): void
  /** Told what the run turns to next: a contract's id as it starts, `cleanup` before the run's rows are removed. */
  onPhase?(part: string): void
  /** Interrupts the run (Ctrl-C): no contract starts, the running ones stop at their next request, then the cleanup runs. */
  signal?: AbortSignal
  /** Told every session token the run signs in with or sees issued, so output can hide it. */
  onSecret?(secret: string): void
  /** Given the run's cleanup list as soon as there is one, so a forced exit can say which rows are left. */
  onCleanup?(cleanup: Cleanup): void
}

export interface RunReport {
  target: string
  release: string
  holdTo: Target['holdTo']
  results: ContractResult[]
  cleanup: CleanupReport
  durationMs: number
  /** True when the run was stopped before every contract ran. */
  interrupted: boolean
  /** What the installation does where the description is silent (information.ts); never a failure. */
  information: Finding[]
}

/** Whether a contract matches an `--only` / `--skip` pattern. */
export function matches(contract: Contract, pattern: string): boolean {
  return (
    contract.id === pattern ||
    contract.id.startsWith(`${pattern}.`) ||
    (contract.tags ?? []).includes(pattern) ||
    contract.holdsTo === pattern ||
    (pattern === 'writes' && contract.writes) ||
    (pattern === 'read-only' && !contract.writes)
  )
}

/** Why a contract does not run against this target, or undefined when it does. */
function reasonToSkip(contract: Contract, target: Target): string | undefined {
  if (!inRange(target.release, contract.releases)) return `not in release ${target.release} (applies to ${contract.releases})`
  if (contract.holdsTo === 'mock' && target.holdTo === 'description') return "checks a choice of the mock's, not of the API's description"
  const unmet: Record<Need, boolean> = {
    writes: !target.allowWrites,
    'relation-key': target.relationKey === undefined,
    storage: target.storageId === undefined,
    action: target.actionIds.length === 0,
    'email-to': target.emailTo === undefined,
  }
  const missing = contract.needs.filter((need) => unmet[need])
  if (missing.length === 0) return undefined
  const flag: Record<Need, string> = {
    writes: '--allow-writes',
    'relation-key': '--relation-key',
    storage: '--storage-id',
    action: '--action-id',
    'email-to': '--email-to',
  }
  return `needs ${missing.map((need) => flag[need]).join(' and ')}`
}

/** A client of the target for one purpose (over `transport`, by default the target's); `onAnswer` sees every answer it gets. */
export function targetClient(target: Target, token: string | undefined, onAnswer?: (answer: Answer) => void, transport: Transport = target.transport): Client {
  return createClient({
    transport,
    productVersion: target.release,
    organization: target.organization,
    clientId: target.clientId,
    legacyClientId: target.legacyClientId,
    workspaceId: target.workspaceId,
    applicationId: target.applicationId,
    ...(token === undefined ? {} : { token }),
    ...(onAnswer === undefined ? {} : { onAnswer }),
  })
}

/** Signs in with the target's credentials; a refusal, an answer without a token or an unreachable target is a TargetError. */
export async function signInTo(target: Target): Promise<string> {
  try {
    const { token } = await targetClient(target, undefined).signIn(target.credentials)
    if (typeof token !== 'string' || token === '') {
      throw new TargetError(
        `${target.transport.target} answered the sign-in of ${target.credentials.username} without a session token (access_token or SessionToken); is --base-url the API's address?`,
      )
    }
    return token
  } catch (error) {
    if (error instanceof ApiError) {
      const organization =
        error.status === 404 && resolveProfile(target.release).signIn === 'signIn'
          ? `; organization "${target.organization}" not found? Check --org (the Organization physical name)`
          : ''
      throw new TargetError(`cannot sign in to ${target.transport.target} as ${target.credentials.username}: ${error.message}${organization}`)
    }
    if (error instanceof TransportError) throw new TargetError(error.message)
    throw error
  }
}

/**
 * A setup the flags got wrong rather than an installation that is broken: the workspace or application
 * the run names is not there for the signed-in user. `flag` names the flag at fault (without `--`).
 */
export class SetupError extends TargetError {
  override name = 'SetupError'
  constructor(
    message: string,
    readonly flag: string,
    /** The other flag, when the answer cannot tell which of the two is wrong. */
    readonly orFlag?: string,
  ) {
    super(message)
  }
}

/**
 * Before any contract: one read of one row (read-only) with the run's workspace and application. When that is
 * refused, every contract that reads fails on it, sign-in's included, and the run would report a broken
 * installation for what is a typo in --workspace-id or --application-id; so the run stops here, naming the flag.
 * 403 is a workspace that is not the user's and 404 an unknown application on the mock (its pinned statuses); the
 * API's description shows no error statuses (Errors, 4), so against an installation the other flag is named too.
 * Any other answer is left to the contracts, which report it.
 */
export async function checkSetup(target: Target, token: string): Promise<void> {
  try {
    await targetClient(target, token).items({ top: 1 })
  } catch (error) {
    if (error instanceof TransportError) throw new TargetError(error.message)
    if (!(error instanceof ApiError) || (error.status !== 403 && error.status !== 404)) return
    const other = target.holdTo === 'mock' ? undefined : error.status === 403 ? 'application-id' : 'workspace-id'
    const read = `${target.transport.target} refused ${target.credentials.username} a read of one row (${error.message})`
    if (error.status === 403) throw new SetupError(`${read}: workspace ${target.workspaceId} is not one of this user's`, 'workspace-id', other)
    throw new SetupError(`${read}: no application ${target.applicationId} in workspace ${target.workspaceId}`, 'application-id', other)
  }
}

/** Session tokens an answer carries (a sign-in's result), which output must hide like the run's own. */
function tokensIn(body: unknown): string[] {
  if (body === null || typeof body !== 'object') return []
  const { access_token: current, SessionToken: legacy } = body as { access_token?: unknown; SessionToken?: unknown }
  return [current, legacy].filter((token): token is string => typeof token === 'string' && token !== '')
}

/** What one contract is run with: the target, the run's shared state, and the transports for its requests. */
interface Runtime {
  target: Target
  facts: Facts
  cleanup: Cleanup
  /** Requests with the session token (renewed when it expires), refused once the run is interrupted. */
  session: Transport
  /** Requests with other tokens or none, refused once the run is interrupted. */
  plain: Transport
  token: string
  signal: AbortSignal
  onSecret(secret: string): void
}

async function runOne(contract: Contract, run: Runtime): Promise<ContractResult> {
  const { target } = run
  const started = Date.now()
  const failures: Failure[] = []
  const notes: string[] = []
  const summary = { id: contract.id, title: contract.title, severity: contract.severity, holdsTo: contract.holdsTo, writes: contract.writes }
  const conform = (answer: Answer) => {
    for (const token of tokensIn(answer.body)) run.onSecret(token)
    for (const problem of conformanceProblems(target.release, answer, target.holdTo)) {
      failures.push({
        expected: 'an answer the document describes',
        received: problem,
        exchange: `${answer.method} ${answer.path.split('?')[0]} ${answer.status}`,
        schemaPath: /\(schema ([^)]*)\)/.exec(problem)?.[1] ?? '',
      })
    }
  }
  const ctx: ContractContext = {
    target,
    profile: resolveProfile(target.release),
    client: targetClient(target, run.token, conform, run.session),
    anonymous: () => targetClient(target, undefined, conform, run.plain),
    facts: run.facts,
    cleanup: run.cleanup,
    signal: run.signal,
    show: showFor(target.holdTo),
    check(ok, failure) {
      if (!ok) failures.push(failure)
      return ok
    },
    require(ok, failure) {
      if (!ok) {
        failures.push(failure)
        throw new Stop()
      }
    },
    skip(reason) {
      throw new Skip(reason)
    },
    note(text) {
      if (!notes.includes(text)) notes.push(text)
    },
  }
  const ended = (outcome: ContractResult['outcome'], extra: Partial<ContractResult> = {}): ContractResult => ({
    contract: summary,
    outcome,
    failures,
    ...(notes.length === 0 ? {} : { notes }),
    ...extra,
    durationMs: Date.now() - started,
  })
  try {
    await contract.run(ctx)
  } catch (error) {
    if ((error instanceof Skip || error instanceof Interrupted) && failures.length === 0)
      return ended('skipped', { reason: error instanceof Skip ? error.message : 'interrupted' })
    if (!(error instanceof Stop) && !(error instanceof Skip) && !(error instanceof Interrupted)) {
      const answer = error instanceof ApiError ? error.answer : undefined
      failures.push({
        expected: 'the call to succeed',
        received: (error as Error).message,
        ...(answer === undefined ? {} : { exchange: `${answer.method} ${answer.path.split('?')[0]} ${answer.status}` }),
      })
    }
  }
  // A property sends many requests; one wrong answer repeated is one failure.
  const unique = [...new Map(failures.map((f) => [`${f.expected}|${f.received}|${f.exchange ?? ''}`, f])).values()]
  failures.splice(0, failures.length, ...unique)
  return ended(unique.length === 0 ? 'passed' : 'failed')
}

/**
 * Runs contracts against a target: signs in, runs each contract that applies (one after the
 * other unless `concurrency` says otherwise), and at the end removes every row a contract
 * created, whatever happened. Contracts that do not apply (another release, a choice of the
 * mock's against a real installation, a write without `allowWrites`, a missing flag) are
 * reported as skipped with the reason.
 */
export async function runContracts(contracts: readonly Contract[], target: Target, options: RunOptions = {}): Promise<RunReport> {
  const started = Date.now()
  const onSecret = (secret: string) => options.onSecret?.(secret)
  const session = new Session(await signInTo(target), async () => {
    const token = await signInTo(target)
    onSecret(token)
    return token
  })
  onSecret(session.token)
  await checkSetup(target, session.token)
  const facts = new Facts({ relationKey: target.relationKey, detailsInQueries: resolveProfile(target.release).detailsInQueries })
  const cleanup = new Cleanup()
  options.onCleanup?.(cleanup)
  const signal = options.signal ?? new AbortController().signal
  const withSession = sessionTransport(target.transport, session)
  const run: Runtime = {
    target,
    facts,
    cleanup,
    session: interruptibleTransport(withSession, signal),
    plain: interruptibleTransport(target.transport, signal),
    token: session.token,
    signal,
    onSecret,
  }
  const selected = contracts.filter(
    (c) => (options.only === undefined || options.only.some((p) => matches(c, p))) && !(options.skip ?? []).some((p) => matches(c, p)),
  )
  const results: ContractResult[] = new Array(selected.length)
  let next = 0
  const worker = async () => {
    while (next < selected.length && !signal.aborted) {
      const index = next++
      const contract = selected[index] as Contract
      const reason = reasonToSkip(contract, target)
      options.onPhase?.(contract.id)
      const result: ContractResult =
        reason === undefined
          ? await runOne(contract, run)
          : {
              contract: { id: contract.id, title: contract.title, severity: contract.severity, holdsTo: contract.holdsTo, writes: contract.writes },
              outcome: 'skipped',
              reason,
              failures: [],
              durationMs: 0,
            }
      results[index] = result
      options.onResult?.(result)
    }
  }
  let removal: CleanupReport = { removed: 0, left: [] }
  let information: Finding[] = []
  try {
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 1) }, worker))
    if (!signal.aborted) {
      options.onPhase?.('information')
      information = await gatherInformation(targetClient(target, session.token, undefined, run.session), target, facts)
    }
  } finally {
    // Whatever happened, the rows this run created go again: with the session, not stopped by the interrupt.
    options.onPhase?.('cleanup')
    if (cleanup.size > 0) removal = await cleanup.run(targetClient(target, session.token, undefined, withSession), showFor(target.holdTo))
  }
  return {
    target: target.transport.target,
    release: target.release,
    holdTo: target.holdTo,
    results: results.filter((r) => r !== undefined),
    cleanup: removal,
    durationMs: Date.now() - started,
    interrupted: signal.aborted,
    information,
  }
}
