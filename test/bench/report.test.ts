/**
 * The bench's pure parts: what it hands wrk, how it reads wrk's result, how it judges a target
 * against the load generator's ceiling, and how it rewrites the performance page's block. No load is run here.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { atLeast, BLOCK_PAGE, BOUNDED, BLOCK_END, BLOCK_START, replaceBenchBlock, rpsCell, withTail } from './lib/report.ts'
import { AMOUNT_MARK, luaScript, parseWrkOutput, requestFile, RESULT_MARK } from './lib/wrk-output.ts'

/** The records of a request file: each its length on a line, then that many bytes. */
function records(file: Buffer): string[] {
  const out: string[] = []
  let at = 0
  while (at < file.length) {
    const eol = file.indexOf(0x0a, at)
    const length = Number(file.subarray(at, eol).toString())
    out.push(file.subarray(eol + 1, eol + 1 + length).toString())
    at = eol + 1 + length
  }
  return out
}

const wrkText = (result: Record<string, unknown>) =>
  [
    'Running 5s test @ http://127.0.0.1:4000',
    '  1 threads and 50 connections',
    '  20000 requests in 5.00s, 2.86MB read',
    'Requests/sec:   4000.00',
    `${RESULT_MARK}${JSON.stringify({ requests: 20000, durationUs: 5_000_000, bytes: 3_000_000, connect: 0, read: 0, write: 0, status: 0, timeout: 0, p50Us: 1200, p99Us: 9500, maxUs: 30_000, firstUs: null, lastUs: null, counted: null, refused: null, ...result })}`,
    '',
  ].join('\n')

describe('the requests handed to wrk', () => {
  it('frames each request as raw HTTP/1.1 with its byte length, the host, the headers and the body length in bytes', () => {
    const file = requestFile('http://127.0.0.1:4321', { SessionToken: 'tok' }, [
      { method: 'POST', path: '/ExplorerApi/api/items', body: '{"query":"Customer eq \'Zoë\'"}' },
      { method: 'GET', path: '/orders?_page=2' },
    ])
    const [post, get] = records(file)
    expect(post).toBe(
      `POST /ExplorerApi/api/items HTTP/1.1\r\nHost: 127.0.0.1:4321\r\nSessionToken: tok\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength('{"query":"Customer eq \'Zoë\'"}')}\r\n\r\n{"query":"Customer eq 'Zoë'"}`,
    )
    expect(get).toBe('GET /orders?_page=2 HTTP/1.1\r\nHost: 127.0.0.1:4321\r\nSessionToken: tok\r\n\r\n')
  })

  it('reads answers and stops at the amount only in a run bounded by an amount', () => {
    const timed = luaScript('/tmp/x/requests.bin')
    const counted = luaScript('/tmp/x/requests.bin', 5000)
    expect(timed).toContain('"/tmp/x/requests.bin"')
    expect(timed).not.toContain('function response')
    expect(counted).toContain('function response')
    expect(counted).toContain('local amount = 5000')
    expect(counted).toContain('wrk.thread:stop()')
    expect(counted).toContain(AMOUNT_MARK)
  })
})

describe("reading wrk's result", () => {
  it("rates a timed run by completed requests over wrk's duration, latencies in ms", () => {
    expect(parseWrkOutput(wrkText({}))).toEqual({ rps: 4000, p50: 1.2, p99: 9.5, max: 30, errors: 0, non2xx: 0, requests: 20000 })
  })

  it("rates a run bounded by an amount by its counted answers over its own clock, not by wrk's -d", () => {
    const result = parseWrkOutput(wrkText({ requests: 50_000, durationUs: 120_000_000, firstUs: 1_000_000, lastUs: 3_500_000, counted: 50_000, refused: 0 }))
    expect(result.rps).toBe(20_000)
    expect(result.requests).toBe(50_000)
  })

  it('counts socket errors and timeouts as errors, and answers of 400 or more and refused saves as failures', () => {
    const result = parseWrkOutput(wrkText({ connect: 1, read: 2, write: 3, timeout: 4, status: 5, firstUs: 0, lastUs: 1_000_000, counted: 10, refused: 6 }))
    expect(result.errors).toBe(10)
    expect(result.non2xx).toBe(11)
  })

  it('fails when wrk printed no result line', () => {
    expect(() => parseWrkOutput('unable to connect to 127.0.0.1:1 Connection refused\n')).toThrow(/no result line.*Connection refused/)
  })
})

describe("targets against the load generator's ceiling", () => {
  it('never calls a figure at 90 % of the ceiling or more a target met', () => {
    expect(atLeast({ value: 9000, base: 10_000, min: 0.6, ceiling: 10_000, baseIsCeiling: true })).toBe(BOUNDED)
    expect(atLeast({ value: 9500, base: 5000, min: 1, ceiling: 10_000 })).toBe(BOUNDED)
    expect(rpsCell(9000, 10_000)).toBe(`9000 (${BOUNDED})`)
    expect(rpsCell(8999, 10_000)).toBe('8999')
  })

  it('judges a figure under the ceiling by its ratio to the baseline', () => {
    expect(atLeast({ value: 7000, base: 10_000, min: 0.6, ceiling: 10_000, baseIsCeiling: true })).toBe('met')
    expect(atLeast({ value: 5000, base: 10_000, min: 0.6, ceiling: 10_000, baseIsCeiling: true })).toBe('missed')
  })

  it('does not call a ratio met when the baseline itself is bounded by the generator', () => {
    expect(atLeast({ value: 6000, base: 9500, min: 0.6, ceiling: 10_000 })).toBe(`not shown: the baseline is ${BOUNDED}`)
    expect(atLeast({ value: 0, base: 9500, min: 0.6, ceiling: 10_000 })).toBe('not measured')
  })
})

describe('a throughput target that also bounds the tail (W4c)', () => {
  it('is met only when the throughput is met and p99 is at most the given multiple of p50', () => {
    expect(withTail('met', { p50: 10, p99: 100 }, 10)).toBe('met')
    expect(withTail('met', { p50: 10, p99: 101 }, 10)).toBe('missed')
    expect(withTail('missed', { p50: 10, p99: 20 }, 10)).toBe('missed')
    expect(withTail(BOUNDED, { p50: 10, p99: 20 }, 10)).toBe(BOUNDED)
    expect(withTail('met', { p50: 0, p99: 20 }, 10)).toBe('not measured')
  })
})

describe('the bench block of the performance page', () => {
  it('replaces only what lies between the markers', () => {
    const text = `# A\n\nbefore\n${BLOCK_START}\nold figures\n${BLOCK_END}\nafter\n`
    expect(replaceBenchBlock(text, '| new | table |\n')).toBe(`# A\n\nbefore\n${BLOCK_START}\n| new | table |\n${BLOCK_END}\nafter\n`)
  })

  it('fails without the markers, and the performance page has them, once each', () => {
    expect(() => replaceBenchBlock('# A\nno block\n', 'x')).toThrow(/no .* block/)
    const performance = readFileSync(new URL(`../../${BLOCK_PAGE}`, import.meta.url), 'utf8')
    expect(performance.split(BLOCK_START)).toHaveLength(2)
    expect(performance.split(BLOCK_END)).toHaveLength(2)
    expect(performance).toContain(BLOCK_START)
    expect(performance.indexOf(BLOCK_END)).toBeGreaterThan(performance.indexOf(BLOCK_START))
  })
})
