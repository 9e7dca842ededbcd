import { describe, expect, it } from 'vitest'
import { ConfigError, DEFAULTS, parseConfig } from '../../src/config.ts'

describe('parseConfig: the flags and variables of npm start', () => {
  it('starts from the documented defaults', () => {
    const { help, ...config } = parseConfig([], {})
    expect(help).toBe(false)
    expect(config).toEqual({ ...DEFAULTS, productVersion: '3.0.19' })
    expect(config).toMatchObject({ port: 4080, host: '127.0.0.1', tokenTtl: 3600, bodyLimit: 60 * 1024 * 1024, maxUrlLength: 2048, controlPlane: true })
  })

  it.each([
    [['--port', '4181'], {}, { port: 4181 }],
    [[], { PORT: '4182' }, { port: 4182 }],
    [['--port', '4183'], { PORT: '4182' }, { port: 4183 }],
    [['--product-version', '2.9'], {}, { productVersion: '2.9.0' }],
    [[], { PRODUCT_VERSION: '3.0.18' }, { productVersion: '3.0.18' }],
    [['--product-version', 'latest'], { PRODUCT_VERSION: '2.9' }, { productVersion: '3.0.19' }],
    [['--host', '::1', '--token-ttl', '90', '--fixture', 'my.json'], {}, { host: '::1', tokenTtl: 90, fixture: 'my.json' }],
    [['--rows', '1000000', '--seed', '7'], {}, { rows: 1_000_000, seed: 7 }],
    [['--max-url-length', '4096', '--body-limit', '1048576'], {}, { maxUrlLength: 4096, bodyLimit: 1_048_576 }],
    [['--no-control-plane', '--control-token', 's3cret'], {}, { controlPlane: false, controlToken: 's3cret' }],
    [['--upload-limit', '1024', '--journal-limit', '50', '--journal-body-limit', '0'], {}, { uploadLimit: 1024, journalLimit: 50, journalBodyLimit: 0 }],
    [['--public-url', 'https://mock.example.test', '--log-level', 'info'], {}, { publicUrl: 'https://mock.example.test', logLevel: 'info' }],
  ])('reads %j with env %j', (argv, env, expected) => {
    expect(parseConfig(argv, env)).toMatchObject(expected)
  })

  it.each([
    [['--port', '70000'], /--port must be between 0 and 65535/],
    [['--token-ttl', '0'], /--token-ttl must be between/],
    [['--rows', 'many'], /--rows must be a whole number/],
    [['--product-version', '3.x'], /--product-version must be "latest" or a release number/],
    [['--colour', 'red'], /colour/],
    [['extra'], /extra/],
  ])('refuses %j with a message naming the flag', (argv, message) => {
    expect(() => parseConfig(argv, {})).toThrow(ConfigError)
    expect(() => parseConfig(argv, {})).toThrow(message)
  })
})
