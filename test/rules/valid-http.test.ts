/**
 * What makes a rule's answer valid HTTP whatever the document says (src/rules/valid-http.ts): each
 * header refusal names its header and says why, one violation per header, and the checks that a
 * value passes leave it alone.
 */
import { describe, expect, it } from 'vitest'
import { depthViolations, headerViolations, noContentViolations } from '../../src/rules/valid-http.ts'
import { MAX_ANSWER_DEPTH } from '../../spec/control-plane/constants.ts'

describe('headerViolations', () => {
  it('takes headers an installation may add, and no headers at all', () => {
    expect(headerViolations({ 'Retry-After': '5', 'X-Request-Id': 'abc 123\tdef', 'Content-Type': 'text/plain' }, '/body/answer/headers')).toEqual([])
    expect(headerViolations(undefined, '/x')).toEqual([])
    expect(headerViolations({}, '/x')).toEqual([])
  })

  it('a name that is not a token: one violation, with why', () => {
    expect(headerViolations({ 'Bad Name': 'x' }, '/h')).toEqual([
      {
        pointer: '/h/Bad Name',
        keyword: 'headerName',
        message:
          "is not a header name: a name is a token of letters, digits and !#$%&'*+-.^_`|~ (RFC 9110, section 5.1), without spaces, colons or control characters",
      },
    ])
  })

  it('a name with a slash is pointed at escaped', () => {
    expect(headerViolations({ 'a/b': 'x' }, '/h')[0]?.pointer).toBe('/h/a~1b')
  })

  it.each(['Transfer-Encoding', 'content-length', 'Connection', 'Keep-Alive', 'Upgrade'])('%s belongs to the connection', (name) => {
    expect(headerViolations({ [name]: 'x' }, '/h')).toEqual([
      {
        pointer: `/h/${name}`,
        keyword: 'connectionHeader',
        message: `cannot be set by a rule: ${name} belongs to the connection (framing or hop-by-hop, RFC 9110, section 7.6.1), which the mock writes from the answer it sends`,
      },
    ])
  })

  it("Access-Control-* headers are the CORS layer's", () => {
    expect(headerViolations({ 'Access-Control-Allow-Origin': '*' }, '/h')).toEqual([
      {
        pointer: '/h/Access-Control-Allow-Origin',
        keyword: 'corsHeader',
        message: "cannot be set by a rule: the Access-Control-* headers are the mock's CORS layer's (--cors), which answers them for every route",
      },
    ])
  })

  it("Content-Type is refused only when told (a fault's body is always problem+json)", () => {
    expect(headerViolations({ 'content-type': 'text/plain' }, '/h', { contentType: false })).toEqual([
      {
        pointer: '/h/content-type',
        keyword: 'faultHeader',
        message: 'cannot be set by a fault: its body is the INJECTED_FAULT problem, sent as application/problem+json',
      },
    ])
    expect(headerViolations({ 'Content-Type': 'text/plain' }, '/h', { contentType: true })).toEqual([])
  })

  it('the same header twice, in another case: the second is named, with the first', () => {
    expect(headerViolations({ 'Retry-After': '1', 'retry-after': '2' }, '/h')).toEqual([
      {
        pointer: '/h/retry-after',
        keyword: 'duplicateHeader',
        message: 'names the same header as Retry-After (header names are case-insensitive): give it once',
      },
    ])
  })

  it('a refused name does not count as seen: a later valid one of the same name is fine', () => {
    expect(headerViolations({ 'Content-Type': 'a/b', 'X-A': '1', 'X-B': '2' }, '/h', { contentType: false }).map((v) => v.keyword)).toEqual(['faultHeader'])
  })

  it.each([
    ['a line feed', 'a\nb'],
    ['a carriage return', 'a\r\nSet-Cookie: x'],
    ['a NUL', 'a\u0000'],
    ['a letter beyond ASCII', 'café'],
  ])('a value with %s is refused, naming the character', (_what, value) => {
    const [violation] = headerViolations({ 'X-Note': value }, '/h')
    expect(violation).toMatchObject({ pointer: '/h/X-Note', keyword: 'headerValue' })
    expect(violation?.message).toMatch(
      /^holds .+, which a header value cannot: only visible ASCII characters, spaces and tabs \(RFC 9110, section 5\.5; encode other text, as RFC 8187 does\)$/,
    )
  })

  it('every bad header is listed, not only the first', () => {
    expect(headerViolations({ 'A B': '1', Connection: 'close', 'X-Ok': 'ok', 'X-Bad': 'a\nb' }, '/h').map((v) => v.keyword)).toEqual([
      'headerName',
      'connectionHeader',
      'headerValue',
    ])
  })

  it('a value that is not text is left to the schema', () => {
    expect(headerViolations({ 'X-Count': 5 }, '/h')).toEqual([])
  })
})

describe('depthViolations', () => {
  const nested = (depth: number): unknown => {
    let value: unknown = 'leaf'
    for (let i = 0; i < depth; i++) value = { 'a/b': value }
    return value
  }

  it('a value at the depth limit passes; one level more is refused, pointing at the first value too deep', () => {
    expect(depthViolations(nested(MAX_ANSWER_DEPTH), '/body')).toEqual([])
    const [violation] = depthViolations(nested(MAX_ANSWER_DEPTH + 1), '/body')
    expect(violation?.keyword).toBe('maxDepth')
    expect(violation?.message).toBe(
      `nests deeper than ${MAX_ANSWER_DEPTH} levels: a rule's body, patch or pattern nests at most ${MAX_ANSWER_DEPTH} objects or arrays`,
    )
    expect(violation?.pointer.startsWith('/body/a~1b/a~1b/')).toBe(true)
  })

  it('scalars and absent values pass', () => {
    expect(depthViolations(undefined, '/x')).toEqual([])
    expect(depthViolations('text', '/x')).toEqual([])
  })
})

describe('noContentViolations', () => {
  it.each([204, 205, 304])('%i has no body', (status) => {
    expect(noContentViolations(status, true, '/body/answer')).toEqual([
      { pointer: '/body/answer/body', keyword: 'noContent', message: `must be absent: a ${status} answer has no body (RFC 9110)` },
    ])
    expect(noContentViolations(status, false, '/body/answer')).toEqual([])
  })

  it('other statuses may have a body', () => {
    expect(noContentViolations(200, true, '/body/answer')).toEqual([])
  })
})
