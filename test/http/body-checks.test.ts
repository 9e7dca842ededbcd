/**
 * The refusals a client meets first, before anything about its request is looked at: a body of a
 * type the operation does not take (text/plain among them), a compressed body, bytes that are not
 * UTF-8. Each is the BAD_BODY problem with a hint that names what to send, in both modes, sent over
 * HTTP to a started mock (src/http/body-checks.ts).
 */
import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { listOperations, releaseDocument, requestBodyOf } from '../../src/document/reader.ts'
import { IDS, mockPerSuite } from '../helpers/http.ts'

/** Every operation of the current release that takes a body, with a path to send it to and the type it takes. */
const document = releaseDocument('3.0.19')
const WITH_BODY = listOperations(document).flatMap((entry) => {
  const body = requestBodyOf(document, entry)
  return body === undefined
    ? []
    : [{ operationId: entry.operationId, method: entry.method.toUpperCase(), path: entry.path.replace(/\{[^}]+\}/g, 'x'), mediaType: body.mediaType }]
})
const ITEMS = '/ExplorerApi/api/items'
const SIGN_IN = `/identityprovider/${IDS.org}/connect/token`
const SIGN_IN_FORM = new URLSearchParams({
  client_id: IDS.clientId,
  username: IDS.admin.username,
  password: IDS.admin.password,
  grant_type: 'password',
  scope: 'openid apiv1 nosession',
}).toString()

