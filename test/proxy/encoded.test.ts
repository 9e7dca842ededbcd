/**
 * Encoded answers (`Content-Encoding`) pass to the client byte for byte, as they came, and are
 * judged as the client's HTTP library reads them: gzip, deflate (zlib or raw) and br decoded up to
 * --check-limit, so a bomb stops at the limit and is reported as not judged; an encoding the proxy
 * does not decode is reported as not judged because encoded; bytes that are not what their
 * encoding says are a broken answer. Never "must be JSON".
 */
import { request as httpRequest } from 'node:http'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { stopStarted } from '../cli/processes.ts'
import type { ProxyReport } from '../../src/commands/proxy/inspector.ts'
import { CLIENT_HEADERS, ITEMS, named, plantedTarget, proxy, report, stop, validRow, type Plant } from './support.ts'

const dir = sharedTempDir('appdata-kit-proxy-encoded-')
afterEach(stopStarted)

/** A page whose one row has its Id as text: one violation, once decoded. */
const PAGE = Buffer.from(JSON.stringify([{ ...validRow(1), Id: 'one' }]))
const VALID = Buffer.from(JSON.stringify([validRow(1), validRow(2)]))
/** 64 MB of a JSON array's blanks in 64 KB of gzip: decoded, it would be four times --check-limit (16 MB) over. */
const BOMB = gzipSync(Buffer.concat([Buffer.from('['), Buffer.alloc(64 * 1024 * 1024, 0x20), Buffer.from(']')]), { level: 9 })

const ENCODED: Record<string, { encoding: string; bytes: Buffer }> = {
  gzip: { encoding: 'gzip', bytes: gzipSync(PAGE) },
  deflate: { encoding: 'deflate', bytes: deflateSync(PAGE) },
  'deflate-raw': { encoding: 'deflate', bytes: deflateRawSync(PAGE) },
  br: { encoding: 'br', bytes: brotliCompressSync(PAGE) },
  // Applied in order: br first, then gzip (RFC 9110, section 8.4).
  'br-gzip': { encoding: 'br, gzip', bytes: gzipSync(brotliCompressSync(PAGE)) },
  'valid-gzip': { encoding: 'gzip', bytes: gzipSync(VALID) },
  bomb: { encoding: 'gzip', bytes: BOMB },
  zstd: { encoding: 'zstd', bytes: Buffer.from('(not decoded by the proxy)') },
  corrupt: { encoding: 'gzip', bytes: Buffer.from('this is not gzip at all') },
}

let target: Awaited<ReturnType<typeof plantedTarget>>
beforeAll(async () => {
  target = await plantedTarget(
    Object.fromEntries(
      Object.entries(ENCODED).map(([name, { encoding, bytes }]): [string, Plant] => [
        name,
        (_request, response) => {
          response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-encoding': encoding, 'content-length': String(bytes.length) })
          response.end(bytes)
        },
      ]),
    ),
  )
})
afterAll(async () => {
  await target?.close()
})

/** The answer's bytes as they came over the wire (Node's client decodes nothing). */
function raw(base: string, plant: string): Promise<{ status: number; encoding: string | undefined; bytes: Buffer }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      `${base}${ITEMS}`,
      { method: 'POST', headers: { ...CLIENT_HEADERS, 'x-plant': plant, 'accept-encoding': 'gzip, deflate, br' } },
      (answer) => {
        const chunks: Buffer[] = []
        answer.on('data', (chunk: Buffer) => chunks.push(chunk))
        answer.on('end', () => resolve({ status: answer.statusCode ?? 0, encoding: answer.headers['content-encoding'], bytes: Buffer.concat(chunks) }))
      },
    )
    sent.on('error', reject)
    sent.end(JSON.stringify({ query: '$top=1' }))
  })
}

describe('appdata-kit proxy and encoded answers', () => {
  it('passes each encoded answer through untouched, judges the ones it decodes, stops a bomb at --check-limit and counts what it could not decode as not judged', async () => {
    const files = { report: join(dir, 'encoded.json'), html: join(dir, 'encoded.html'), usage: join(dir, 'encoded-usage.json') }
    const run = await proxy(target.url, ['--product-version', '3.0.19', '--report', files.report, '--html', files.html, '--record-usage', files.usage])
    for (const [plant, { encoding, bytes }] of Object.entries(ENCODED)) {
      const answer = await raw(run.url, plant)
      expect(answer.status, plant).toBe(200)
      expect(answer.encoding, plant).toBe(encoding)
      expect(answer.bytes.equals(bytes), plant).toBe(true)
    }
    const found = await report(run)
    // The same wrong Id, found inside each of the five encodings the proxy decodes.
    expect(named(found.violations, 'answer', 'queryItems', '/body/*/Id')).toMatchObject([
      { severity: 'violation', message: 'must be integer', example: 'one', count: 5 },
    ])
    expect(named(found.violations, 'answer', 'queryItems', '/body')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ severity: 'violation', message: expect.stringMatching(/^must be gzip data, as its Content-Encoding says \(/), count: 1 }),
        expect.objectContaining({ severity: 'warning', message: 'passed unchecked: more than --check-limit once decoded (gzip)', count: 1 }),
        expect.objectContaining({ severity: 'warning', message: 'passed unchecked: encoded as zstd, which the proxy does not decode', count: 1 }),
      ]),
    )
    expect(found.violations.filter((f) => /must be JSON/.test(f.message))).toEqual([])
    expect(found.violations.filter((f) => f.side === 'request')).toEqual([])
    // The bomb and the zstd answer: their answers not judged, each for its reason.
    expect(found.notJudged).toEqual({ count: 2, reasons: { overCheckLimit: 1, encoded: 1 }, sides: { request: 0, answer: 2 } })
    expect(await stop(run)).toBe(1)

    const written = JSON.parse(readFileSync(files.report, 'utf8')) as ProxyReport
    expect(written.notJudged).toEqual(found.notJudged)
    // The HTML page shows a decoded answer as the client's library reads it, an undecoded one by its size.
    const html = readFileSync(files.html, 'utf8')
    expect(html).toContain('&quot;Id&quot;: &quot;one&quot;')
    expect(html).toContain(`(gzip-encoded: ${ENCODED.gzip?.bytes.length} bytes as sent, ${PAGE.length} decoded)`)
    expect(html).toContain(`[${ENCODED.zstd?.bytes.length} bytes of application/json; charset=utf-8, zstd-encoded, not decoded]`)
    // The usage holds the shape of what was decoded; the two answers not decoded are not recorded.
    const usage = JSON.parse(readFileSync(files.usage, 'utf8')) as {
      interactions: Array<{ count: number; answers: Record<string, { count: number; body?: { type: string } }> }>
    }
    expect(usage.interactions).toMatchObject([{ count: 6, answers: { 200: { count: 6, body: { type: 'array' } } } }])
  }, 60_000)

  it('with --shed-load, an answer it could not decode does not fail the run', async () => {
    const run = await proxy(target.url, ['--product-version', '3.0.19', '--shed-load'])
    expect((await raw(run.url, 'zstd')).status).toBe(200)
    expect((await report(run)).notJudged).toMatchObject({ count: 1, reasons: { encoded: 1 } })
    expect(await stop(run)).toBe(0)
  })
})
