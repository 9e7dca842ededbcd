import { readFileSync, writeFileSync } from 'node:fs'
import { Command, CommanderError, Option } from 'commander'
import { CONTRACTS } from '../../contracts/index.ts'
import { matches, runContracts, TargetError, type RunReport } from '../../contracts/runner.ts'
import type { Target } from '../../contracts/types.ts'
import { httpTransport, TransportError, type Transport } from '../client/transport.ts'
import { detectRelease } from './detect.ts'
import { ConfigError, emulatedRelease, switchOn } from '../config.ts'
import { PACKAGE_VERSION } from '../package-root.ts'
import { jsonReport, junitXml, redactor, redactReport, resultLines, summaryLines } from './verify-report.ts'

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

export const EXIT = { ok: 0, failed: 1, usage: 2 } as const

/** A repeatable flag; its variable takes a comma-separated list. */
const collect = (value: string, previous: string[] = []) => [...previous, ...value.split(',').map((item) => item.trim()).filter((item) => item !== '')]

function positiveInteger(name: string) {
  return (value: string) => {
    if (!/^\d+$/.test(value) || Number(value) < 1) throw new CommanderError(EXIT.usage, 'appdata-kit.invalidValue', `${name} must be a positive whole number, got "${value}"`)
    return Number(value)
  }
}

/** The verify command's flags; every one can also come from an environment variable. */
export function verifyCommand(): Command {
  return new Command('verify')
    .helpOption('-h, --help', 'show this text')
    .version(PACKAGE_VERSION, '-v, --version', 'print the version of appdata-kit')
    .description(
      'Checks an installation (or a mock) against the contracts of the API: read-only unless --allow-writes, and then it touches only rows it creates and removes them again.\n' +
        'Exit code 0 when every contract checked holds, 1 when one fails, 2 for bad flags or an installation that cannot be reached or signed in to.',
    )
    .addOption(new Option('--base-url <url>', 'base URL of the installation, e.g. https://appdata.example.com').env('APPDATA_BASE_URL').makeOptionMandatory())
    .addOption(new Option('--org <name>', 'organization physical name (sign-in from 3.0.19)').env('APPDATA_ORG').makeOptionMandatory())
    .addOption(new Option('--username <email>', 'user to sign in as').env('APPDATA_USERNAME').makeOptionMandatory())
    .addOption(new Option('--password <password>', 'its password (prefer the environment variable: a flag shows in the process list)').env('APPDATA_PASSWORD').makeOptionMandatory())
    .addOption(new Option('--workspace-id <guid>', 'Workspace Id').env('APPDATA_WORKSPACE_ID').makeOptionMandatory())
    .addOption(new Option('--application-id <guid>', 'Application Id').env('APPDATA_APPLICATION_ID').makeOptionMandatory())
    .addOption(new Option('--relation-key <key>', 'a Detail Relation Key of the application, to check detail rows').env('APPDATA_RELATION_KEY'))
    .addOption(new Option('--product-version <version>', 'the release the installation runs; detected from its sign-in paths when left out').env('APPDATA_PRODUCT_VERSION'))
    .addOption(new Option('--client-id <id>', 'client_id of the current sign-in').env('APPDATA_CLIENT_ID').default('appdataapiv1'))
    .addOption(new Option('--legacy-client-id <id>', 'clientId of the legacy sign-in (below 3.0)').env('APPDATA_LEGACY_CLIENT_ID').default('appdata-legacy'))
    .addOption(new Option('--allow-writes', 'also run the contracts that write: they create their own rows and remove them again').env('APPDATA_ALLOW_WRITES'))
    .addOption(new Option('--email-to <address>', 'the only address an e-mail may go to (needs --allow-writes)').env('APPDATA_EMAIL_TO'))
    .addOption(new Option('--action-id <guid>', 'a custom action that may be run (repeatable; needs --allow-writes)').env('APPDATA_ACTION_IDS').argParser(collect).default([], 'none'))
    .addOption(new Option('--storage-id <guid>', 'master storage Id, to check identity reservation (needs --allow-writes)').env('APPDATA_STORAGE_ID'))
    .addOption(new Option('--identity-field <name>', 'the master storage\'s Identity field, never copied into new rows (needed with --allow-writes against an installation; guessed on the mock only)').env('APPDATA_IDENTITY_FIELD'))
    .addOption(new Option('--only <pattern>', 'run only contracts with this id, id prefix (save) or tag (writes, fuzz, mock, description); repeatable').env('APPDATA_ONLY').argParser(collect).default(undefined, 'all'))
    .addOption(new Option('--skip <pattern>', 'leave out contracts matching this; repeatable').env('APPDATA_SKIP').argParser(collect).default(undefined, 'none'))
    .addOption(new Option('--concurrency <n>', 'contracts run at once').env('APPDATA_CONCURRENCY').argParser(positiveInteger('--concurrency')).default(1))
    .addOption(new Option('--timeout <ms>', 'time limit of each request, from sending it to the answer\'s last byte, in milliseconds').env('APPDATA_TIMEOUT').argParser(positiveInteger('--timeout')).default(30_000))
    .addOption(new Option('--fuzz-runs <n>', 'random inputs per robustness contract').env('APPDATA_FUZZ_RUNS').argParser(positiveInteger('--fuzz-runs')).default(25))
    .addOption(new Option('--seed <n>', 'seed of the random inputs (printed with any failure)').env('APPDATA_SEED').argParser(positiveInteger('--seed')).default(undefined, 'random'))
    .addOption(new Option('--ca <file>', 'PEM file of a certificate authority to trust, for an installation with its own certificate').env('APPDATA_CA'))
    .addOption(new Option('--insecure', 'accept any TLS certificate (test installations only)').env('APPDATA_INSECURE'))
    .addOption(new Option('--as-installation', 'hold even a mock only to the API\'s description, as a real installation').env('APPDATA_AS_INSTALLATION'))
    .addOption(new Option('--junit <file>', 'write a JUnit XML report').env('APPDATA_JUNIT'))
    .addOption(new Option('--json <file>', 'write a JSON report').env('APPDATA_JSON'))
    .addHelpText('after', `
Example (the mock started with npm start):
  appdata-kit verify --base-url http://127.0.0.1:4080 --org acme --username admin@acme.test --password admin-pass \\
    --workspace-id 6f1c2a3e-0b7d-4c1e-9a55-2d3f4e5a6b70 --application-id a1b2c3d4-0000-4000-8000-000000000001 --relation-key OrderLines`)
}

