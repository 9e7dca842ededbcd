/**
 * How the JSON parser reads a body off the wire (src/http/json-body.ts, `readBody`): Fastify's own
 * rules for limits and lengths, and a large body decoded as its chunks arrive, whatever bytes the
 * chunks cut, into exactly the text the whole body decodes to; a body that is not UTF-8 handed on
 * as its bytes, for the check that says where. The chunks are cut here, not by a socket.
 */
import { PassThrough } from 'node:stream'
import fc from 'fast-check'
import type { FastifyRequest } from 'fastify'
import { afterEach, describe, expect, it } from 'vitest'
import { readBody } from '../../src/http/json-body.ts'
import { slicing } from '../../src/http/json-slices.ts'

const DEFAULTS = { ...slicing }
afterEach(() => Object.assign(slicing, DEFAULTS))

type Read = { error: (Error & { code?: string; statusCode?: number }) | null; body: { bytes: Buffer } | { pieces: string[] } }

/** Hands `chunks` to readBody as a request's payload; what it hands on. */
function read(chunks: readonly Buffer[], options: { limit?: number; length?: number | 'none'; fail?: Error; encodedLength?: number } = {}): Promise<Read> {
  const total = chunks.reduce((sum, chunk) => sum + chunk.length, 0)
  const length = options.length ?? total
  const request = {
    routeOptions: { bodyLimit: options.limit ?? 1 << 20 },
    headers: length === 'none' ? {} : { 'content-length': String(length) },
  } as unknown as FastifyRequest
  const payload = new PassThrough()
  // What a preParsing stream that decodes says it read (Fastify's zip-bomb guard counts it too).
  if (options.encodedLength !== undefined) Object.assign(payload, { receivedEncodedLength: options.encodedLength })
  const answer = new Promise<Read>((resolve) => readBody(request, payload, (error, body) => resolve({ error: error as Read['error'], body })))
  for (const chunk of chunks) payload.write(chunk)
  if (options.fail !== undefined) payload.destroy(options.fail)
  else payload.end()
  return answer
}

/** `bytes` cut at `cuts` (offsets, any order, repeats allowed). */
function cut(bytes: Buffer, cuts: readonly number[]): Buffer[] {
  const at = [...new Set([0, ...cuts.map((c) => Math.min(c, bytes.length)), bytes.length])].sort((a, b) => a - b)
  return at.slice(1).map((end, i) => bytes.subarray(at[i] as number, end))
}

describe('readBody', () => {
  it('decodes a large body cut anywhere, even inside a character of two, three or four bytes, into the text the whole body is', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: fc.constantFrom('a', 'é', '€', '😀', '"', '\n'), minLength: 1, maxLength: 40 }),
        fc.array(fc.nat({ max: 160 }), { maxLength: 12 }),
        fc.integer({ min: 1, max: 9 }),
        async (text, cuts, sliceChars) => {
          Object.assign(slicing, { bodyChars: 1, sliceChars })
          const bytes = Buffer.from(text)
          const { error, body } = await read(cut(bytes, cuts))
          expect(error).toBeNull()
          expect('pieces' in body ? body.pieces.join('') : 'handed on as bytes').toBe(text)
        },
      ),
    )
  })

  it('hands on the bytes of a large body that is not UTF-8, wherever the chunks cut it, and of a small body', async () => {
    Object.assign(slicing, { bodyChars: 4, sliceChars: 3 })
    const text = Buffer.from('{"query":"é€😀 and more"}')
    for (const broken of [
      Buffer.concat([text.subarray(0, 12), Buffer.from([0xff]), text.subarray(12)]),
      // A character cut short at the very end.
      Buffer.concat([text, Buffer.from('😀').subarray(0, 3)]),
      // A lone continuation byte at the start.
      Buffer.concat([Buffer.from([0x80]), text]),
    ]) {
      for (const cuts of [[], [1], [5, 13], [broken.length - 1]]) {
        const { error, body } = await read(cut(broken, cuts))
        expect(error).toBeNull()
        expect('bytes' in body ? body.bytes : 'decoded').toEqual(broken)
      }
    }
    Object.assign(slicing, DEFAULTS)
    const small = await read(cut(text, [3, 7]))
    expect('bytes' in small.body ? small.body.bytes : 'decoded').toEqual(text)
  })

  it("keeps Fastify's rules: the limit by Content-Length before reading and by the bytes received, the declared length, a broken stream", async () => {
    const bytes = Buffer.from('{"query":"$top=1"}')
    expect((await read([bytes], { limit: 10 })).error?.code).toBe('FST_ERR_CTP_BODY_TOO_LARGE')
    expect((await read([bytes], { limit: 10, length: 'none' })).error?.code).toBe('FST_ERR_CTP_BODY_TOO_LARGE')
    expect((await read([bytes], { limit: bytes.length })).error).toBeNull()
    expect((await read([bytes], { length: bytes.length + 1 })).error?.code).toBe('FST_ERR_CTP_INVALID_CONTENT_LENGTH')
    expect((await read([bytes], { length: 'none' })).error).toBeNull()
    const broken = await read([bytes], { fail: new Error('aborted') })
    expect([broken.error?.message, broken.error?.statusCode]).toEqual(['aborted', 400])
    // A stream's own status of 400 or more stays (a preParsing stream's refusal).
    const refused = await read([bytes], { fail: Object.assign(new Error('too big once decoded'), { statusCode: 413 }) })
    expect(refused.error?.statusCode).toBe(413)
    // The bytes read before decoding count against the limit as well, and stand for the declared length.
    expect((await read([bytes], { limit: 100, encodedLength: 101, length: 'none' })).error?.code).toBe('FST_ERR_CTP_BODY_TOO_LARGE')
    expect((await read([bytes], { limit: 100, encodedLength: 100, length: 100 })).error).toBeNull()
  })
})
