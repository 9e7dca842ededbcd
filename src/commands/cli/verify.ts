import { writeFileSync } from 'node:fs'
import { Option, type Command } from 'commander'
import { CONTRACTS } from '../../../contracts/index.ts'
import { checkSetup, matches, runContracts, SetupError, signInTo, TargetError, type RunReport } from '../../../contracts/runner.ts'
import type { Target } from '../../../contracts/types.ts'
import { TransportError, type Transport } from '../../wire/transport.ts'
import { apiDocument } from '../../document/reader.ts'
import { compareRuns, type Difference } from '../compare/compare.ts'
import { recordingTransport, type Exchange } from '../compare/recording.ts'
import { baseUrl, collect, connectionOptions, connectionTransport, parseFlags, positiveInteger, type ConnectionFlags } from './connection.ts'
import { detectRelease } from './detect.ts'
import { emulatedRelease } from '../../mock/config.ts'
import { ConfigError, EXIT } from '../../cli-base/exit.ts'
import { subcommand } from '../../cli-base/command.ts'
import { verifyUsage } from '../usage/verify-usage.ts'
import { readUsageFile, UsageFileError, type UsageFile } from '../../usage-file/file.ts'
import { htmlReport, type HtmlReportInput } from './verify-html.ts'
import { differenceLines, jsonReport, junitXml, redactor, redactReport, resultLines, type Redactor } from './verify-report.ts'
import { summaryLines } from '../../../contracts/summary.ts'

/** Where verify writes, and whether it writes to a terminal (progress) or a log (failures only). */
export interface Io {
  stdout: (text: string) => void
  stderr: (text: string) => void
  terminal: boolean
  /** Aborted by Ctrl-C or SIGTERM: contracts stop at their next request, the cleanup still runs. */
  signal?: AbortSignal
  /** Told how to list the rows created and not removed yet, for an exit that cannot wait for the cleanup. */
  onPending?(pending: () => string[]): void
  /** The transport to use instead of HTTP (tests); the base URL is still required and reported. */
  transport?: Transport
}

