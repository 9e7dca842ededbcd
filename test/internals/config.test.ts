import { describe, expect, it } from 'vitest'
import { DEFAULTS, parseConfig } from '../../src/mock/config.ts'
import { ConfigError } from '../../src/cli-base/exit.ts'
import { PACKAGE_VERSION } from '../../src/package-root.ts'

describe('parseConfig: the flags and variables of npm start', () => {
  it('starts from the documented defaults; the command line logs a line per request (info)', () => {
    const { print, ...config } = parseConfig([], {})
    expect(print).toBeUndefined()
    expect(config).toEqual({ ...DEFAULTS, productVersion: '3.0.19', logLevel: 'info' })
    expect(config).toMatchObject({
      port: 4080,
      host: '127.0.0.1',
      tokenTtl: 3600,
      bodyLimit: 60 * 1024 * 1024,
      maxUrlLength: 2048,
      controlPlane: true,
      logFormat: 'auto',
    })
    expect(config.fixture).toMatch(/fixtures[\\/]default\.json$/)
  })

  it.each([
    [['--port', '4181'], {}, { port: 4181 }],
    [[], { PORT: '4182' }, { port: 4182 }],
    [[], { MOCK_PORT: '4184' }, { port: 4184 }],
    [['--port', '4183'], { PORT: '4182' }, { port: 4183 }],
    [['--product-version', '2.9'], {}, { productVersion: '2.9.0' }],
    [[], { PRODUCT_VERSION: '3.0.18' }, { productVersion: '3.0.18' }],
    [['--product-version', 'latest'], { PRODUCT_VERSION: '2.9' }, { productVersion: '3.0.19' }],
    [['--host', '::1', '--token-ttl', '90', '--fixture', 'my.json'], {}, { host: '::1', tokenTtl: 90, fixture: 'my.json' }],
    [['--rows', '1000000', '--seed', '7'], {}, { rows: 1_000_000, seed: 7 }],
    [['--max-url-length', '4096', '--body-limit', '1048576'], {}, { maxUrlLength: 4096, bodyLimit: 1_048_576 }],
    [['--no-control-plane', '--control-token', 's3cret'], {}, { controlPlane: false, controlToken: 's3cret' }],
    [[], { MOCK_CONTROL_PLANE: '0' }, { controlPlane: false }],
    [[], { MOCK_CONTROL_PLANE: '1' }, { controlPlane: true }],
    [['--upload-limit', '1024', '--journal-limit', '50', '--journal-body-limit', '0'], {}, { uploadLimit: 1024, journalLimit: 50, journalBodyLimit: 0 }],
    [['--public-url', 'https://mock.example.test/', '--log-level', 'debug'], {}, { publicUrl: 'https://mock.example.test', logLevel: 'debug' }],
    [['--quiet'], {}, { logLevel: 'warn' }],
    [[], { MOCK_QUIET: 'yes' }, { logLevel: 'warn' }],
    [[], { MOCK_QUIET: '0' }, { logLevel: 'info' }],
    [['--log-format', 'json'], {}, { logFormat: 'json' }],
    [['--strict'], {}, { strict: true }],
    [[], { MOCK_STRICT: 'false' }, { strict: false }],
    [['--https', '--tls-out', 'certs'], {}, { tls: 'self-signed', tlsOut: 'certs' }],
    [['--cors', 'http://localhost:5173,https://app.example.test:8443'], {}, { cors: ['http://localhost:5173', 'https://app.example.test:8443'] }],
    [['--tls-cert', 'c.pem', '--tls-key', 'k.pem'], {}, { tls: { cert: 'c.pem', key: 'k.pem' } }],
    [['--cors', 'http://a.test, http://b.test'], {}, { cors: ['http://a.test', 'http://b.test'] }],
    [['--state-file', 'sandbox.json', '--state-interval', '5'], {}, { stateFile: 'sandbox.json', stateInterval: 5 }],
    [[], { MOCK_CORS: '*' }, { cors: ['*'] }],
    [[], {}, { allowedHosts: [], stateSync: 'never' }],
    [['--allowed-host', 'mock', '--allowed-host', 'Sandbox.Example.Test,.team.test'], {}, { allowedHosts: ['mock', 'sandbox.example.test', '.team.test'] }],
    [['--allowed-host', '[fd00::5]'], { MOCK_ALLOWED_HOSTS: 'mock, api' }, { allowedHosts: ['mock', 'api', '[fd00::5]'] }],
    [['--state-sync', 'always'], {}, { stateSync: 'always' }],
    [[], { MOCK_STATE_SYNC: 'always' }, { stateSync: 'always' }],
    [['--deviate', 'accept-stale', '--deviate', 'delete-noop'], {}, { deviate: ['accept-stale', 'delete-noop'] }],
  ])('reads %j with env %j', (argv, env, expected) => {
    expect(parseConfig(argv, env)).toMatchObject(expected)
  })

  it.each([
    [['--port', '70000'], /--port must be between 0 and 65535/],
    [['--token-ttl', '0'], /--token-ttl must be between/],
    [['--rows', 'many'], /--rows must be a whole number/],
    [['--product-version', '3.x'], /--product-version must be "latest".*got "3\.x"/],
    [['--product-version', '4.0'], /--product-version must be "latest".*got "4\.0"/],
    [['--product-version', '1.9'], /--product-version must be "latest"/],
    [['--public-url', 'notaurl'], /--public-url must be an absolute http or https URL/],
    [['--public-url', 'ftp://x.test'], /--public-url must be http or https/],
    [['--log-level', 'chatty'], /--log-level must be one of silent, fatal, error, warn, info, debug, trace, got "chatty"/],
    [['--log-format', 'xml'], /--log-format must be one of auto, pretty, json/],
    [['--tls-cert', 'c.pem'], /--tls-cert and --tls-key go together/],
    [['--deviate', 'nonsense'], /--deviate must be one of/],
    [['--tls-out', 'certs'], /--tls-out writes the certificate --https makes/],
    [['--https', '--tls-cert', 'c.pem', '--tls-key', 'k.pem'], /choose one of the two/],
    [['--quiet', '--log-level', 'error'], /--quiet is --log-level warn: give one of the two/],
    [['--cors', ''], /--cors needs \* or at least one origin/],
    [['--cors', 'notanorigin'], /--cors takes origins such as http:\/\/localhost:5173/],
    [['--cors', 'http://app.test/path'], /no path/],
    [['--state-file', '/nonexistent-folder/state.json'], /--state-file \/nonexistent-folder\/state.json: the folder \/nonexistent-folder does not exist/],
    [['--allowed-host', 'http://mock'], /--allowed-host takes a host name without scheme or port/],
    [['--allowed-host', 'mock:4080'], /--allowed-host takes a host name without scheme or port/],
    [['--state-sync', 'sometimes'], /--state-sync must be one of never, always, got "sometimes"/],
    [['--product-verison', '3.0.18'], /unknown option '--product-verison'[\s\S]*Did you mean --product-version\?/],
    [['--colour', 'red'], /colour/],
    [['extra'], /extra/],
  ])('refuses %j with a message naming the flag', (argv, message) => {
    expect(() => parseConfig(argv, {})).toThrow(ConfigError)
    expect(() => parseConfig(argv, {})).toThrow(message)
  })

  it('refuses a variable it cannot read, naming the variable', () => {
    expect(() => parseConfig([], { MOCK_STRICT: 'maybe' })).toThrow(/MOCK_STRICT must be 1 or 0/)
    expect(() => parseConfig([], { PORT: 'http' })).toThrow(/--port must be a whole number/)
  })

  it('answers --help with every flag, its variable and its default, and --version with the version', () => {
    const help = (parseConfig(['--help'], {}).print ?? '').replace(/\s+/g, ' ')
    for (const text of [
      '--port <n>',
      '(default: 4080, env: PORT or MOCK_PORT)',
      '--product-version',
      '--https',
      '--cors',
      '--quiet',
      '--no-control-plane',
      'Examples:',
    ])
      expect(help).toContain(text)
    expect(help).not.toContain('--deviate')
    expect(parseConfig(['--version'], {}).print?.trim()).toBe(PACKAGE_VERSION)
  })
})

describe('parseConfig: --time-zone', () => {
  it("takes an IANA name from the flag or MOCK_TIME_ZONE, the flag first; none leaves the fixture's", () => {
    expect(parseConfig([], {}).timeZone).toBeUndefined()
    expect(parseConfig(['--time-zone', 'Europe/Rome'], {}).timeZone).toBe('Europe/Rome')
    expect(parseConfig([], { MOCK_TIME_ZONE: 'America/New_York' }).timeZone).toBe('America/New_York')
    expect(parseConfig(['--time-zone', 'UTC'], { MOCK_TIME_ZONE: 'Asia/Tokyo' }).timeZone).toBe('UTC')
  })

  it('refuses a name that is no time zone, saying what it takes', () => {
    expect(() => parseConfig(['--time-zone', 'Mars/Olympus'], {})).toThrow(ConfigError)
    expect(() => parseConfig(['--time-zone', 'Mars/Olympus'], {})).toThrow('--time-zone must be an IANA time zone name')
  })
})