interface Flags {
  baseUrl: string
  org: string
  username: string
  password: string
  workspaceId: string
  applicationId: string
  relationKey?: string
  productVersion?: string
  clientId: string
  legacyClientId: string
  allowWrites?: boolean
  emailTo?: string
  actionId: string[]
  storageId?: string
  identityField?: string
  only?: string[]
  skip?: string[]
  concurrency: number
  timeout: number
  fuzzRuns: number
  seed?: number
  ca?: string
  insecure?: boolean
  asInstallation?: boolean
  junit?: string
  json?: string
}

/**
 * `appdata-kit verify`: flags, a transport, the release (given or detected), the contracts, the
 * report. Returns the exit code; writes nothing but through `io`, so tests run it in-process.
 */
export async function runVerify(argv: readonly string[], io: Io): Promise<number> {
  const command = verifyCommand()
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr })
    .showSuggestionAfterError(true)
  let flags: Flags
  try {
    command.parse([...argv], { from: 'user' })
    switchesFromEnv(command)
    flags = command.opts<Flags>()
    checkFlags(flags)
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.exitCode === 0) return EXIT.ok
      if (error.code === 'appdata-kit.invalidValue') io.stderr(`error: ${error.message}\n`)
      return EXIT.usage
    }
    if (error instanceof ConfigError) {
      io.stderr(`error: ${error.message}\n`)
      return EXIT.usage
    }
    throw error
  }
  const redact = redactor([flags.password])
  const say = (text: string) => io.stdout(`${redact(text)}\n`)
  let transport: Transport
  try {
    transport = io.transport ?? httpTransport(flags.baseUrl, { timeoutMs: flags.timeout, ...(flags.ca === undefined ? {} : { ca: readFileSync(flags.ca) }), ...(flags.insecure === true ? { insecure: true } : {}) })
  } catch (error) {
    io.stderr(`error: ${(error as Error).message}\n`)
    return EXIT.usage
  }
  try {
    const detected = await detectRelease(transport, flags.org, flags.productVersion)
    if ('reason' in detected) {
      io.stderr(`error: ${flags.baseUrl}: ${detected.reason}\n`)
      return EXIT.usage
    }
    const holdTo = detected.isMock && flags.asInstallation !== true ? 'mock' : 'description'
    if (holdTo === 'description' && flags.allowWrites === true && flags.identityField === undefined) {
      // A guessed Identity field copies a real identity value into the new rows (Save, Rows[].Row.IdRow: null on creation).
      io.stderr(`error: --allow-writes against an installation needs --identity-field (the master storage's Identity field, such as IdRow): verify never guesses it there\n`)
      return EXIT.usage
    }
    say(`verifying ${transport.target}: release ${detected.label}${flags.productVersion === undefined ? ' (detected)' : ''}, ${holdTo === 'mock' ? "an appdata-kit mock: its own choices are checked too" : "held to the API's description"}, ${flags.allowWrites === true ? 'writes allowed' : 'read-only'}`)
    const target: Target = {
      transport,
      release: detected.release,
      holdTo,
      credentials: { username: flags.username, password: flags.password },
      organization: flags.org,
      clientId: flags.clientId,
      legacyClientId: flags.legacyClientId,
      workspaceId: flags.workspaceId,
      applicationId: flags.applicationId,
      relationKey: flags.relationKey,
      storageId: flags.storageId,
      identityField: flags.identityField,
      allowWrites: flags.allowWrites === true,
      emailTo: flags.emailTo,
      actionIds: flags.actionId,
      fuzz: { runs: flags.fuzzRuns, seed: flags.seed ?? Math.floor(Math.random() * 2 ** 31) },
    }
    const report = await runContracts(CONTRACTS, target, {
      concurrency: flags.concurrency,
      ...(flags.only === undefined ? {} : { only: flags.only }),
      ...(flags.skip === undefined ? {} : { skip: flags.skip }),
      ...(io.signal === undefined ? {} : { signal: io.signal }),
      onSecret: (secret) => redact.add(secret),
      onCleanup: (cleanup) => io.onPending?.(() => cleanup.pending()),
      onResult: (result) => {
        for (const line of resultLines(result, io.terminal)) say(line)
      },
    })
    for (const line of summaryLines(report)) say(line)
    writeReports(flags, redactReport(report, redact), redact)
    const failed = report.results.some((r) => r.outcome === 'failed') || report.cleanup.left.length > 0
    return failed ? EXIT.failed : EXIT.ok
  } catch (error) {
    if (error instanceof TargetError || error instanceof TransportError) {
      io.stderr(`error: ${redact(error.message)}\n`)
      return EXIT.usage
    }
    throw error
  } finally {
    await transport.close()
  }
}

