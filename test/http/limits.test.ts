import { request as httpRequest } from 'node:http'
import { describe, expect, it } from 'vitest'
import { IDS, mockPerSuite } from '../helpers/http.ts'

const MB = 1024 * 1024

/** A save whose JSON text is `bytes` long: one new master whose Customer fills the rest. */
function saveBodyOfSize(bytes: number): string {
  const shell = JSON.stringify({ Rows: [{ Row: { Id: -1, IdRow: null, TIMESTAMP: null, Customer: '' }, Details: [] }] })
  return shell.replace('"Customer":""', `"Customer":"${'x'.repeat(bytes - shell.length)}"`)
}

/**
 * Sends a body of `size` bytes with node:http and resolves with the status, without waiting for
 * the server to read it all: the mock may answer 413 as soon as it sees Content-Length.
 */
function postLarge(url: string, path: string, headers: Record<string, string>, size: number, chunked = false): Promise<{ status: number; body: string }> {
  const length: Record<string, string> = chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(size) }
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json', ...length } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.setTimeout(20_000, () => req.destroy(new Error('timeout')))
    req.on('error', reject)
    const chunk = Buffer.alloc(MB, 0x20)
    let sent = 0
    const pump = (): void => {
      while (sent < size) {
        const piece = chunk.subarray(0, Math.min(MB, size - sent))
        sent += piece.length
        if (!req.write(piece)) return void req.once('drain', pump)
      }
      req.end()
    }
    // Writing into a socket the server has already answered and closed is fine: the answer came first.
    req.on('response', () => (sent = size))
    pump()
  })
}

describe('limits of the environment', () => {
  const ctx = mockPerSuite()

  it('accepts a URL of exactly 2048 characters and refuses one of 2049', async () => {
    const at = (length: number) => {
      const start = `/ExplorerApi/api/attachments?$filter=${encodeURIComponent('ParentId eq 1')}&pad=`
      return `${start}${'x'.repeat(length - start.length)}`
    }
    expect(at(2048)).toHaveLength(2048)
    const fits = await ctx.mock.request('GET', at(2048), { headers: ctx.mock.dataHeaders(ctx.token) })
    expect(fits.status).toBe(200)
    const over = await ctx.mock.request('GET', at(2049), { headers: ctx.mock.dataHeaders(ctx.token) })
    expect(over.status).toBe(414)
    expect(over.body).toMatchObject({ code: 'URI_TOO_LONG', limit: 2048 })
  })

  it('answers 414 for a URL over 2048 characters and keeps serving', async () => {
    const long = `/ExplorerApi/api/attachments?$filter=${'x'.repeat(2100)}`
    const reply = await ctx.mock.request('GET', long, { headers: ctx.mock.dataHeaders(ctx.token) })
    expect(reply.status).toBe(414)
    expect(reply.contentType).toMatch(/^application\/problem\+json/)
    expect(reply.body.detail).toContain('2048')
    const fine = await ctx.mock.request('GET', `/ExplorerApi/api/attachments?$filter=${encodeURIComponent('ParentId eq 1')}`, {
      headers: ctx.mock.dataHeaders(ctx.token),
    })
    expect(fine.status).toBe(200)
  })

  it('answers 414 to every URL over the limit, whatever its path, with an answer that does not grow with it', async () => {
    const long = `/${'a'.repeat(3000)}`
    for (const [method, path] of [
      ['GET', long],
      ['POST', `/ExplorerApi/${'b'.repeat(3000)}`],
      ['GET', `/no-such-endpoint?pad=${'c'.repeat(3000)}`],
      // A path that exists with a method it lacks (a 405 when short).
      ['DELETE', `/ExplorerApi/api/items?pad=${'d'.repeat(3000)}`],
      ['GET', `/${'e'.repeat(100_000)}`],
    ] as const) {
      const reply = await ctx.mock.request(method, path, { headers: ctx.mock.dataHeaders(ctx.token), unchecked: true })
      expect(reply.status, `${method} ${path.slice(0, 40)}…`).toBe(414)
      expect(reply.body).toMatchObject({ code: 'URI_TOO_LONG', status: 414, limit: 2048 })
      expect(reply.raw.length).toBeLessThan(1024)
    }
  })

  it('quotes a long unknown path in a 404 once, and only its start', async () => {
    const path = `/${'a'.repeat(2000)}`
    const reply = await ctx.mock.request('GET', path, { unchecked: true })
    expect(reply.status).toBe(404)
    expect(reply.body.code).toBe('NOT_FOUND')
    expect(reply.body.detail.length).toBeLessThan(300)
    expect(reply.body.detail).toContain('(2001 characters)')
    // The instance names the path in full (it is within the limit); the detail does not repeat it.
    expect(reply.body.instance).toBe(path)
    expect(reply.raw.length).toBeLessThan(2600)
  })

  it('answers 413 for a body over 60 MB without reading it, then serves the next request', async () => {
    const reply = await postLarge(ctx.mock.url, '/ExplorerApi/api/items/save', ctx.mock.dataHeaders(ctx.token), 61 * MB)
    expect(reply.status).toBe(413)
    expect(JSON.parse(reply.body)).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' })
    expect((await ctx.mock.items(ctx.token, '$top=1')).status).toBe(200)
  })

  it('answers 413 to a chunked body once it passes 60 MB, then serves the next request', async () => {
    const reply = await postLarge(ctx.mock.url, '/ExplorerApi/api/items/save', ctx.mock.dataHeaders(ctx.token), 61 * MB, true)
    expect(reply.status).toBe(413)
    expect(JSON.parse(reply.body)).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE' })
    expect((await ctx.mock.items(ctx.token, '$top=1')).status).toBe(200)
  })

  it('accepts a 59 MB save', async () => {
    const body = saveBodyOfSize(59 * MB)
    expect(body.length).toBe(59 * MB)
    const reply = await ctx.mock.request('POST', '/ExplorerApi/api/items/save', {
      body,
      headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json' },
    })
    expect(reply.status).toBe(200)
    expect(reply.body.IsSaveSuccessfully).toBe(true)
    expect(reply.body.CreatedItems).toBe(1)
  })
})

