import { isTimeZone } from '../store/model/data-types.ts'
import { accessSync, constants } from 'node:fs'
import { dirname, resolve } from 'node:path'
import { CommanderError, Option, type Command } from 'commander'
import { subcommand } from '../cli-base/command.ts'
import { ConfigError } from '../cli-base/exit.ts'
import { inRange, LATEST_VERSION, normalizeVersion } from '../../spec/versions.ts'
import { DEFAULT_MAX_SESSIONS } from '../http/auth/tokens.ts'
import { DEVIATION_NAMES, isDeviationName } from '../deviate/deviation-names.ts'
import { packageFile } from '../package-root.ts'
import { STATE_SYNC_MODES, type StateSync } from '../state/sync-modes.ts'

export { STATE_SYNC_MODES, type StateSync }

/** Everything the mock can be told at start; `startMock()` takes the same fields. */
export interface MockConfig {
  port: number
  host: string
  /** Normalized release number (`latest` becomes the newest release the document describes). */
  productVersion: string
  /** Token lifetime in seconds, sent as `expires_in`. */
  tokenTtl: number
  fixture: string
  /** Generated master rows added to the fixture (each with two detail rows). */
  rows: number
  seed: number
  maxUrlLength: number
  bodyLimit: number
  controlPlane: boolean
  controlToken: string | undefined
  /** Largest file the control plane's attachment upload accepts, in bytes. */
  uploadLimit: number
  /** Requests the control plane's journal keeps; older ones are evicted. */
  journalLimit: number
  /** Bytes of each request and response body the journal keeps; 0 keeps none. */
  journalBodyLimit: number
  /** Public base URL used in generated row links; defaults to the listening address. */
  publicUrl: string | undefined
  logLevel: LogLevel
  /** `pretty`: one readable line per request; `json`: JSON lines; `auto`: pretty on a terminal, else JSON. */
  logFormat: 'auto' | 'pretty' | 'json'
  /** Refuse (400 STRICT_MODE) what the API's description does not promise, instead of accepting it with a warning. */
  strict: boolean
  /** Faults to emulate on purpose, for measuring `verify` (`--deviate NAME`, repeatable; not in the usage text). */
  deviate: string[]
  /** Live sessions kept at most; a sign-in beyond answers 503 (live tokens are never evicted). */
  maxSessions: number
  /** Serve HTTPS: with a certificate and key from files, or one made at start (`self-signed`). */
  tls: { cert: string; key: string } | 'self-signed' | undefined
  /** Folder to write the self-signed certificate to, for clients to trust. */
  tlsOut: string | undefined
  /** Origins allowed to call the mock from a browser (`*` for any); none by default. */
  cors: string[] | undefined
  /** File the data is restored from at start (when it exists) and kept in: at every interval with changes, and at stop. */
  stateFile: string | undefined
  /** Seconds between writes of the state file. */
  stateInterval: number
  /** `always`: the state file's change log is flushed to the disk before each answer; `never`: written before it, flushed by the system. */
  stateSync: StateSync
  /**
   * Host names the mock answers besides loopback names (`localhost`, `*.localhost`, 127.0.0.0/8, `[::1]`);
   * `.example.test` takes the name and its subdomains, `*` any. Other `Host` headers get 403 FOREIGN_HOST
   * on a loopback bind, and on any bind once one is given.
   */
  allowedHosts: string[]
  /** File the usage of the API (shapes, not values) is recorded to, written at stop; not recorded when undefined. */
  recordUsage: string | undefined
  /** `--time-zone`: the installation's time zone (IANA name), over the fixture's `organization.timeZone` (default UTC). */
  timeZone: string | undefined
}