/** The verify command's flags; every one can also come from an environment variable. */
export function verifyCommand(): Command {
  const command = subcommand(
    'verify',
    'Checks an installation (or a mock) against the contracts of the API: read-only unless --allow-writes, and then it touches only rows it creates and removes them again.\n' +
      'Exit code 0 when every contract checked holds, 1 when one fails, 2 for bad flags, an installation that cannot be reached or signed in to, or a --workspace-id or --application-id the user cannot read there.\n' +
      'With --compare-with it runs the same cases against a second installation and reports where the answers differ (exit 1 when they do).',
  )
  for (const option of connectionOptions()) command.addOption(option)
  command.addOption(new Option('--relation-key <key>', 'a Detail Relation Key of the application, to check detail rows').env('APPDATA_RELATION_KEY'))
  command.addOption(
    new Option('--allow-writes', 'also run the contracts that write: they create their own rows and remove them again').env('APPDATA_ALLOW_WRITES'),
  )
  command.addOption(new Option('--email-to <address>', 'the only address an e-mail may go to (needs --allow-writes)').env('APPDATA_EMAIL_TO'))
  command.addOption(
    new Option('--action-id <guid>', 'a custom action that may be run (repeatable; needs --allow-writes)')
      .env('APPDATA_ACTION_IDS')
      .argParser(collect)
      .default([], 'none'),
  )
  command.addOption(new Option('--storage-id <guid>', 'master storage Id, to check identity reservation (needs --allow-writes)').env('APPDATA_STORAGE_ID'))
  command.addOption(
    new Option(
      '--identity-field <name>',
      "the master storage's Identity field, never copied into new rows (needed with --allow-writes against an installation; guessed on the mock only)",
    ).env('APPDATA_IDENTITY_FIELD'),
  )
  command.addOption(
    new Option('--only <pattern>', 'run only contracts with this id, id prefix (save) or tag (writes, fuzz, mock, description); repeatable')
      .env('APPDATA_ONLY')
      .argParser(collect)
      .default(undefined, 'all'),
  )
  command.addOption(
    new Option('--skip <pattern>', 'leave out contracts matching this; repeatable').env('APPDATA_SKIP').argParser(collect).default(undefined, 'none'),
  )
  command.addOption(new Option('--concurrency <n>', 'contracts run at once').env('APPDATA_CONCURRENCY').argParser(positiveInteger('--concurrency')).default(1))
  command.addOption(
    new Option('--fuzz-runs <n>', 'random inputs per robustness contract').env('APPDATA_FUZZ_RUNS').argParser(positiveInteger('--fuzz-runs')).default(25),
  )
  command.addOption(
    new Option('--seed <n>', 'seed of the random inputs (printed with any failure)')
      .env('APPDATA_SEED')
      .argParser(positiveInteger('--seed'))
      .default(undefined, 'random'),
  )
  command.addOption(new Option('--as-installation', "hold even a mock only to the API's description, as a real installation").env('APPDATA_AS_INSTALLATION'))
  command.addOption(new Option('--junit <file>', 'write a JUnit XML report').env('APPDATA_JUNIT'))
  command.addOption(new Option('--json <file>', 'write a JSON report').env('APPDATA_JSON'))
  command.addOption(
    new Option('--html <file>', 'write a self-contained HTML report, with the exchanges of each failed contract (runs one contract at a time)').env(
      'APPDATA_HTML',
    ),
  )
  command.addOption(
    new Option('--usage <file>', 'check exactly what a client used, as a mock started with --record-usage recorded it, instead of the contracts').env(
      'APPDATA_USAGE',
    ),
  )
  command.addOption(
    new Option(
      '--compare-with <url>',
      'base URL of a second installation (or mock): the same cases run against both, and where their answers differ is reported',
    )
      .env('APPDATA_COMPARE_WITH')
      .argParser(baseUrl('--compare-with')),
  )
  command.addOption(new Option('--compare-org <name>', 'organization of the second installation').env('APPDATA_COMPARE_ORG').default(undefined, '--org'))
  command.addOption(
    new Option('--compare-username <email>', 'user to sign in to the second installation as').env('APPDATA_COMPARE_USERNAME').default(undefined, '--username'),
  )
  command.addOption(new Option('--compare-password <password>', 'its password').env('APPDATA_COMPARE_PASSWORD').default(undefined, '--password'))
  command.addOption(
    new Option('--compare-workspace-id <guid>', 'Workspace Id on the second installation')
      .env('APPDATA_COMPARE_WORKSPACE_ID')
      .default(undefined, '--workspace-id'),
  )
  command.addOption(
    new Option('--compare-application-id <guid>', 'Application Id on the second installation')
      .env('APPDATA_COMPARE_APPLICATION_ID')
      .default(undefined, '--application-id'),
  )
  command.addOption(
    new Option('--compare-client-id <id>', 'client_id of the second installation').env('APPDATA_COMPARE_CLIENT_ID').default(undefined, '--client-id'),
  )
  command.addOption(
    new Option('--compare-product-version <version>', 'release of the second installation')
      .env('APPDATA_COMPARE_PRODUCT_VERSION')
      .default(undefined, 'detected'),
  )
  command.addHelpText(
    'after',
    `
Example (the mock started with npm start):
  appdata-kit verify --base-url http://127.0.0.1:4080 --org acme --username admin@acme.test --password admin-pass \\
    --workspace-id 6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b70 --application-id a1b2c3d4-0000-4000-8000-000000000001 --relation-key OrderLines`,
  )
  return command
}

interface Flags extends ConnectionFlags {
  relationKey?: string
  allowWrites?: boolean
  emailTo?: string
  actionId: string[]
  storageId?: string
  identityField?: string
  only?: string[]
  skip?: string[]
  concurrency: number
  fuzzRuns: number
  seed?: number
  asInstallation?: boolean
  junit?: string
  json?: string
  html?: string
  usage?: string
  compareWith?: string
  compareOrg?: string
  compareUsername?: string
  comparePassword?: string
  compareWorkspaceId?: string
  compareApplicationId?: string
  compareClientId?: string
  compareProductVersion?: string
}