describe('a body of a type the operation does not take', () => {
  const ctx = mockPerSuite()

  it('finds operations of both body types to send to', () => {
    expect(new Set(WITH_BODY.map(({ mediaType }) => mediaType))).toEqual(new Set(['application/json', 'application/x-www-form-urlencoded']))
    expect(WITH_BODY.map(({ operationId }) => operationId)).toEqual(expect.arrayContaining(['signIn', 'queryItems', 'saveItems', 'deleteItems', 'runAction']))
  })

  it('text/plain, on every operation that takes a body, is told the type to send, in both modes', async () => {
    for (const { operationId, method, path, mediaType } of WITH_BODY) {
      for (const strict of ['0', '1']) {
        const reply = await ctx.mock.request(method, path, {
          headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'text/plain', 'x-mock-strict': strict },
          body: '{"query":"$top=1"}',
        })
        expect([reply.status, reply.body], operationId).toEqual([
          400,
          expect.objectContaining({
            code: 'BAD_BODY',
            detail: 'A body of type "text/plain" is not read here.',
            hint: `Send the body with Content-Type: ${mediaType}.`,
          }),
        ])
      }
    }
  })

  it.each([
    'text/plain; charset=utf-8',
    'application/xml',
    'application/vnd.api+json',
    'text/json',
    'application/octet-stream',
    'multipart/form-data; boundary=b',
  ])('%s is told the type to send', async (type) => {
    const reply = await ctx.mock.request('POST', ITEMS, { headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': type }, body: '{"query":"$top=1"}' })
    expect([reply.status, reply.body]).toEqual([
      400,
      expect.objectContaining({
        code: 'BAD_BODY',
        detail: `A body of type ${JSON.stringify(type)} is not read here.`,
        hint: 'Send the body with Content-Type: application/json.',
      }),
    ])
    const signIn = await ctx.mock.request('POST', SIGN_IN, { headers: { 'content-type': type }, body: SIGN_IN_FORM })
    expect([signIn.status, signIn.body.hint]).toEqual([400, 'Send the body with Content-Type: application/x-www-form-urlencoded.'])
  })
})

describe('a compressed body', () => {
  const ctx = mockPerSuite()

  it.each(['gzip', 'br', 'deflate', 'zstd', 'gzip, identity'])(
    'Content-Encoding: %s is refused saying so, on a JSON operation and on sign-in',
    async (coding) => {
      const reply = await ctx.mock.request('POST', ITEMS, {
        headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json', 'content-encoding': coding },
        body: '{"query":"$top=1"}',
      })
      const named = coding.replace(', identity', '')
      expect([reply.status, reply.body]).toEqual([
        400,
        expect.objectContaining({
          code: 'BAD_BODY',
          detail: `The body is sent with Content-Encoding: ${named}; the mock reads bodies as they are, decoding none.`,
          hint: 'Send the body uncompressed, without Content-Encoding (as application/json).',
        }),
      ])
      const signIn = await ctx.mock.request('POST', SIGN_IN, {
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-encoding': coding },
        body: SIGN_IN_FORM,
      })
      expect([signIn.status, signIn.body.hint]).toEqual([400, 'Send the body uncompressed, without Content-Encoding (as application/x-www-form-urlencoded).'])
    },
  )

  it('Content-Encoding: identity is a body as it is, and a coding named without a body refuses nothing', async () => {
    const identity = await ctx.mock.request('POST', ITEMS, {
      headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json', 'content-encoding': 'Identity' },
      body: '{"query":"$top=1"}',
    })
    expect([identity.status, identity.body.length]).toEqual([200, 1])
    // No body to decode: the request goes on, and is refused for the body it lacks.
    const empty = await ctx.mock.request('POST', ITEMS, { headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-encoding': 'gzip' } })
    expect([empty.status, empty.body.code]).toEqual([400, 'VALIDATION'])
  })

  it('is refused before its bytes are read: the answer comes while the body is still owed', async () => {
    const url = new URL(ctx.mock.url)
    const socket = connect(Number(url.port), url.hostname)
    try {
      const answer = new Promise<string>((resolve, reject) => {
        let text = ''
        socket.on('data', (chunk: Buffer) => {
          text += chunk.toString('latin1')
          if (text.includes('\r\n\r\n') && text.includes('}')) resolve(text)
        })
        socket.on('error', reject)
      })
      // A thousand bytes announced, none sent: an answer now says the mock did not wait for them.
      socket.write(
        `POST ${ITEMS} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 1000\r\nApplicationId: ${IDS.applicationId}\r\nSessionToken: ${ctx.token}\r\nWorkspaceId: ${IDS.workspaceId}\r\n\r\n`,
      )
      const text = await answer
      expect(text).toMatch(/^HTTP\/1\.1 400 /)
      expect(text).toContain('"code":"BAD_BODY"')
      expect(text).toContain('Content-Encoding: gzip')
    } finally {
      socket.destroy()
    }
  })
})

describe('the nesting and members limits of a JSON body', () => {
  const ctx = mockPerSuite()
  const send = (body: string, headers: Record<string, string> = {}) =>
    ctx.mock.request('POST', ITEMS, { headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json', ...headers }, body })
  /** A Get Items body `levels` deep: its object, then arrays around nothing. */
  const nested = (levels: number) => `{"query":"$top=1","nested":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`
  /** A Get Items body of one object with `count` members, `query` the first. */
  const wide = (count: number) => `{"query":"$top=1",${Array.from({ length: count - 1 }, (_, i) => `"m${i}":1`).join(',')}}`

  it('reads a body 64 levels deep; refuses one 65 deep with 400 BAD_JSON naming the limit and the bracket past it, in both modes', async () => {
    const at = await send(nested(64))
    expect([at.status, at.body.length]).toEqual([200, 1])
    const body = nested(65)
    for (const headers of [{}, { 'x-mock-strict': '1' }] as Array<Record<string, string>>) {
      const past = await send(body, headers)
      expect([past.status, past.body.code, past.body.limit, past.body.position]).toEqual([400, 'BAD_JSON', 64, body.lastIndexOf('[')])
      expect(past.body.detail).toMatch(/^The body nests deeper than 64 levels of objects and arrays \(at character \d+\): the mock reads at most 64\.$/)
    }
  })

  it('reads an object of 1,000 members; refuses one of 1,001 with 400 BAD_JSON naming the limit and the member past it', async () => {
    const at = await send(wide(1000))
    expect([at.status, at.body.length]).toEqual([200, 1])
    const body = wide(1001)
    const past = await send(body)
    expect([past.status, past.body.code, past.body.limit, past.body.position]).toEqual([400, 'BAD_JSON', 1000, body.lastIndexOf(':')])
  })

  it('past the size read in slices: 300 KB nested 150,000 deep and an object of 30,000 members are refused, and the next request answered', async () => {
    // Once, the scanner of big bodies copied the path at every container: the mock ran out of memory on the first.
    for (const body of [nested(150_000), wide(30_000)]) {
      expect(body.length).toBeGreaterThan(256 * 1024)
      const past = await send(body)
      expect([past.status, past.body.code]).toEqual([400, 'BAD_JSON'])
    }
    const next = await ctx.mock.request('POST', ITEMS, { json: { query: '$top=2' }, headers: ctx.mock.dataHeaders(ctx.token) })
    expect([next.status, next.body.length]).toEqual([200, 2])
  })

  it('the control plane reads deeper and wider bodies, left to its own checks; 100,001 levels are refused before them', async () => {
    const rule = (answer: string) => `{"operationId":"queryItems","answer":{"status":200,"body":${answer}}}`
    // A rule's answer 5,000 deep: past the parser's limit of the API, refused by the rule check, which names where.
    const own = await ctx.mock.request('POST', '/__mock/stubs', {
      headers: { 'content-type': 'application/json' },
      body: rule(`${'['.repeat(5000)}${']'.repeat(5000)}`),
      unchecked: true,
    })
    expect([own.status, own.body.code, own.body.violations?.[0]?.keyword]).toEqual([400, 'VALIDATION', 'maxDepth'])
    const past = await ctx.mock.request('POST', '/__mock/stubs', {
      headers: { 'content-type': 'application/json' },
      body: rule(`${'['.repeat(100_000)}${']'.repeat(100_000)}`),
      unchecked: true,
    })
    expect([past.status, past.body.code, past.body.limit]).toEqual([400, 'BAD_JSON', 100_000])
  })
})

describe('a body that is not UTF-8', () => {
  const ctx = mockPerSuite()
  const latin1 = (text: string) => Buffer.from(text, 'latin1')

  it('JSON with a Latin-1 byte is refused naming the byte and its offset, with or without a charset, not read as U+FFFD', async () => {
    const body = latin1('{"query":"$filter=Customer eq \'Caf\u00e9\'"}')
    const plain = await ctx.mock.request('POST', ITEMS, { headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json' }, body })
    expect([plain.status, plain.body]).toEqual([
      400,
      expect.objectContaining({
        code: 'BAD_BODY',
        detail: 'The body is not UTF-8: the byte 0xE9 at offset 34 begins no UTF-8 character.',
        offset: 34,
        hint: "Send the body's text as UTF-8.",
      }),
    ])
    const declared = await ctx.mock.request('POST', ITEMS, {
      headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json; charset=ISO-8859-1', 'x-mock-strict': '1' },
      body,
    })
    expect([declared.status, declared.body.code, declared.body.hint]).toEqual([
      400,
      'BAD_BODY',
      "Send the body's text as UTF-8. The charset=ISO-8859-1 of its Content-Type changes nothing: JSON bodies and forms are read as UTF-8.",
    ])
  })

  it('a charset other than UTF-8 changes nothing when the bytes are UTF-8 (RFC 8259, section 11), and "é" is read as "é"', async () => {
    for (const type of ['application/json; charset=iso-8859-1', 'application/json; charset="utf-8"', 'application/json;charset=UTF8']) {
      const reply = await ctx.mock.request('POST', ITEMS, {
        headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': type },
        body: Buffer.from('{"query":"$top=1&$filter=Customer ne \'Caf\u00e9\'"}', 'utf8'),
      })
      expect([reply.status, reply.body.length], type).toEqual([200, 1])
    }
    // The text arrives as sent: the filter's character is quoted back in a refusal as "é", not as U+FFFD.
    const quoted = await ctx.mock.request('POST', ITEMS, {
      headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json' },
      body: Buffer.from('{"query":"$filter=Caf\u00e9 eq 1"}', 'utf8'),
    })
    expect([quoted.status, quoted.body.detail]).toEqual([400, "$filter, character 4: unexpected character '\u00e9'"])
  })

  it('UTF-16 labelled as such gets the JSON problem and the hint to send UTF-8', async () => {
    const reply = await ctx.mock.request('POST', ITEMS, {
      headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json; charset=utf-16le' },
      body: Buffer.from('{"query":"$top=1"}', 'utf16le'),
    })
    expect([reply.status, reply.body]).toEqual([
      400,
      expect.objectContaining({
        code: 'BAD_JSON',
        detail: "The body is not valid JSON: U+0000 where a member name in double quotes or '}' was expected (line 1, column 2).",
        position: 1,
        hint: "Send the body's text as UTF-8. The charset=utf-16le of its Content-Type changes nothing: JSON bodies and forms are read as UTF-8.",
      }),
    ])
    const marked = await ctx.mock.request('POST', ITEMS, {
      headers: { ...ctx.mock.dataHeaders(ctx.token), 'content-type': 'application/json; charset=utf-16' },
      body: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{}', 'utf16le')]),
    })
    expect([marked.status, marked.body.detail]).toEqual([400, 'The body is not UTF-8: the byte 0xFF at offset 0 begins no UTF-8 character.'])
  })

  it('a sign-in form whose escapes are not UTF-8 is refused naming the field, never its value; ASCII under a Latin-1 charset signs in', async () => {
    const refused = await ctx.mock.request('POST', SIGN_IN, {
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=ISO-8859-1' },
      body: SIGN_IN_FORM.replace('password=admin-pass', 'password=admin-pass%E9'),
    })
    expect([refused.status, refused.body]).toEqual([
      400,
      expect.objectContaining({
        code: 'BAD_BODY',
        detail: 'The form\'s field "password" is not UTF-8 once its percent-escapes are decoded.',
        hint: "Percent-encode the form as UTF-8 bytes (as URLSearchParams and encodeURIComponent do). Send the body's text as UTF-8. The charset=ISO-8859-1 of its Content-Type changes nothing: JSON bodies and forms are read as UTF-8.",
      }),
    ])
    expect(JSON.stringify(refused.body)).not.toContain('admin-pass')
    const raw = await ctx.mock.request('POST', SIGN_IN, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: Buffer.concat([Buffer.from(`${SIGN_IN_FORM}&note=`), latin1('\u00e9')]),
    })
    expect([raw.status, raw.body.code, raw.body.offset]).toEqual([400, 'BAD_BODY', SIGN_IN_FORM.length + '&note='.length])
    // A client library that labels its forms Latin-1 and sends ASCII (a common default) signs in.
    const ascii = await ctx.mock.request('POST', SIGN_IN, {
      headers: { 'content-type': 'application/x-www-form-urlencoded; charset=ISO-8859-1' },
      body: SIGN_IN_FORM,
    })
    expect(ascii.status).toBe(200)
    // A percent sign that starts no escape is a percent sign, as before.
    const percent = await ctx.mock.request('POST', SIGN_IN, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: SIGN_IN_FORM.replace('password=admin-pass', 'password=100%'),
    })
    expect([percent.status, percent.body.code]).toEqual([400, 'INVALID_GRANT'])
  })
})