export const LOG_LEVELS = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/** What `startMock()` uses when not told otherwise; the command line differs only in logging requests (info). */
export const DEFAULTS: MockConfig = {
  port: 4080,
  host: '127.0.0.1',
  productVersion: 'latest',
  tokenTtl: 3600,
  // The package's own default fixture, wherever the mock is started from.
  fixture: packageFile('fixtures/default.json'),
  rows: 0,
  seed: 1,
  maxUrlLength: 2048,
  bodyLimit: 60 * 1024 * 1024,
  controlPlane: true,
  controlToken: undefined,
  uploadLimit: 10 * 1024 * 1024,
  journalLimit: 1000,
  // Saves, sign-ins and problems fit; a page of rows does not, and keeping those would push
  // every answered page into the old generation (see `npm run bench`).
  journalBodyLimit: 16 * 1024,
  publicUrl: undefined,
  logLevel: 'warn',
  logFormat: 'auto',
  strict: false,
  deviate: [],
  maxSessions: DEFAULT_MAX_SESSIONS,
  tls: undefined,
  tlsOut: undefined,
  cors: undefined,
  stateFile: undefined,
  stateInterval: 30,
  stateSync: 'never',
  allowedHosts: [],
  recordUsage: undefined,
  timeZone: undefined,
}

/** A release the mock can emulate: 2.x (legacy), 3.0.0 to 3.0.18, 3.0.19 and later 3.x. */
export function emulatedRelease(text: string): string {
  const release = normalizeVersion(text)
  if (release === null || !inRange(release, '>=2.0.0 <4.0.0')) {
    throw new ConfigError(`--product-version must be "latest" (${LATEST_VERSION}) or a release from 2.0 to 3.x such as 3.0.19, 3.0.18 or 2.9; got "${text}"`)
  }
  return release
}

function wholeNumber(flag: string, min: number, max: number) {
  return (text: string): number => {
    if (!/^\d+$/.test(text.trim())) throw new ConfigError(`--${flag} must be a whole number, got "${text}"`)
    const value = Number(text)
    if (value < min || value > max) throw new ConfigError(`--${flag} must be between ${min} and ${max}, got ${value}`)
    return value
  }
}

function absoluteUrl(text: string): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new ConfigError(`--public-url must be an absolute http or https URL such as https://mock.example.test, got "${text}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`--public-url must be http or https, got "${text}"`)
  return text.replace(/\/+$/, '')
}

/** `--cors`: `*`, or origins such as `http://localhost:5173`, comma-separated. */
function corsOrigins(text: string): string[] {
  const origins = text
    .split(',')
    .map((origin) => origin.trim())
    .filter((origin) => origin !== '')
  if (origins.length === 0) throw new ConfigError('--cors needs * or at least one origin, such as http://localhost:5173')
  for (const origin of origins) {
    if (origin === '*') continue
    let url: URL | undefined
    try {
      url = new URL(origin)
    } catch {
      url = undefined
    }
    // An origin is scheme, host and port, nothing more (no path, no trailing slash).
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin) {
      throw new ConfigError(`--cors takes origins such as http://localhost:5173 (scheme, host and port, no path), or *; got "${origin}"`)
    }
  }
  return origins
}

/** A file the mock will write: its folder must exist and be writable now, not at the first save. */
export function writableFile(flag: string, path: string): string {
  const dir = dirname(resolve(path))
  try {
    accessSync(dir, constants.W_OK)
  } catch {
    throw new ConfigError(`${flag} ${path}: the folder ${dir} does not exist or cannot be written`)
  }
  return path
}

/**
 * `--allowed-host`: a host name or address without port (`mock`, `sandbox.example.test`, `10.0.0.5`,
 * `[fd00::5]`), `.example.test` for the name and its subdomains, or `*` for any; comma-separated
 * names too (as MOCK_ALLOWED_HOSTS gives them). Repeated flags add up.
 */