describe('limits are configurable', () => {
  const ctx = mockPerSuite({ bodyLimit: 4096, maxUrlLength: 200 })

  it('uses the configured URL and body limits', async () => {
    const url = await ctx.mock.request('GET', `/ExplorerApi/api/attachments?$filter=${'y'.repeat(200)}`, { headers: ctx.mock.dataHeaders(ctx.token) })
    expect(url.status).toBe(414)
    const body = await ctx.mock.request('POST', '/ExplorerApi/api/items/save', {
      body: saveBodyOfSize(5000),
      headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json' },
    })
    expect(body.status).toBe(413)
    const small = await ctx.mock.request('POST', '/ExplorerApi/api/items/save', {
      body: saveBodyOfSize(3000),
      headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json' },
    })
    expect(small.status).toBe(200)
  })
})

describe('bad bodies', () => {
  const ctx = mockPerSuite()

  it.each([
    ['malformed JSON', '{"Rows": [', 'BAD_JSON'],
    ['an empty body', '', 'BAD_JSON'],
    ['a body of the wrong shape', '{"Rows": {"Row": 1}}', 'VALIDATION'],
  ])('answers 400 for %s', async (_name, body, code) => {
    const reply = await ctx.mock.request('POST', '/ExplorerApi/api/items/save', {
      body,
      headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json' },
    })
    expect(reply.status).toBe(400)
    expect(reply.body.code).toBe(code)
    expect((await ctx.mock.items(ctx.token, '$inlinecount=allpages')).body.Items[0]._FieldCount_).toBe(25)
  })

  it('answers unknown paths with a 404 problem', async () => {
    const reply = await ctx.mock.request('GET', '/ExplorerApi/api/nothing', {})
    expect(reply.status).toBe(404)
    expect(reply.contentType).toMatch(/^application\/problem\+json/)
  })

  it.each(['/ExplorerApi/api/items', `/identityprovider/${IDS.org}/connect/token`])('answers 414 before authentication or validation on %s', async (path) => {
    const reply = await ctx.mock.request('POST', `${path}?pad=${'z'.repeat(2100)}`, { json: {} })
    expect(reply.status).toBe(414)
  })
})
