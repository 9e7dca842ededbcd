/**
 * `startMock()` as a user's test calls it: a free port, the package's default fixture, a client
 * set up for it, the controls, HTTPS on request, and refusals of settings it cannot emulate.
 */
import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { startMock } from '../../src/mock/mock.ts'
import { ConfigError } from '../../src/cli-base/exit.ts'
import { IDS } from '../helpers/http.ts'

/** In a fresh process, the compiled package's startMock() once: which of Fastify's schema compilers Node then holds. */
const COMPILERS_AFTER_START = `
  import { createRequire } from 'node:module'
  const { startMock } = await import('./dist/src/index.js')
  const mock = await startMock({ logLevel: 'silent' })
  await mock.client.signIn({ username: 'admin@acme.test', password: 'admin-pass' })
  await mock.client.rows({ top: 1 })
  await mock.close()
  const loaded = Object.keys(createRequire(import.meta.url).cache).filter((path) => /@fastify[\\/](ajv-compiler|fast-json-stringify-compiler)[\\/]/.test(path))
  process.stdout.write(JSON.stringify(loaded))
`

describe('startMock()', () => {
  it("starts without Fastify's schema compilers: requests are checked against the document, not by route schemas", () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', COMPILERS_AFTER_START], {
      cwd: new URL('../../', import.meta.url).pathname,
      encoding: 'utf8',
    })
    expect(run.stderr).toBe('')
    expect(JSON.parse(run.stdout)).toEqual([])
  })

  it('listens on a free port with the default fixture and gives a client set up for its Orders application', async () => {
    const mock = await startMock({ logLevel: 'silent' })
    try {
      expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(mock.port).not.toBe(4080)
      expect(mock.tls).toBeUndefined()
      await mock.client.signIn(IDS.admin)
      expect((await mock.client.rows({ orderBy: 'Id asc', top: 2 })).map((row) => row.Id)).toEqual([1, 2])
      for (const control of ['reset', 'loadFixture', 'emails', 'requests', 'setFaults', 'faults', 'clock', 'advanceClock', 'close'] as const)
        expect(typeof mock[control]).toBe('function')
      expect(mock.requests({ operationId: 'queryItems' })).toHaveLength(1)
    } finally {
      await mock.close()
    }
  })

  it('serves HTTPS with a certificate made at start, which its client trusts', async () => {
    const mock = await startMock({ logLevel: 'silent', tls: 'self-signed', productVersion: '3.0.18' })
    try {
      expect(mock.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
      expect(mock.tls?.selfSigned).toBe(true)
      expect(mock.tls?.fingerprint256).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/)
      await mock.client.signIn(IDS.viewer)
      expect(await mock.client.count()).toBe(25)
      // A client that does not trust the certificate is refused.
      await expect(fetch(`${mock.url}/__mock/health`)).rejects.toThrow()
    } finally {
      await mock.close()
    }
  })

  it.each([['4.0'], ['1.9'], ['newest']])('refuses productVersion %s, which no release of the API has', async (productVersion) => {
    await expect(startMock({ logLevel: 'silent', productVersion })).rejects.toThrow(ConfigError)
  })

  it('says which port is in use instead of a bare EADDRINUSE', async () => {
    const first = await startMock({ logLevel: 'silent' })
    try {
      await expect(startMock({ logLevel: 'silent', port: first.port })).rejects.toThrow(`port ${first.port} on 127.0.0.1 is in use`)
    } finally {
      await first.close()
    }
  })
})
