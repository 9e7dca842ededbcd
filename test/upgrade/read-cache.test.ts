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

  it('keeps a read apart by its path and query, its headers and its body; reads its method in any case', async () => {
    const inner = counting(10)
    const cache = readCache(inner, new Set(['GET /items', 'POST /query']))
    await cache.send(read(1))
    await cache.send(read(2))
    await cache.send({ ...read(1), headers: { SessionToken: 'other' } })
    await cache.send({ method: 'POST', path: '/query', body: '{"a":1}' })
    await cache.send({ method: 'POST', path: '/query', body: '{"a":2}' })
    await cache.send({ method: 'POST', path: '/query', body: '{"a":2}' })
    await cache.send({ method: 'post', path: '/query', body: '{"a":2}' })
    await cache.send({ method: 'POST', path: '/query' })
    await cache.send({ method: 'POST', path: '/query' })
    expect(inner.sent).toEqual(['GET /items?page=1', 'GET /items?page=2', 'GET /items?page=1', 'POST /query', 'POST /query', 'post /query', 'POST /query'])
    expect(cache.writes).toBe(0)
  })

  it('never keeps a read of bytes, of its size only or of bounded length, and sends each; nor forgets on them', async () => {
    const inner = counting(10)
    const cache = readCache(inner, READS)
    await cache.send(read(1))
    for (const odd of [{ body: new Uint8Array([1]) }, { sizeOnly: true }, { maxBytes: 5 }] as Array<Partial<WireRequest>>) {
      await cache.send({ ...read(9), ...odd })
      await cache.send({ ...read(9), ...odd })
    }
    await cache.send(read(1))
    expect(inner.sent).toEqual(['GET /items?page=1', ...Array(6).fill('GET /items?page=9')])
    expect(cache.writes).toBe(0)
  })

  it('counts each request other than a read as a write, forgets on each, and passes its target and close through', async () => {
    const inner = counting(10)
    let closed = false
    const cache = readCache({ ...inner, close: async () => void (closed = true) }, READS)
    expect(cache.target).toBe('test')
    await cache.send(read(1))
    await cache.send({ method: 'GET', path: '/other' })
    await cache.send({ method: 'GET', path: '/other' })
    await cache.send(read(1))
    expect(cache.writes).toBe(2)
    expect(inner.sent).toEqual(['GET /items?page=1', 'GET /other', 'GET /other', 'GET /items?page=1'])
    await cache.close()
    expect(closed).toBe(true)
  })

  it('counts the key in the bytes kept as well as the answer', async () => {
    const inner = counting(1)
    const cache = readCache(inner, READS)
    // Answers of 1 byte under keys of about 64 KB: sixteen of them fill the bytes kept.
    const big = (page: number): WireRequest => ({ ...read(page), headers: { SessionToken: 't', Pad: 'p'.repeat(64 * 1024) } })
    for (let page = 0; page < 20; page++) await cache.send(big(page))
    await cache.send(big(0))
    expect(inner.sent).toHaveLength(21)
  })
})