/** Verify stops here with this exit code; the message is already written. */
class Stop {
  constructor(readonly code: number) {}
}

/**
 * `appdata-kit verify`: flags, a transport, the release (given or detected), the contracts, the
 * report; with `--compare-with`, the same for a second installation and the differences. Returns
 * the exit code; writes nothing but through `io`, so tests run it in-process.
 */
export async function runVerify(argv: readonly string[], io: Io): Promise<number> {
  const command = verifyCommand().exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr }).showSuggestionAfterError(true)
  const flags = parseFlags<Flags>(command, argv, io.stderr, checkFlags)
  if (typeof flags === 'number') return flags
  const redact = redactor([flags.password, flags.comparePassword ?? ''])
  const say = (text: string) => io.stdout(`${redact(text)}\n`)
  // A usage file is checked before the installation is reached: a file no command can use is the user's to fix first.
  let usage: UsageFile | undefined
  if (flags.usage !== undefined) {
    try {
      usage = readUsageFile(flags.usage, { flag: '--usage' })
    } catch (error) {
      if (!(error instanceof UsageFileError)) throw error
      io.stderr(`error: ${error.message}\n`)
      return EXIT.usage
    }
  }
  const transports: Transport[] = []
  try {
    const first = await prepareTarget(flags, flags, io, redact, transports, io.transport)
    if (flags.usage !== undefined && usage !== undefined) return await usageRun(flags.usage, usage, first, flags, io, redact, say)
    if (flags.compareWith === undefined) {
      say(targetLine(first, flags))
      // For --html, every exchange is kept with the contract that sent it (which needs one contract at a time).
      const recording = flags.html === undefined ? undefined : recordingTransport(first.target.transport)
      const prepared = recording === undefined ? first : { ...first, target: { ...first.target, transport: recording } }
      const report = await runAgainst(prepared, flags, io, redact, say, recording === undefined ? undefined : (part) => (recording.part = part))
      writeReports(flags, redactReport(report, redact), redact, undefined, recording?.exchanges)
      return failedRun(report) ? EXIT.failed : EXIT.ok
    }
    const second = await prepareTarget(secondSide(flags), flags, io, redact, transports)
    return await compare(sameStandard(first, second, say), flags, io, redact, say)
  } catch (error) {
    if (error instanceof Stop) return error.code
    if (error instanceof SetupError) {
      io.stderr(`error: ${redact(error.message)}; check ${flagHint(error)}\n`)
      return EXIT.usage
    }
    if (error instanceof TargetError || error instanceof TransportError) {
      io.stderr(`error: ${redact(error.message)}\n`)
      return EXIT.usage
    }
    throw error
  } finally {
    for (const transport of transports) await transport.close()
  }
}

/** `--usage FILE`: the recorded interactions instead of the contracts, with the same reports and exit codes. */
async function usageRun(
  path: string,
  usage: UsageFile,
  prepared: Prepared,
  flags: Flags,
  io: Io,
  redact: Redactor,
  say: (text: string) => void,
): Promise<number> {
  say(targetLine(prepared, flags))
  const report = await verifyUsage(path, usage, prepared.target, {
    say,
    terminal: io.terminal,
    concurrency: flags.concurrency,
    ...(flags.only === undefined ? {} : { only: flags.only }),
    ...(flags.skip === undefined ? {} : { skip: flags.skip }),
    ...(io.signal === undefined ? {} : { signal: io.signal }),
    onSecret: (secret) => redact.add(secret),
    onCleanup: (cleanup) => io.onPending?.(() => cleanup.pending()),
  })
  writeReports(flags, redactReport(report, redact), redact, undefined, [], 'usage')
  return failedRun(report) ? EXIT.failed : EXIT.ok
}

