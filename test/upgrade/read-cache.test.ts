/**
 * A replay's read cache (src/commands/upgrade/read-cache.ts): the same read of the same state is answered
 * from memory, anything else sent forgets what was kept, and what is kept stays within its bytes.
 */
import { describe, expect, it } from 'vitest'
import type { Transport, WireRequest, WireResponse } from '../../src/wire/transport.ts'
import { READ_CACHE_BYTES, readCache } from '../../src/commands/upgrade/read-cache.ts'

/** A transport that answers every request with `size` bytes and counts what reaches it. */
function counting(size: number): Transport & { sent: string[] } {
  const sent: string[] = []
  return {
    target: 'test',
    sent,
    async send(request: WireRequest): Promise<WireResponse> {
      sent.push(`${request.method} ${request.path}`)
      return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.alloc(size, 0x20) }
    },
    async close() {},
  }
}

const READS = new Set(['GET /items'])
const read = (page: number): WireRequest => ({ method: 'GET', path: `/items?page=${page}`, headers: { SessionToken: 't' } })

describe('the read cache', () => {
  it('answers a read of the same state from memory, and sends it again after a write', async () => {
    const inner = counting(100)
    const cache = readCache(inner, READS)
    const first = await cache.send(read(1))
    expect(await cache.send(read(1))).toBe(first)
    expect(inner.sent).toEqual(['GET /items?page=1'])
    expect(cache.writes).toBe(0)
    await cache.send({ method: 'POST', path: '/items/save', body: '{}' })
    expect(cache.writes).toBe(1)
    await cache.send(read(1))
    expect(inner.sent).toEqual(['GET /items?page=1', 'POST /items/save', 'GET /items?page=1'])
  })

  it(`keeps at most ${READ_CACHE_BYTES} bytes of answers: past them it starts again empty`, async () => {
    const size = 64 * 1024
    const inner = counting(size)
    const cache = readCache(inner, READS)
    const fit = Math.floor(READ_CACHE_BYTES / (size + 100))
    for (let page = 0; page < fit; page++) await cache.send(read(page))
    await cache.send(read(0))
    // All of them fit: the first is still kept.
    expect(inner.sent).toHaveLength(fit)
    for (let page = fit; page < 2 * fit; page++) await cache.send(read(page))
    await cache.send(read(0))
    expect(inner.sent).toHaveLength(2 * fit + 1)
  })
})
