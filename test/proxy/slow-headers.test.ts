/**
 * A client that never finishes its request line and headers holds no proxy connection for ever:
 * nothing is passed on until they are whole, so no target's own timeout could end it. The proxy
 * ends it after its headers timeout (60 s by default; a short one here) with 408.
 */
import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { HEADERS_TIMEOUT_MS, startProxy } from '../../src/commands/proxy/server.ts'

describe('a client that sends its headers a byte at a time, never whole', () => {
  it('is answered 408 and its connection closed once the headers timeout passed, and others are served meanwhile', async () => {
    expect(HEADERS_TIMEOUT_MS).toBe(60_000)
    const proxy = await startProxy(
      {
        target: new URL('http://127.0.0.1:9'),
        host: '127.0.0.1',
        port: 0,
        timeoutMs: 1_000,
        checkLimitBytes: 1024,
        observe: () => undefined,
        headersTimeoutMs: 200,
      },
      async () => '{}',
    )
    try {
      const { port } = new URL(proxy.url)
      const socket = connect(Number(port), '127.0.0.1')
      let received = ''
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')))
      const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
      await new Promise<void>((resolve) => socket.on('connect', () => resolve()))
      socket.write('GET /ExplorerApi/api/attachments HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ')
      // The proxy's own endpoints still answer while that connection waits.
      expect((await fetch(`${proxy.url}/__proxy/health`)).status).toBe(200)
      await closed
      expect(received).toMatch(/^HTTP\/1\.1 408 /)
    } finally {
      await proxy.close(0)
    }
  })
})
