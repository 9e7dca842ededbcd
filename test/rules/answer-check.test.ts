/**
 * The merge patch of answer rules against RFC 7386's own examples, the off-document checks, and
 * what makes a rule's answer valid HTTP, without HTTP.
 */
import { validateHeaderName, validateHeaderValue } from 'node:http'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkPatch, checkWholeAnswer, mergePatch } from '../../src/rules/answer-check.ts'
import { dropEchoes } from '../../src/document/violations.ts'
import { depthViolations, headerViolations } from '../../src/rules/valid-http.ts'
import { badFieldValueCharacter, isFieldName } from '../../src/wire/http-fields.ts'
import { tooDeepAt } from '../../src/document/json.ts'
import { describeViolations } from '../../src/document/violations.ts'
import { listOperations, releaseDocument } from '../../src/document/reader.ts'

describe('mergePatch (RFC 7386, Appendix A)', () => {
  const cases: Array<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ]
  it.each(cases)('%j patched with %j is %j', (target, patch, result) => {
    expect(mergePatch(structuredClone(target), patch)).toEqual(result)
  })

  it('keeps a __proto__ member as data', () => {
    const patched = mergePatch({}, JSON.parse('{"__proto__":{"polluted":true}}')) as Record<string, unknown>
    expect(Object.hasOwn(patched, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })
})

describe('answers held to the served document', () => {
  const document = releaseDocument('3.0.19')
  const entry = (id: string) => listOperations(document).find((e) => e.operationId === id)
  it("sends a problem of an error status as application/problem+json, the document's type for it", () => {
    const checked = checkWholeAnswer(
      document,
      entry('saveItems'),
      { status: 401, body: { type: 'urn:x', title: 'No', status: 401, detail: 'Sign in.' } },
      '/body/answer',
    )
    expect(checked.violations).toEqual([])
    expect(checked.prepared.headers['content-type']).toBe('application/problem+json; charset=utf-8')
  })
  it('refuses a patch of an answer that is not JSON', () => {
    expect(checkPatch(document, entry('downloadAttachment')!, { a: 1 }, '/body/answer').map((v) => v.pointer)).toEqual(['/body/answer/patch'])
  })
})

describe('answers held to the served document: statuses and patches', () => {
  const document = releaseDocument('3.0.19')
  const entry = (id: string) => listOperations(document).find((e) => e.operationId === id)
  it('takes a gateway status the operation does not list, holding its body to no schema, and says it is one', () => {
    for (const status of [500, 502, 503, 504]) {
      const checked = checkWholeAnswer(document, entry('saveItems'), { status, body: { anything: [1] } }, '/body/answer')
      expect(checked.violations, String(status)).toEqual([])
      expect(checked.gateway).toBe(true)
      expect(checked.prepared.headers['content-type']).toBe('application/json; charset=utf-8')
    }
    const other = checkWholeAnswer(document, entry('saveItems'), { status: 501 }, '/body/answer')
    expect(other.violations.map((v) => [v.pointer, v.keyword])).toEqual([['/body/answer/status', 'offDocument']])
    expect(other.gateway).toBe(false)
  })
  it('refuses a body with 204, 205 and 304 as not HTTP', () => {
    for (const status of [204, 205, 304]) {
      const checked = checkWholeAnswer(document, undefined, { status, body: '' }, '/body/answer')
      expect(checked.violations, String(status)).toEqual([expect.objectContaining({ pointer: '/body/answer/body', keyword: 'noContent' })])
    }
    expect(checkWholeAnswer(document, undefined, { status: 204 }, '/body/answer').violations).toEqual([])
  })
  it('names each patch member the success answer does not name, however deep, in arrays too', () => {
    const unknown = (op: string, patch: unknown) =>
      checkPatch(document, entry(op)!, patch, '/body/answer')
        .filter((v) => v.keyword === 'unknownMember')
        .map((v) => v.pointer)
    expect(unknown('saveItems', { Colour: 1, LockedItems: 2, ReturnData: { Extra: {} } })).toEqual([
      '/body/answer/patch/Colour',
      '/body/answer/patch/ReturnData/Extra',
    ])
    // A map's keys (PrimaryKeyData's temporary Ids, newKeys' names) are any names; a null removes.
    expect(unknown('saveItems', { ReturnData: { PrimaryKeyData: { '-3': { newKeys: { 'OrderLines[0]': '7' } } } }, Colour: null })).toEqual([])
    // Rows carry the application's own fields: a map of any names (additionalProperties).
    expect(unknown('queryItems', [{ Id: 1, Customer: 'x' }])).toEqual([])
    // An array's elements are held to its items: a misspelt member of a ReturnStates entry.
    expect(unknown('saveItems', { ReturnStates: [{ Code: 'X', Mesage: 'y' }] })).toEqual(['/body/answer/patch/ReturnStates/0/Mesage'])
    expect(unknown('queryItems', { Items: [{ _FieldCount_: 1 }], Timestamp: 1, Total: 3 })).toEqual(['/body/answer/patch/Total'])
  })
  it("keeps the precise violation of an alternative, not the other alternative's type or the oneOf", () => {
    const found = [
      { pointer: '/body', keyword: 'type', message: 'must be object' },
      { pointer: '/body/0/Id', keyword: 'type', message: 'must be integer' },
      { pointer: '/body', keyword: 'oneOf', message: 'must match exactly one schema in oneOf' },
    ]
    expect(dropEchoes(found)).toEqual([found[1]])
    // A type violation with nothing inside it is the violation.
    expect(dropEchoes([found[0]!])).toEqual([found[0]])
  })
})

describe('describeViolations', () => {
  it('names wrong values before members missing, and a failed alternative last, keeping the count', () => {
    const missing = (name: string) => ({ pointer: `/body/${name}`, keyword: 'required', message: `must have required property '${name}'` })
    const text = describeViolations([
      { pointer: '/body', keyword: 'anyOf', message: 'must match a schema in anyOf' },
      missing('A'),
      missing('B'),
      missing('C'),
      { pointer: '/body/D', keyword: 'type', message: 'must be boolean' },
    ])
    expect(text).toBe("/body/D must be boolean; /body/A must have required property 'A'; /body/B must have required property 'B' (and 2 more)")
  })
})

describe('valid HTTP', () => {
  it('accepts as a header name exactly what Node sends (RFC 9110 tokens)', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom(...'aZ09!#$%&\'*+-.^_`|~ :"(),/;<=>?@[]{}\\\t\r\n\u0000é'), maxLength: 8 }), (name) => {
        let node = true
        try {
          validateHeaderName(name)
        } catch {
          node = false
        }
        expect(isFieldName(name)).toBe(node)
      }),
    )
  })
  it('accepts as a header value only visible ASCII, spaces and tabs, all of which Node sends', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.integer({ min: 0, max: 0x2fff }).map((code) => String.fromCodePoint(code)), maxLength: 8 }), (value) => {
        const bad = badFieldValueCharacter(value)
        expect(bad === undefined).toBe(/^[\t\x20-\x7e]*$/.test(value))
        if (bad === undefined) expect(() => validateHeaderValue('x-run', value)).not.toThrow()
      }),
    )
  })
  it("refuses the connection's headers and the CORS layer's in any case, and lets others pass", () => {
    const refused = [
      'content-length',
      'TRANSFER-ENCODING',
      'Connection',
      'keep-alive',
      'Proxy-Connection',
      'te',
      'Trailer',
      'upgrade',
      'HOST',
      'access-control-allow-origin',
      'Access-Control-Expose-Headers',
    ]
    for (const name of refused) expect(headerViolations({ [name]: 'x' }, '/h'), name).toEqual([expect.objectContaining({ pointer: `/h/${name}` })])
    expect(
      headerViolations({ 'Retry-After': '3', 'X-Request-Id': 'a\tb', 'Set-Cookie': 'a=1', 'Content-Type': 'text/plain', TEA: 'x', Hosting: 'y' }, '/h'),
    ).toEqual([])
    expect(headerViolations({ 'Content-Type': 'text/plain' }, '/h', { contentType: false })).toEqual([expect.objectContaining({ keyword: 'faultHeader' })])
  })
  it('measures depth without recursion, a value that contains itself included', () => {
    const nest = (levels: number): unknown => {
      let value: unknown = 1
      for (let i = 0; i < levels; i++) value = i % 2 === 0 ? { a: value } : [value]
      return value
    }
    expect(tooDeepAt(nest(64), 64)).toBeUndefined()
    expect(tooDeepAt(nest(65), 64)).toHaveLength(64)
    expect(tooDeepAt(nest(100_000), 64)).toHaveLength(64)
    expect(tooDeepAt('text', 0)).toBeUndefined()
    const loop: Record<string, unknown> = {}
    loop.self = loop
    expect(depthViolations(loop, '/body/answer/body')).toEqual([
      expect.objectContaining({ pointer: `/body/answer/body${'/self'.repeat(64)}`, keyword: 'maxDepth' }),
    ])
  })
})