/** The second installation's connection: each `--compare-*` flag, else the first's. */
function secondSide(flags: Flags): ConnectionFlags {
  return {
    ...flags,
    baseUrl: flags.compareWith as string,
    org: flags.compareOrg ?? flags.org,
    username: flags.compareUsername ?? flags.username,
    password: flags.comparePassword ?? flags.password,
    workspaceId: flags.compareWorkspaceId ?? flags.workspaceId,
    applicationId: flags.compareApplicationId ?? flags.applicationId,
    clientId: flags.compareClientId ?? flags.clientId,
    ...(flags.compareProductVersion === undefined ? {} : { productVersion: flags.compareProductVersion }),
  }
}

/** An installation to run against: its transport, detected release and target. */
interface Prepared {
  target: Target
  label: string
  productVersionGiven: boolean
}

async function prepareTarget(
  side: ConnectionFlags,
  flags: Flags,
  io: Io,
  redact: (text: string) => string,
  transports: Transport[],
  given?: Transport,
): Promise<Prepared> {
  let transport: Transport
  try {
    transport = given ?? connectionTransport(side.baseUrl, side)
  } catch (error) {
    io.stderr(`error: ${(error as Error).message}\n`)
    throw new Stop(EXIT.usage)
  }
  transports.push(transport)
  const detected = await detectRelease(transport, side.org, side.productVersion)
  if ('reason' in detected) {
    io.stderr(`error: ${redact(side.baseUrl)}: ${detected.reason}\n`)
    throw new Stop(EXIT.usage)
  }
  const holdTo = detected.isMock && flags.asInstallation !== true ? 'mock' : 'description'
  if (holdTo === 'description' && flags.allowWrites === true && flags.identityField === undefined) {
    // A guessed Identity field copies a real identity value into the new rows (Save, Rows[].Row.IdRow: null on creation).
    io.stderr(
      `error: --allow-writes against an installation needs --identity-field (the master storage's Identity field, such as IdRow): verify never guesses it there\n`,
    )
    throw new Stop(EXIT.usage)
  }
  const target: Target = {
    transport,
    release: detected.release,
    holdTo,
    credentials: { username: side.username, password: side.password },
    organization: side.org,
    clientId: side.clientId,
    legacyClientId: side.legacyClientId,
    workspaceId: side.workspaceId,
    applicationId: side.applicationId,
    relationKey: flags.relationKey,
    storageId: flags.storageId,
    identityField: flags.identityField,
    allowWrites: flags.allowWrites === true,
    emailTo: flags.emailTo,
    actionIds: flags.actionId,
    fuzz: { runs: flags.fuzzRuns, seed: flags.seed ?? randomSeed },
  }
  return { target, label: detected.label, productVersionGiven: side.productVersion !== undefined }
}

/**
 * Both sides of a comparison held to one standard: against a real installation, the mock too is
 * held only to the API's description, or every check of the mock's own choices would show as a
 * difference (passed on one side, skipped on the other).
 */
function sameStandard(first: Prepared, second: Prepared, say: (text: string) => void): [Prepared, Prepared] {
  if (first.target.holdTo === second.target.holdTo) return [first, second]
  say("one side is not an appdata-kit mock: both are held to the API's description only")
  const described = (prepared: Prepared): Prepared => ({ ...prepared, target: { ...prepared.target, holdTo: 'description' } })
  return [described(first), described(second)]
}

/** One seed for the run, so both sides of a comparison draw the same random cases. */
const randomSeed = Math.floor(Math.random() * 2 ** 31)

function targetLine({ target, label, productVersionGiven }: Prepared, flags: Flags): string {
  return `verifying ${target.transport.target}: release ${label}${productVersionGiven ? '' : ' (detected)'}, ${target.holdTo === 'mock' ? 'an appdata-kit mock: its own choices are checked too' : "held to the API's description"}, ${flags.allowWrites === true ? 'writes allowed' : 'read-only'}`
}

