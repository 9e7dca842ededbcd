import { readFileSync } from 'node:fs'
import { Command, CommanderError, Option } from 'commander'
import { httpTransport, type Transport } from '../../wire/transport.ts'
import { switchOn } from '../../mock/config.ts'
import { ConfigError, EXIT, exitCodeOf } from '../../cli-base/exit.ts'

/** A repeatable flag; its variable takes a comma-separated list. */
export const collect = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== ''),
]

/** A flag that takes a whole number from 1 up. */
export function positiveInteger(name: string) {
  return (value: string) => {
    if (!/^\d+$/.test(value) || Number(value) < 1)
      throw new CommanderError(EXIT.usage, 'appdata-kit.invalidValue', `${name} must be a positive whole number, got "${value}"`)
    return Number(value)
  }
}

/**
 * A flag that takes an installation's base URL: absolute, http or https. Said in the project's
 * words (the runtime's URL parser says only "Invalid URL"), and refused as a bad flag (exit 2)
 * before anything is sent.
 */
export function baseUrl(name: string) {
  return (value: string) => {
    let url: URL | undefined
    try {
      url = new URL(value)
    } catch {
      url = undefined
    }
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new CommanderError(
        EXIT.usage,
        'appdata-kit.invalidValue',
        `${name} must be an absolute http or https URL such as https://appdata.example.com, got "${value}"`,
      )
    }
    return value
  }
}

/** The flags that say where an installation is and who signs in to it. */
export interface ConnectionFlags {
  baseUrl: string
  org: string
  username: string
  password: string
  workspaceId: string
  applicationId: string
  productVersion?: string
  clientId: string
  legacyClientId: string
  timeout: number
  ca?: string
  insecure?: boolean
}

/**
 * The connection flags of `verify` and `capture`, each with its `APPDATA_*` variable: where the
 * installation is, who signs in, which workspace and application, its release, TLS.
 */
export function connectionOptions(): Option[] {
  return [
    new Option('--base-url <url>', 'base URL of the installation, e.g. https://appdata.example.com')
      .env('APPDATA_BASE_URL')
      .argParser(baseUrl('--base-url'))
      .makeOptionMandatory(),
    new Option('--org <name>', 'organization physical name (sign-in from 3.0.19)').env('APPDATA_ORG').makeOptionMandatory(),
    new Option('--username <email>', 'user to sign in as').env('APPDATA_USERNAME').makeOptionMandatory(),
    new Option('--password <password>', 'its password (prefer the environment variable: a flag shows in the process list)')
      .env('APPDATA_PASSWORD')
      .makeOptionMandatory(),
    new Option('--workspace-id <guid>', 'Workspace Id').env('APPDATA_WORKSPACE_ID').makeOptionMandatory(),
    new Option('--application-id <guid>', 'Application Id').env('APPDATA_APPLICATION_ID').makeOptionMandatory(),
    new Option('--product-version <version>', 'the release the installation runs; detected from its sign-in paths when left out').env(
      'APPDATA_PRODUCT_VERSION',
    ),
    new Option('--client-id <id>', 'client_id of the current sign-in').env('APPDATA_CLIENT_ID').default('appdataapiv1'),
    new Option('--legacy-client-id <id>', 'clientId of the legacy sign-in (below 3.0)').env('APPDATA_LEGACY_CLIENT_ID').default('appdata-legacy'),
    new Option('--timeout <ms>', "time limit of each request, from sending it to the answer's last byte, in milliseconds")
      .env('APPDATA_TIMEOUT')
      .argParser(positiveInteger('--timeout'))
      .default(30_000),
    new Option('--ca <file>', 'PEM file of a certificate authority to trust, for an installation with its own certificate').env('APPDATA_CA'),
    new Option('--insecure', 'accept any TLS certificate (test installations only)').env('APPDATA_INSECURE'),
  ]
}

/** An HTTP(S) transport to `baseUrl` with the connection flags' time limit and TLS settings. */
export function connectionTransport(baseUrl: string, flags: Pick<ConnectionFlags, 'timeout' | 'ca' | 'insecure'>): Transport {
  return httpTransport(baseUrl, {
    timeoutMs: flags.timeout,
    ...(flags.ca === undefined ? {} : { ca: readFileSync(flags.ca) }),
    ...(flags.insecure === true ? { insecure: true } : {}),
  })
}

/**
 * A switch taken from its variable is on only for 1, true, on or yes: commander would take any
 * value, and `APPDATA_ALLOW_WRITES=0` must never allow writes.
 */
export function switchesFromEnv(command: Command): void {
  for (const option of command.options) {
    if (!option.isBoolean() || option.envVar === undefined) continue
    const name = option.attributeName()
    if (command.getOptionValueSource(name) !== 'env') continue
    command.setOptionValueWithSource(name, switchOn(option.envVar, process.env[option.envVar] ?? '') ? true : undefined, 'env')
  }
}

/**
 * Parses a command's flags (and their variables), then `check` for what commander cannot check
 * alone. The flags, or the exit code to end with: 0 after --help or --version, 2 for a flag or
 * value refused (its message already written).
 */
export function parseFlags<F>(
  command: Command,
  argv: readonly string[],
  stderr: (text: string) => void,
  check: (flags: F) => void = () => undefined,
): F | number {
  const required = command.options.filter((option) => option.mandatory)
  try {
    // Commander reports a missing required flag before an unknown one, so a typo in a required flag
    // (--aplication-id) got "required option '--application-id' not specified" and no "did you mean".
    // With an unknown flag present, the required ones wait, and commander's own unknown-flag error comes first.
    if (hasUnknownFlag(command, argv)) for (const option of required) option.mandatory = false
    command.parse([...argv], { from: 'user' })
    switchesFromEnv(command)
    const flags = command.opts<F & object>()
    check(flags)
    return flags
  } catch (error) {
    if (!(error instanceof CommanderError || error instanceof ConfigError)) throw error
    // Commander has written its own errors already; the refusals of our checks are written here.
    if (error instanceof ConfigError || error.code === 'appdata-kit.invalidValue') stderr(`error: ${error.message}\n`)
    return exitCodeOf(error)
  } finally {
    for (const option of required) option.mandatory = true
  }
}

/** Whether argv holds a flag the command does not know, read by a copy of its options (values are not kept). */
function hasUnknownFlag(command: Command, argv: readonly string[]): boolean {
  // Silent and never exiting: a value the copy refuses is reported by the real parse that follows.
  const copy = new Command()
    .allowExcessArguments(true)
    .exitOverride()
    .configureOutput({ writeOut: () => undefined, writeErr: () => undefined })
  for (const option of command.options) copy.addOption(option)
  try {
    const [first] = copy.parseOptions([...argv]).unknown
    return first?.startsWith('-') === true && first !== '-h' && first !== '--help'
  } catch {
    return false
  }
}
