/**
 * `verify --compare-with` where it is easy to get wrong: a mock against something that is not a
 * mock (a real installation), both sides failing alike, and a second side that cannot be signed in to.
 */
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MOCK_HEADER } from '../../src/wire/mock-header.ts'
import { startMock, type LaunchedMock } from '../../src/mock/mock.ts'
import { IDS } from '../helpers/http.ts'
import { verify } from '../contracts/support.ts'

/** An HTTP proxy to `target` that drops the mock's own header: to verify, an installation like any other. */
async function installationFront(target: string): Promise<{ url: string; server: Server }> {
  const to = new URL(target)
  const server = createServer((incoming, outgoing) => {
    const forward = httpRequest({ host: to.hostname, port: to.port, path: incoming.url, method: incoming.method, headers: incoming.headers }, (answer) => {
      const headers = { ...answer.headers }
      delete headers[MOCK_HEADER]
      outgoing.writeHead(answer.statusCode ?? 502, headers)
      answer.pipe(outgoing)
    })
    incoming.pipe(forward)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }
}

const flags = (url: string) => [
  '--base-url',
  url,
  '--org',
  IDS.org,
  '--username',
  IDS.admin.username,
  '--password',
  IDS.admin.password,
  '--workspace-id',
  IDS.workspaceId,
  '--application-id',
  IDS.applicationId,
  '--relation-key',
  IDS.relationKey,
  '--seed',
  '4',
]

describe('verify --compare-with', () => {
  let mock: LaunchedMock
  let other: LaunchedMock
  let front: { url: string; server: Server }
  beforeAll(async () => {
    mock = await startMock({ logLevel: 'silent' })
    other = await startMock({ logLevel: 'silent' })
    front = await installationFront(other.url)
  })
  afterAll(async () => {
    front.server.close()
    await mock.close()
    await other.close()
  })

  it('holds both sides to the description when one is a real installation, and finds them alike', async () => {
    const result = await verify([...flags(mock.url), '--compare-with', front.url])
    expect(result.out).toContain("one side is not an appdata-kit mock: both are held to the API's description only")
    expect(result.out).toContain('no differences between')
    expect(result.code, result.out + result.err).toBe(0)
  })

  it('exits 1 when both sides fail the same contracts, and prints the failures', async () => {
    const broken = await startMock({ logLevel: 'silent', deviate: ['ignore-top'] })
    const alsoBroken = await startMock({ logLevel: 'silent', deviate: ['ignore-top'] })
    try {
      const result = await verify([...flags(broken.url), '--compare-with', alsoBroken.url])
      expect(result.out).toContain('no differences between')
      expect(result.out).toMatch(/^FAIL items\./m)
      expect(result.code).toBe(1)
    } finally {
      await broken.close()
      await alsoBroken.close()
    }
  })

  it('signs in to both sides before running anything: a wrong password for the second stops it with exit 2', async () => {
    mock.clearRequests()
    const result = await verify([...flags(mock.url), '--compare-with', other.url, '--compare-password', 'wrong-password'])
    expect(result.code).toBe(2)
    expect(result.err).toMatch(/cannot sign in to .* as admin@acme\.test/)
    expect(mock.requests({ operationId: 'queryItems' })).toEqual([])
    expect(result.err + result.out).not.toContain('wrong-password')
  })
})