async function runAgainst(
  prepared: Prepared,
  flags: Flags,
  io: Io,
  redact: Redactor,
  say: (text: string) => void,
  onPhase?: (part: string) => void,
): Promise<RunReport> {
  const report = await runContracts(CONTRACTS, prepared.target, {
    // A comparison pairs requests in the order they were sent, so its runs go one contract at a time.
    concurrency: onPhase === undefined ? flags.concurrency : 1,
    ...(flags.only === undefined ? {} : { only: flags.only }),
    ...(flags.skip === undefined ? {} : { skip: flags.skip }),
    ...(io.signal === undefined ? {} : { signal: io.signal }),
    ...(onPhase === undefined ? {} : { onPhase }),
    onSecret: (secret) => redact.add(secret),
    onCleanup: (cleanup) => io.onPending?.(() => cleanup.pending()),
    onResult: (result) => {
      for (const line of resultLines(result, io.terminal)) say(line)
    },
  })
  for (const line of summaryLines(report)) say(line)
  return report
}

const failedRun = (report: RunReport) => report.results.some((r) => r.outcome === 'failed') || report.cleanup.left.length > 0

/**
 * `--compare-with`: the same contracts, with the same seed, against both installations one
 * contract at a time, every exchange recorded; then the answers compared request by request,
 * and the contracts' outcomes side by side. Exit 1 when anything differs (or rows were left).
 */
async function compare([first, second]: [Prepared, Prepared], flags: Flags, io: Io, redact: Redactor, say: (text: string) => void): Promise<number> {
  // Both sign-ins first, then both setups: a wrong password for the second side stops the run before anything
  // was read on the first, a wrong workspace or application before any contract ran.
  const tokens: string[] = []
  for (const { target } of [first, second]) {
    tokens.push(await signInTo(target))
    redact.add(tokens.at(-1) as string)
  }
  for (const [i, { target }] of [first, second].entries()) {
    try {
      await checkSetup(target, tokens[i] as string)
    } catch (error) {
      // The second side's workspace and application come from --compare-workspace-id and --compare-application-id.
      const side = (flag: string) => (i === 1 ? `compare-${flag}` : flag)
      if (error instanceof SetupError) throw new SetupError(error.message, side(error.flag), error.orFlag === undefined ? undefined : side(error.orFlag))
      throw error
    }
  }
  const sides = [first, second].map((prepared) => {
    const recording = recordingTransport(prepared.target.transport)
    return { prepared: { ...prepared, target: { ...prepared.target, transport: recording } }, recording }
  })
  const reports: RunReport[] = []
  for (const [i, { prepared, recording }] of sides.entries()) {
    say(`${i === 0 ? 'first' : 'second'}: ${targetLine(prepared, flags)}`)
    reports.push(await runAgainst(prepared, flags, io, redact, say, (part) => (recording.part = part)))
  }
  const [a, b] = reports as [RunReport, RunReport]
  const differences = [...outcomeDifferences(a, b), ...compareRuns(sides[0]?.recording.exchanges ?? [], sides[1]?.recording.exchanges ?? [], apiDocument())]
  for (const line of differenceLines(differences, a.target, b.target)) say(line)
  writeReports(flags, redactReport(a, redact), redact, {
    second: redactReport(b, redact),
    differences,
    exchanges: sides.map((side) => side.recording.exchanges),
  })
  // Differences, a contract failing on either side, or rows left behind: exit 1.
  return differences.length > 0 || failedRun(a) || failedRun(b) ? EXIT.failed : EXIT.ok
}

/** The flag (or flags) a setup mistake points at, as the user typed them. */
function flagHint(error: SetupError): string {
  const name = (flag: string) => (flag.endsWith('workspace-id') ? `--${flag} (the Workspace Id)` : `--${flag} (the Application Id)`)
  return error.orFlag === undefined ? name(error.flag) : `${name(error.flag)}, or else ${name(error.orFlag)}`
}

