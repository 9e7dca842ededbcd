/**
 * A body over the limit, sent by a client that keeps sending while the mock refuses it: the client
 * reads the 413 (the mock drains before it closes, RFC 9112 section 9.6), and a client that never
 * stops sending does not hold the connection for long. The mock runs as its own process, as
 * `npm start` runs it: in the test's own process, client and server share one event loop and the
 * client is never "still sending" when the answer comes.
 */
import { connect } from 'node:net'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ROOT, startProcess, stopStarted } from './processes.ts'

const SERVER = join(ROOT, 'dist/src/mock/server.js')
const MB = 1024 * 1024
const BODY_LIMIT = 64 * 1024

afterEach(stopStarted)

describe('a body over the limit', () => {
  it("is refused with a 413 that Node's fetch reads while it is still sending", async () => {
    const run = await startProcess(process.execPath, [SERVER, '--port', '0', '--body-limit', String(BODY_LIMIT), '--log-level', 'error'])
    expect(run.url, run.stderr).toBeDefined()
    // 16 MB against a 64 KB limit: closing at once lost the answer in about 2 of 3 tries here.
    const body = Buffer.alloc(16 * MB, 0x20)
    const outcomes: Array<number | string> = []
    for (let i = 0; i < 20; i++) {
      try {
        const reply = await fetch(`${run.url}/ExplorerApi/api/items/save`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
          signal: AbortSignal.timeout(20_000),
        })
        const problem = (await reply.json()) as { code?: string }
        outcomes.push(reply.status === 413 && problem.code === 'PAYLOAD_TOO_LARGE' ? 413 : reply.status)
      } catch (error) {
        outcomes.push(String((error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message))
      }
    }
    // The bar is 4 reads in 5; 18 in 20 keeps a mock that closes at once (3 to 14 in 20 here) from passing by luck.
    expect(outcomes.filter((outcome) => outcome === 413).length, outcomes.join(' ')).toBeGreaterThanOrEqual(18)
    // And it still serves.
    expect((await fetch(`${run.url}/__mock/health`)).status).toBe(200)
  }, 120_000)

  it('does not let a client that never stops sending hold the connection', async () => {
    const run = await startProcess(process.execPath, [SERVER, '--port', '0', '--body-limit', String(BODY_LIMIT), '--log-level', 'error'])
    expect(run.url, run.stderr).toBeDefined()
    const { hostname, port } = new URL(run.url as string)
    // Half-open allowed: the mock's FIN after its answer does not stop this client from sending.
    const socket = connect({ host: hostname, port: Number(port), allowHalfOpen: true })
    let answer = ''
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => (answer += chunk))
    const started = performance.now()
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(performance.now() - started)))
    socket.on('error', () => undefined)
    socket.write(
      `POST /ExplorerApi/api/items/save HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
    )
    // A chunk of 64 KB every 5 ms, for at most 30 s: far longer than the mock may drain.
    const chunk = Buffer.alloc(64 * 1024, 0x20)
    const frame = Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n')])
    const sender = setInterval(() => {
      if (!socket.destroyed && socket.writable) socket.write(frame)
    }, 5)
    const cap = setTimeout(() => socket.destroy(), 30_000)
    try {
      const after = await closed
      expect(answer).toMatch(/^HTTP\/1\.1 413 /)
      expect(answer).toContain('PAYLOAD_TOO_LARGE')
      // Drained for at most 5 s, or 64 MB, after the answer.
      expect(after).toBeLessThan(15_000)
    } finally {
      clearInterval(sender)
      clearTimeout(cap)
      socket.destroy()
    }
    expect((await fetch(`${run.url}/__mock/health`)).status).toBe(200)
  }, 60_000)
})
