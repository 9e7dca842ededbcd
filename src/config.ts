import { parseArgs } from 'node:util'
import { normalizeVersion } from '../spec/versions.ts'
import { DEFAULT_MAX_SESSIONS } from './auth/tokens.ts'
import { DEVIATIONS } from './deviations.ts'

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
  /** Bytes of each request and response body the journal keeps; 0 keeps no bodies. */
  journalBodyLimit: number
  /** Public base URL used in generated row links; defaults to the listening address. */
  publicUrl: string | undefined
  logLevel: string
  /** Faults to emulate on purpose, for measuring `verify` (`--deviate NAME`, repeatable; not in the usage text). */
  deviate: string[]
  /** Live sessions kept at most; a sign-in beyond answers 503 (live tokens are never evicted). */
  maxSessions: number
  /** Refuse (400 STRICT_MODE) what the API's description does not promise, instead of accepting it with a warning. */
  strict: boolean
}

export const DEFAULTS: MockConfig = {
  port: 4080,
  host: '127.0.0.1',
  productVersion: 'latest',
  tokenTtl: 3600,
  fixture: 'fixtures/default.json',
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
  strict: false,
  deviate: [],
  maxSessions: DEFAULT_MAX_SESSIONS,
}

/** A flag or variable the mock cannot start with; the message says which and why. */
export class ConfigError extends Error {
  override name = 'ConfigError'
}

export const USAGE = `Usage: npm start -- [options]
  --port N               port to listen on (env PORT, default 4080; 0 picks a free one)
  --host H               interface to bind (default 127.0.0.1)
  --product-version V    release to emulate: latest (3.0.19), 3.0.0..3.0.18, or below 3.0 such as 2.9 (env PRODUCT_VERSION)
  --token-ttl S          token lifetime in seconds (default 3600)
  --fixture PATH         fixture file (default fixtures/default.json)
  --rows N               add N generated master rows, each with 2 detail rows, to the fixture's first application
  --seed N               seed for generated rows (default 1)
  --max-url-length N     longest accepted URL in characters (default 2048)
  --body-limit BYTES     largest accepted request body (default 62914560 = 60 MB)
  --no-control-plane     switch off the /__mock/ control plane
  --control-token T      token the control plane requires (needed to keep it on a non-loopback host)
  --upload-limit BYTES   largest file the control plane's upload accepts (default 10485760 = 10 MB)
  --journal-limit N      requests the control plane's journal keeps (default 1000)
  --journal-body-limit BYTES  bytes of each body the journal keeps (default 16384; 0 keeps none)
  --public-url URL       base URL used in generated row links
  --log-level L          fatal, error, warn, info, debug (default warn)
  --max-sessions N       live sessions kept at most; further sign-ins answer 503 (default 1000000)
  --strict               refuse with 400 what the API's description does not promise, instead of a warning (env MOCK_STRICT=1)
  --help                 print this text`

function integer(name: string, text: string | undefined, fallback: number, min: number, max: number): number {
  if (text === undefined || text === '') return fallback
  if (!/^\d+$/.test(text)) throw new ConfigError(`--${name} must be a whole number, got "${text}"`)
  const value = Number(text)
  if (value < min || value > max) throw new ConfigError(`--${name} must be between ${min} and ${max}, got ${value}`)
  return value
}

/** A boolean variable: 1, true, on, yes or 0, false, off, no (any case); unset or empty is false. */
function flagFromEnv(name: string, text: string | undefined): boolean {
  const value = text?.trim().toLowerCase() ?? ''
  if (value === '' || ['0', 'false', 'off', 'no'].includes(value)) return false
  if (['1', 'true', 'on', 'yes'].includes(value)) return true
  throw new ConfigError(`${name} must be 1 or 0 (true or false), got "${text}"`)
}

/** Deviation names, checked against the known ones. */
function deviations(names: string[]): string[] {
  const unknown = names.filter((name) => !(name in DEVIATIONS))
  if (unknown.length > 0) throw new ConfigError(`--deviate must be one of ${Object.keys(DEVIATIONS).join(', ')}; got ${unknown.join(', ')}`)
  return names
}

/** Reads flags (and the PORT / PRODUCT_VERSION / MOCK_STRICT variables); throws ConfigError on anything it cannot use. */
export function parseConfig(argv: readonly string[], env: NodeJS.ProcessEnv = {}): MockConfig & { help: boolean } {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: false,
      options: {
        port: { type: 'string' },
        host: { type: 'string' },
        'product-version': { type: 'string' },
        'token-ttl': { type: 'string' },
        fixture: { type: 'string' },
        rows: { type: 'string' },
        seed: { type: 'string' },
        'max-url-length': { type: 'string' },
        'body-limit': { type: 'string' },
        'control-plane': { type: 'boolean' },
        'no-control-plane': { type: 'boolean' },
        'control-token': { type: 'string' },
        'upload-limit': { type: 'string' },
        'journal-limit': { type: 'string' },
        'journal-body-limit': { type: 'string' },
        'public-url': { type: 'string' },
        'log-level': { type: 'string' },
        strict: { type: 'boolean' },
        'max-sessions': { type: 'string' },
        deviate: { type: 'string', multiple: true },
        help: { type: 'boolean' },
      },
    })
  } catch (error) {
    throw new ConfigError((error as Error).message)
  }
  const v = parsed.values
  const versionText = v['product-version'] ?? env.PRODUCT_VERSION ?? DEFAULTS.productVersion
  const productVersion = normalizeVersion(versionText)
  if (productVersion === null) {
    throw new ConfigError(`--product-version must be "latest" or a release number such as 3.0.19, 3.0.18 or 2.9, got "${versionText}"`)
  }
  return {
    help: v.help === true,
    port: integer('port', v.port ?? env.PORT, DEFAULTS.port, 0, 65535),
    host: v.host ?? DEFAULTS.host,
    productVersion,
    tokenTtl: integer('token-ttl', v['token-ttl'], DEFAULTS.tokenTtl, 1, 10 * 365 * 24 * 3600),
    fixture: v.fixture ?? DEFAULTS.fixture,
    rows: integer('rows', v.rows, DEFAULTS.rows, 0, 5_000_000),
    seed: integer('seed', v.seed, DEFAULTS.seed, 0, 2 ** 31 - 1),
    maxUrlLength: integer('max-url-length', v['max-url-length'], DEFAULTS.maxUrlLength, 16, 1_000_000),
    bodyLimit: integer('body-limit', v['body-limit'], DEFAULTS.bodyLimit, 1024, 2 ** 31 - 1),
    controlPlane: v['no-control-plane'] !== true,
    controlToken: v['control-token'],
    uploadLimit: integer('upload-limit', v['upload-limit'], DEFAULTS.uploadLimit, 1, 2 ** 31 - 1),
    journalLimit: integer('journal-limit', v['journal-limit'], DEFAULTS.journalLimit, 1, 1_000_000),
    journalBodyLimit: integer('journal-body-limit', v['journal-body-limit'], DEFAULTS.journalBodyLimit, 0, 64 * 1024 * 1024),
    publicUrl: v['public-url'],
    logLevel: v['log-level'] ?? DEFAULTS.logLevel,
    strict: v.strict === true || flagFromEnv('MOCK_STRICT', env.MOCK_STRICT),
    maxSessions: integer('max-sessions', v['max-sessions'], DEFAULTS.maxSessions, 1, 100_000_000),
    deviate: deviations(v.deviate ?? []),
  }
}