/** The flags' values that commander cannot check alone; a ConfigError (exit 2) names the flag. */
function checkFlags(flags: Flags): void {
  if (flags.productVersion !== undefined) emulatedRelease(flags.productVersion)
  const writing = [flags.emailTo === undefined ? '' : '--email-to', flags.actionId.length === 0 ? '' : '--action-id', flags.storageId === undefined ? '' : '--storage-id'].filter((flag) => flag !== '')
  if (writing.length > 0 && flags.allowWrites !== true) {
    // Each of them names something verify would send or change: an e-mail, an action run, reserved identity values.
    throw new ConfigError(`${writing.join(', ')} ${writing.length === 1 ? 'needs' : 'need'} --allow-writes (or APPDATA_ALLOW_WRITES=1): ${writing.length === 1 ? 'it names' : 'they name'} what verify may write`)
  }
  for (const pattern of flags.only ?? []) {
    if (!CONTRACTS.some((contract) => matches(contract, pattern))) {
      throw new ConfigError(`--only ${pattern} matches no contract; give an id (save.stale-refused), an id prefix (save) or a tag (writes, read-only, fuzz, mock, description)`)
    }
  }
}

/**
 * A switch taken from its variable is on only for 1, true, on or yes: commander would take any
 * value, and `APPDATA_ALLOW_WRITES=0` must never allow writes.
 */
function switchesFromEnv(command: Command): void {
  for (const option of command.options) {
    if (!option.isBoolean() || option.envVar === undefined) continue
    const name = option.attributeName()
    if (command.getOptionValueSource(name) !== 'env') continue
    command.setOptionValueWithSource(name, switchOn(option.envVar, process.env[option.envVar] ?? '') ? true : undefined, 'env')
  }
}

function writeReports(flags: Flags, report: RunReport, redact: (text: string) => string): void {
  if (flags.junit !== undefined) writeFileSync(flags.junit, redact(junitXml(report)))
  if (flags.json !== undefined) writeFileSync(flags.json, redact(jsonReport(report)))
}