/** Contracts that held on one installation and not on the other. */
function outcomeDifferences(a: RunReport, b: RunReport): Difference[] {
  const outcomes = new Map(b.results.map((result) => [result.contract.id, result.outcome]))
  return a.results
    .filter((result) => outcomes.get(result.contract.id) !== result.outcome)
    .map((result) => ({
      operationId: '-',
      part: result.contract.id,
      index: 0,
      kind: 'outcome' as const,
      first: result.outcome,
      second: outcomes.get(result.contract.id) ?? 'not run',
      request: '',
    }))
}

/** The checks commander cannot make alone; a ConfigError (exit 2) names the flag. */
function checkFlags(flags: Flags): void {
  if (flags.productVersion !== undefined) emulatedRelease(flags.productVersion)
  if (flags.compareProductVersion !== undefined) emulatedRelease(flags.compareProductVersion)
  const writing = [
    flags.emailTo === undefined ? '' : '--email-to',
    flags.actionId.length === 0 ? '' : '--action-id',
    flags.storageId === undefined ? '' : '--storage-id',
  ].filter((flag) => flag !== '')
  if (writing.length > 0 && flags.allowWrites !== true) {
    // Each of them names something verify would send or change: an e-mail, an action run, reserved identity values.
    throw new ConfigError(
      `${writing.join(', ')} ${writing.length === 1 ? 'needs' : 'need'} --allow-writes (or APPDATA_ALLOW_WRITES=1): ${writing.length === 1 ? 'it names' : 'they name'} what verify may write`,
    )
  }
  const compareFlags = (
    ['compareOrg', 'compareUsername', 'comparePassword', 'compareWorkspaceId', 'compareApplicationId', 'compareClientId', 'compareProductVersion'] as const
  ).filter((name) => flags[name] !== undefined)
  if (flags.compareWith === undefined && compareFlags.length > 0)
    throw new ConfigError(`--${compareFlags[0]?.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} needs --compare-with (the second installation's base URL)`)
  if (flags.usage !== undefined && flags.compareWith !== undefined)
    throw new ConfigError('--usage and --compare-with go separately: --usage checks one installation against what a client used')
  // With --usage, --only and --skip name the usage's interactions (usage.queryItems, usage.queryItems.3).
  for (const pattern of flags.usage === undefined ? (flags.only ?? []) : []) {
    if (!CONTRACTS.some((contract) => matches(contract, pattern))) {
      throw new ConfigError(
        `--only ${pattern} matches no contract; give an id (save.stale-refused), an id prefix (save) or a tag (writes, read-only, fuzz, mock, description)`,
      )
    }
  }
}

function writeReports(
  flags: Flags,
  report: RunReport,
  redact: (text: string) => string,
  comparison?: { second: RunReport; differences: Difference[]; exchanges: Exchange[][] },
  exchanges: readonly Exchange[] = [],
  kind: 'contracts' | 'usage' = 'contracts',
): void {
  if (flags.html !== undefined) {
    const writtenAt = new Date().toISOString()
    const input: HtmlReportInput =
      comparison === undefined
        ? { kind, first: { report, exchanges }, writtenAt }
        : {
            kind: 'comparison',
            first: { report, exchanges: comparison.exchanges[0] ?? [] },
            second: { report: comparison.second, exchanges: comparison.exchanges[1] ?? [] },
            differences: comparison.differences,
            writtenAt,
          }
    writeFileSync(flags.html, redact(htmlReport(input, redact)))
  }
  if (flags.junit !== undefined) writeFileSync(flags.junit, redact(junitXml(report)))
  if (flags.json !== undefined)
    writeFileSync(
      flags.json,
      redact(
        comparison === undefined
          ? jsonReport(report)
          : `${JSON.stringify({ first: JSON.parse(jsonReport(report)), second: JSON.parse(jsonReport(comparison.second)), differences: comparison.differences }, null, 2)}\n`,
      ),
    )
}