export function allowedHostNames(text: string, previous: string[] = []): string[] {
  const names = text
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '')
  if (names.length === 0) throw new ConfigError('--allowed-host needs a host name, such as --allowed-host mock')
  for (const name of names) {
    if (name === '*' || /^\[[0-9a-f:.]+\]$/.test(name)) continue
    if (!/^\.?[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?(\.[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?)*\.?$/.test(name)) {
      throw new ConfigError(
        `--allowed-host takes a host name without scheme or port (mock, sandbox.example.test, .example.test for subdomains too, or *); got "${name}"`,
      )
    }
  }
  return [...previous, ...names]
}

function oneOf<T extends string>(flag: string, values: readonly T[]) {
  return (text: string): T => {
    if (!(values as readonly string[]).includes(text)) throw new ConfigError(`--${flag} must be one of ${values.join(', ')}, got "${text}"`)
    return text as T
  }
}

/** A boolean variable: 1, true, on, yes or 0, false, off, no (any case). */
export function switchOn(name: string, text: string): boolean {
  const value = text.trim().toLowerCase()
  if (['1', 'true', 'on', 'yes'].includes(value)) return true
  if (['0', 'false', 'off', 'no', ''].includes(value)) return false
  throw new ConfigError(`${name} must be 1 or 0 (true or false), got "${text}"`)
}

/** A flag with the variables it may also come from (the first given wins; the flag wins over all). */
interface FlagSpec {
  option: Option
  env: string[]
}

function flag(spec: string, description: string, env: string[], shown?: string): FlagSpec {
  // Written into the description: commander shows only defaults it holds a value for, and these are applied after parsing.
  const extra = [shown === undefined ? '' : `default: ${shown}`, env.length > 0 ? `env: ${env.join(' or ')}` : ''].filter((part) => part !== '')
  return { option: new Option(spec, `${description}${extra.length > 0 ? ` (${extra.join(', ')})` : ''}`), env }
}

/** A flag whose values add up, each read by `parse`. */
function repeatable(spec: FlagSpec, parse: (text: string, previous: string[] | undefined) => string[]): FlagSpec {
  spec.option.argParser(parse)
  return spec
}

/** The mock's flags, each with its variables and, where it has one, the default the usage text shows. */
export const MOCK_FLAGS: FlagSpec[] = [
  flag('--port <n>', 'port to listen on; 0 picks a free one', ['PORT', 'MOCK_PORT'], '4080'),
  flag(
    '--host <host>',
    'interface to bind; a host reachable from other machines switches the control plane off unless --control-token is given',
    ['MOCK_HOST'],
    '127.0.0.1',
  ),
  flag(
    '--product-version <version>',
    'release to emulate: latest, 3.0.0 to 3.0.18, or below 3.0 such as 2.9',
    ['PRODUCT_VERSION', 'MOCK_PRODUCT_VERSION'],
    `latest (${LATEST_VERSION})`,
  ),
  flag('--token-ttl <seconds>', 'session token lifetime, sent as expires_in', ['MOCK_TOKEN_TTL'], '3600'),
  flag('--fixture <path>', 'fixture file (JSON Schema: fixtures/fixture.schema.json of the package)', ['MOCK_FIXTURE'], "the package's fixtures/default.json"),
  flag('--rows <n>', "add n generated master rows, each with 2 detail rows, to the fixture's first application", ['MOCK_ROWS'], '0'),
  flag('--seed <n>', 'seed of the generated rows (same seed, same rows)', ['MOCK_SEED'], '1'),
  flag(
    '--state-file <file>',
    'keep the data in this file (a snapshot by column): restored from it at start when it exists (instead of --fixture and --rows); every change is logged beside it (FILE.log) before it is answered, the snapshot written again at every interval with changes (in slices, while the mock serves) and at stop',
    ['MOCK_STATE_FILE'],
  ),
  flag('--state-interval <seconds>', 'seconds between snapshots of --state-file (its change log starts again then)', ['MOCK_STATE_INTERVAL'], '30'),
  flag(
    '--state-sync <mode>',
    "never: each change is written to --state-file's change log before it is answered (survives a killed process); always: flushed to the disk too (survives a power loss)",
    ['MOCK_STATE_SYNC'],
    'never',
  ),
  repeatable(
    flag(
      '--allowed-host <name>',
      'answer requests for this host name too, besides localhost and loopback addresses (repeatable; .example.test for subdomains too, * for any); other Host headers get 403',
      ['MOCK_ALLOWED_HOSTS'],
      'none',
    ),
    allowedHostNames,
  ),
  flag(
    '--record-usage <file>',
    'record what clients use of the API (operations, query options, fields and types, never values or secrets) and write it to this file at stop; GET /__mock/usage reads it live',
    ['MOCK_RECORD_USAGE'],
  ),
  flag(
    '--time-zone <zone>',
    "the installation's time zone (IANA name such as Europe/Rome): the wall clock of the DateTime values the mock stamps, over the fixture's organization.timeZone",
    ['MOCK_TIME_ZONE'],
    "the fixture's, else UTC",
  ),
  flag('--strict', "refuse with 400 STRICT_MODE what the API's description does not promise, instead of accepting it with a warning", ['MOCK_STRICT']),
  flag('--https', 'serve HTTPS with a self-signed certificate made at start (its SHA-256 fingerprint is printed)', ['MOCK_HTTPS']),
  flag('--tls-cert <file>', 'serve HTTPS with this PEM certificate (with --tls-key)', ['MOCK_TLS_CERT']),
  flag('--tls-key <file>', 'the PEM private key of --tls-cert', ['MOCK_TLS_KEY']),
  flag('--tls-out <dir>', 'write the self-signed certificate of --https to this folder (cert.pem), for clients to trust', ['MOCK_TLS_OUT']),
  flag('--cors <origins>', 'answer browser calls and preflights from these origins, comma-separated, or * for any', ['MOCK_CORS'], 'off'),
  flag(
    '--public-url <url>',
    'base URL of generated row links and of the documentation page, when the mock sits behind a proxy',
    ['MOCK_PUBLIC_URL'],
    'the listening address',
  ),
  flag('--log-level <level>', `${LOG_LEVELS.join(', ')}; info logs one line per request`, ['MOCK_LOG_LEVEL'], 'info'),
  flag(
    '--log-format <format>',
    'pretty (one readable line per request), json (JSON lines), or auto: pretty on a terminal, json otherwise',
    ['MOCK_LOG_FORMAT'],
    'auto',
  ),
  flag('--quiet', 'log warnings and errors only (no line per request)', ['MOCK_QUIET']),
  flag('--max-url-length <n>', 'longest URL accepted; longer ones answer 414', ['MOCK_MAX_URL_LENGTH'], '2048'),
  flag('--body-limit <bytes>', 'largest request body accepted; larger ones answer 413', ['MOCK_BODY_LIMIT'], '62914560 (60 MB)'),
  flag(
    '--max-sessions <n>',
    'live sessions kept at most; a sign-in beyond answers 503 (live tokens are never ended early)',
    ['MOCK_MAX_SESSIONS'],
    String(DEFAULT_MAX_SESSIONS),
  ),
  flag('--no-control-plane', 'switch the /__mock/ control plane off (health stays)', ['MOCK_CONTROL_PLANE=0']),
  flag('--control-token <token>', 'token every control plane call must send (required to keep it on a non-loopback host)', ['MOCK_CONTROL_TOKEN']),
  flag('--upload-limit <bytes>', "largest file the control plane's upload accepts", ['MOCK_UPLOAD_LIMIT'], '10485760 (10 MB)'),
  flag('--journal-limit <n>', "requests the control plane's journal keeps", ['MOCK_JOURNAL_LIMIT'], '1000'),
  flag('--journal-body-limit <bytes>', 'bytes of each body the journal keeps; 0 keeps none', ['MOCK_JOURNAL_BODY_LIMIT'], '16384'),
  { option: new Option('--deviate <name>', 'break one behaviour on purpose, for testing verify').hideHelp(), env: [] },
]

/** The `mock` command with every flag; its help lists them with their defaults and an example. */
export function mockCommand(): Command {
  const command = subcommand(
    'mock',
    'Start the mock of the Application Data Web API, with the default fixture unless told otherwise. When it is ready it prints "listening on http://HOST:PORT".',
  )
    .usage('[options]')
    .addHelpText(
      'after',
      '\nExamples:\n  npx appdata-kit mock --port 4181 --product-version 3.0.18\n  npm start -- --https --tls-out ./certs --cors http://localhost:5173',
    )
  for (const { option } of MOCK_FLAGS) command.addOption(option)
  return command
}

/** Flags given as variables, as arguments before those of the command line (which then win). */
function argsFromEnv(env: NodeJS.ProcessEnv): string[] {
  const args: string[] = []
  for (const { option, env: names } of MOCK_FLAGS) {
    for (const entry of names) {
      const [name, fixed] = entry.split('=') as [string, string | undefined]
      const value = env[name]
      if (value === undefined || value === '') continue
      if (fixed !== undefined) {
        // A variable that switches a negated flag: MOCK_CONTROL_PLANE=0 is --no-control-plane.
        if (!switchOn(name, value)) args.push(option.long as string)
      } else if (option.isBoolean()) {
        if (switchOn(name, value)) args.push(option.long as string)
      } else args.push(`${option.long}=${value}`)
      break
    }
  }
  return args
}

interface ParsedFlags {
  port?: string
  host?: string
  productVersion?: string
  tokenTtl?: string
  fixture?: string
  rows?: string
  seed?: string
  strict?: boolean
  https?: boolean
  tlsCert?: string
  tlsKey?: string
  tlsOut?: string
  cors?: string
  stateFile?: string
  stateInterval?: string
  stateSync?: string
  allowedHost?: string[]
  recordUsage?: string
  publicUrl?: string
  logLevel?: string
  logFormat?: string
  quiet?: boolean
  maxUrlLength?: string
  bodyLimit?: string
  maxSessions?: string
  controlPlane: boolean
  controlToken?: string
  uploadLimit?: string
  journalLimit?: string
  journalBodyLimit?: string
  deviate?: string | string[]
  timeZone?: string
}

/**
 * Reads the mock's flags (and the variables that stand for them); throws ConfigError on anything
 * it cannot use, with a suggestion for a mistyped flag. `print` is the text to show instead of
 * starting, for `--help` (the usage) and `--version`.
 */
export function parseConfig(argv: readonly string[], env: Readonly<Record<string, string | undefined>> = {}): MockConfig & { print: string | undefined } {
  const command = mockCommand().exitOverride().showSuggestionAfterError(true)
  let errorText = ''
  let outText = ''
  command.configureOutput({ writeErr: (text) => (errorText += text), writeOut: (text) => (outText += text) })
  const deviations: string[] = []
  command.on('option:deviate', (value: string) => deviations.push(value))
  try {
    command.parse([...argsFromEnv(env), ...argv], { from: 'user' })
  } catch (error) {
    if (error instanceof CommanderError) {
      // --help and --version: the text commander would have printed, for the caller to print.
      if (error.exitCode === 0) return { ...DEFAULTS, print: outText }
      if (error.code === 'commander.excessArguments')
        throw new ConfigError(
          `unexpected argument${command.args.length > 1 ? 's' : ''} ${command.args.map((a) => `"${a}"`).join(' ')}: every value follows its flag, as in --port 4181`,
        )
      throw new ConfigError(errorText.replace(/^error: /, '').trim() || error.message)
    }
    throw error
  }
  const v = command.opts<ParsedFlags>()
  const number = (flagName: string, text: string | undefined, fallback: number, min: number, max: number) =>
    text === undefined ? fallback : wholeNumber(flagName, min, max)(text)
  if ((v.tlsCert === undefined) !== (v.tlsKey === undefined))
    throw new ConfigError('--tls-cert and --tls-key go together: give both, or --https for a certificate made at start')
  if (v.https === true && v.tlsCert !== undefined)
    throw new ConfigError('--https makes a certificate at start; --tls-cert and --tls-key give one: choose one of the two')
  if (v.tlsOut !== undefined && v.https !== true)
    throw new ConfigError('--tls-out writes the certificate --https makes; without --https there is none to write')
  if (v.quiet === true && v.logLevel !== undefined) throw new ConfigError('--quiet is --log-level warn: give one of the two')
  const unknown = deviations.filter((name) => !isDeviationName(name))
  if (unknown.length > 0) throw new ConfigError(`--deviate must be one of ${DEVIATION_NAMES.join(', ')}; got ${unknown.join(', ')}`)
  return {
    print: undefined,
    port: number('port', v.port, DEFAULTS.port, 0, 65535),
    host: v.host ?? DEFAULTS.host,
    productVersion: emulatedRelease(v.productVersion ?? DEFAULTS.productVersion),
    tokenTtl: number('token-ttl', v.tokenTtl, DEFAULTS.tokenTtl, 1, 10 * 365 * 24 * 3600),
    fixture: v.fixture ?? DEFAULTS.fixture,
    rows: number('rows', v.rows, DEFAULTS.rows, 0, 5_000_000),
    seed: number('seed', v.seed, DEFAULTS.seed, 0, 2 ** 31 - 1),
    maxUrlLength: number('max-url-length', v.maxUrlLength, DEFAULTS.maxUrlLength, 16, 1_000_000),
    bodyLimit: number('body-limit', v.bodyLimit, DEFAULTS.bodyLimit, 1024, 2 ** 31 - 1),
    controlPlane: v.controlPlane,
    controlToken: v.controlToken,
    uploadLimit: number('upload-limit', v.uploadLimit, DEFAULTS.uploadLimit, 1, 2 ** 31 - 1),
    journalLimit: number('journal-limit', v.journalLimit, DEFAULTS.journalLimit, 1, 1_000_000),
    journalBodyLimit: number('journal-body-limit', v.journalBodyLimit, DEFAULTS.journalBodyLimit, 0, 64 * 1024 * 1024),
    publicUrl: v.publicUrl === undefined ? undefined : absoluteUrl(v.publicUrl),
    // The command line logs one line per request unless told otherwise; --quiet keeps warnings and errors.
    logLevel: v.quiet === true ? 'warn' : v.logLevel === undefined ? 'info' : oneOf('log-level', LOG_LEVELS)(v.logLevel),
    logFormat: v.logFormat === undefined ? 'auto' : oneOf('log-format', ['auto', 'pretty', 'json'] as const)(v.logFormat),
    strict: v.strict === true,
    deviate: deviations,
    maxSessions: number('max-sessions', v.maxSessions, DEFAULTS.maxSessions, 1, 100_000_000),
    tls: v.tlsCert !== undefined && v.tlsKey !== undefined ? { cert: v.tlsCert, key: v.tlsKey } : v.https === true ? 'self-signed' : undefined,
    tlsOut: v.tlsOut,
    cors: v.cors === undefined ? undefined : corsOrigins(v.cors),
    stateFile: v.stateFile === undefined ? undefined : writableFile('--state-file', v.stateFile),
    stateInterval: number('state-interval', v.stateInterval, DEFAULTS.stateInterval, 1, 24 * 3600),
    stateSync: v.stateSync === undefined ? DEFAULTS.stateSync : oneOf('state-sync', STATE_SYNC_MODES)(v.stateSync),
    allowedHosts: v.allowedHost ?? [],
    recordUsage: v.recordUsage === undefined ? undefined : writableFile('--record-usage', v.recordUsage),
    timeZone: v.timeZone === undefined ? undefined : timeZoneName(v.timeZone),
  }
}

/** An IANA time zone name this runtime knows. */
function timeZoneName(text: string): string {
  if (!isTimeZone(text))
    throw new ConfigError(`--time-zone must be an IANA time zone name such as UTC, Europe/Rome or America/New_York; got ${JSON.stringify(text)}`)
  return text
}
