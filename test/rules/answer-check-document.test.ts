/**
 * Whether the document can give a rule's answer (src/rules/answer-check.ts), against a small
 * document written for the purpose: every branch of media types, bodies, statuses reached through
 * `$ref`, and what a merge patch may name (properties, maps, pattern names, alternatives, arrays),
 * without the product's document in the way.
 */
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { describe, expect, it } from 'vitest'
import { checkPatch, checkWholeAnswer, mergePatch, NOT_HTTP } from '../../src/rules/answer-check.ts'
import { listOperations } from '../../src/document/reader.ts'

const document = {
  openapi: '3.1.0',
  info: { title: 'a small API', version: '1' },
  paths: {
    '/things': {
      post: {
        operationId: 'makeThing',
        responses: {
          '200': {
            description: 'made',
            content: {
              'application/json': {
                schema: { $ref: '#/components/schemas/Thing' },
                example: { Name: 'first', Count: 1 },
                examples: { second: { value: { Name: 'second', Count: 2 } }, unfit: { value: { Count: 'three' } }, none: { summary: 'no value' } },
              },
            },
          },
          '204': { description: 'nothing' },
          '409': { $ref: '#/components/responses/Conflict' },
          '415': { description: 'a type', content: { 'text/csv': {} } },
        },
      },
    },
    '/text': { get: { operationId: 'getText', responses: { '200': { description: 'text', content: { 'text/plain': { schema: { type: 'string' } } } } } } },
    '/loose': { get: { operationId: 'getLoose', responses: { '200': { description: 'no schema', content: { 'application/json': {} } } } } },
    '/one': {
      get: {
        operationId: 'getOne',
        responses: {
          '200': {
            description: 'one example',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Labelled' }, example: { Label: 'x' } } },
          },
        },
      },
    },
    '/named': {
      get: {
        operationId: 'getNamed',
        responses: {
          '200': {
            description: 'named examples',
            content: {
              'application/json': { schema: { $ref: '#/components/schemas/Labelled' }, examples: { a: { value: { Label: 'x' } }, b: 'not an example object' } },
            },
          },
        },
      },
    },
    '/both': {
      get: {
        operationId: 'getBoth',
        responses: {
          '200': {
            description: 'two JSON types',
            content: { 'application/problem+json': { schema: { type: 'object' } }, 'application/json': { schema: { type: 'object' } } },
          },
        },
      },
    },
    '/cycle': {
      get: {
        operationId: 'getCycle',
        responses: {
          '200': { description: 'a schema that refers to itself', content: { 'application/json': { schema: { $ref: '#/components/schemas/Cycle' } } } },
        },
      },
    },
    '/none': { delete: { operationId: 'dropThing', responses: { '202': { description: 'accepted' } } } },
    '/vendor': {
      get: {
        operationId: 'getVendor',
        responses: {
          '201': {
            description: 'v',
            content: { 'text/html': {}, 'application/vnd.thing+json': { schema: { type: 'object', properties: { V: { type: 'integer' } } } } },
          },
        },
      },
    },
  },
  components: {
    responses: {
      Conflict: {
        description: 'conflict',
        content: {
          'application/problem+json': { schema: { type: 'object', required: ['title'], properties: { title: { type: 'string' } } } },
          'text/plain': { schema: { type: 'string' } },
        },
      },
    },
    schemas: {
      Thing: {
        type: 'object',
        required: ['Name'],
        properties: {
          Name: { type: 'string' },
          Count: { type: 'integer' },
          Tags: { type: 'array', items: { $ref: '#/components/schemas/Tag' } },
          Fields: { type: 'object', additionalProperties: { type: 'string' } },
          Open: { type: 'object', additionalProperties: true },
          Codes: { type: 'object', patternProperties: { '^c[0-9]+$': { type: 'integer' } } },
          Either: {
            oneOf: [
              { type: 'object', required: ['A'], properties: { A: { type: 'string' } } },
              { type: 'object', required: ['B'], properties: { B: { type: 'string' } } },
            ],
          },
          Both: { allOf: [{ $ref: '#/components/schemas/Tag' }, { type: 'object', properties: { Extra: { type: 'string' } } }] },
          Free: { type: 'object' },
          'a/b': { type: 'object', properties: { 'c~d': { type: 'string' } } },
          Closed: { type: 'object', additionalProperties: false },
          Mixed: {
            anyOf: [
              { type: 'object', properties: { A: {} } },
              { type: 'object', additionalProperties: true },
            ],
          },
          Labels: { type: 'object', patternProperties: { '^\\p{Lu}': { type: 'string' } } },
          Codes2: { type: 'object', patternProperties: { '^c[0-9]+$': { type: 'integer' } }, additionalProperties: { type: 'string' } },
          Groups: { type: 'object', patternProperties: { '^g[0-9]+$': { type: 'object', properties: { Label: { type: 'string' } } } } },
        },
      },
      Tag: { type: 'object', properties: { Label: { type: 'string' } } },
      Cycle: { anyOf: [{ $ref: '#/components/schemas/Cycle' }, { type: 'object', properties: { X: {} } }] },
      Labelled: { type: 'object', required: ['Label'], properties: { Label: { type: 'string' } } },
    },
  },
} as unknown as OpenAPIObject

const operations = new Map(listOperations(document).map((entry) => [entry.operationId, entry]))
const entry = (operationId: string) => {
  const found = operations.get(operationId)
  if (found === undefined) throw new Error(`no ${operationId}`)
  return found
}
const whole = (operationId: string | undefined, answer: { status?: number; headers?: Record<string, string>; body?: unknown }) =>
  checkWholeAnswer(document, operationId === undefined ? undefined : entry(operationId), answer, '/body/answer')
const patched = (operationId: string, patch: unknown) => checkPatch(document, entry(operationId), patch, '/body/answer')
const unknown = (pointer: string) => ({
  pointer,
  keyword: 'unknownMember',
  message: 'is not a member makeThing 200 names: a patch that adds it gives an answer the document does not describe (a misspelt member changes nothing)',
})

describe('a whole answer held to the document', () => {
  it("a body that fits the status's JSON schema is prepared as JSON, with the declared type", () => {
    expect(whole('makeThing', { body: { Name: 'x' } })).toEqual({
      prepared: { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, payload: '{"Name":"x"}' },
      violations: [],
      gateway: false,
    })
  })

  it('a body that does not fit: each violation, under /body/answer/body', () => {
    expect(whole('makeThing', { body: { Count: 'x' } }).violations).toEqual([
      { pointer: '/body/answer/body/Name', keyword: 'required', message: "must have required property 'Name'" },
      { pointer: '/body/answer/body/Count', keyword: 'type', message: 'must be integer' },
    ])
  })

  it('a status the operation does not list: named, with the ones it lists', () => {
    expect(whole('makeThing', { status: 418, body: 'tea' }).violations).toEqual([
      {
        pointer: '/body/answer/status',
        keyword: 'offDocument',
        message: '418 is not a status makeThing answers with (the document lists 200, 204, 409, 415; a gateway status, 500, 502, 503 or 504, goes anywhere)',
      },
    ])
  })

  it('a gateway status the operation does not list goes anywhere, with any body, and is marked', () => {
    const checked = whole('makeThing', { status: 503, body: { reason: 'maintenance' } })
    expect(checked.violations).toEqual([])
    expect(checked.gateway).toBe(true)
    expect(checked.prepared).toEqual({ status: 503, headers: { 'content-type': 'application/json; charset=utf-8' }, payload: '{"reason":"maintenance"}' })
    expect(whole('makeThing', { status: 502 }).prepared).toEqual({ status: 502, headers: {}, payload: null })
  })

  it('a status documented without a body: a body must be absent', () => {
    expect(whole('dropThing', { status: 202, body: 'x' }).violations).toEqual([
      { pointer: '/body/answer/body', keyword: 'offDocument', message: 'must be absent: dropThing answers 202 without a body' },
    ])
    expect(whole('dropThing', { status: 202 })).toEqual({ prepared: { status: 202, headers: {}, payload: null }, violations: [], gateway: false })
  })

  it('a status documented with a body: the body is required', () => {
    expect(whole('makeThing', { status: 200 }).violations).toEqual([
      { pointer: '/body/answer/body', keyword: 'offDocument', message: 'is required: makeThing answers 200 with a body (application/json)' },
    ])
  })

  it('204 with a body is both off the document and not HTTP', () => {
    expect(whole('makeThing', { status: 204, body: 'x' }).violations.map((v) => v.keyword)).toEqual(['offDocument', 'noContent'])
    expect([...NOT_HTTP].sort()).toEqual(['noContent', 'textBody'])
  })

  it("a status reached through $ref: its media types and schema are the referenced response's", () => {
    expect(whole('makeThing', { status: 409, body: { title: 't' } })).toEqual({
      prepared: { status: 409, headers: { 'content-type': 'application/problem+json; charset=utf-8' }, payload: '{"title":"t"}' },
      violations: [],
      gateway: false,
    })
    expect(whole('makeThing', { status: 409, body: {} }).violations).toEqual([
      { pointer: '/body/answer/body/title', keyword: 'required', message: "must have required property 'title'" },
    ])
  })

  it("a media type the rule names must be one the status declares; the rule's header is sent as written", () => {
    expect(whole('makeThing', { status: 409, headers: { 'Content-Type': 'text/plain' }, body: 'conflict' })).toEqual({
      prepared: { status: 409, headers: { 'content-type': 'text/plain' }, payload: 'conflict' },
      violations: [],
      gateway: false,
    })
    expect(whole('makeThing', { status: 409, headers: { 'content-TYPE': 'Text/HTML ; charset=utf-8' }, body: 'x' }).violations).toEqual([
      {
        pointer: '/body/answer/headers/content-TYPE',
        keyword: 'offDocument',
        message: 'text/html is not a media type makeThing answers 409 with (application/problem+json, text/plain)',
      },
    ])
  })

  it('a JSON type named in any case is JSON: the body is checked and sent as JSON', () => {
    const checked = whole('makeThing', { headers: { 'Content-Type': 'Application/JSON; charset=utf-8' }, body: { Name: 'x' } })
    expect(checked.violations).toEqual([])
    expect(checked.prepared).toEqual({ status: 200, headers: { 'content-type': 'Application/JSON; charset=utf-8' }, payload: '{"Name":"x"}' })
  })

  it('with no type named: application/json if declared, else the first JSON type, else the first type', () => {
    expect(whole('getVendor', { status: 201, body: { V: 1 } }).prepared.headers['content-type']).toBe('application/vnd.thing+json; charset=utf-8')
    expect(whole('makeThing', { status: 415, body: 'a,b' }).prepared).toEqual({
      status: 415,
      headers: { 'content-type': 'text/csv; charset=utf-8' },
      payload: 'a,b',
    })
    expect(whole('getText', { body: 'hello' }).prepared.headers['content-type']).toBe('text/plain; charset=utf-8')
  })

  it("a vendor JSON type (with a slash escaped in the schema's pointer) is checked against its schema", () => {
    expect(whole('getVendor', { status: 201, body: { V: 'x' } }).violations).toEqual([
      { pointer: '/body/answer/body/V', keyword: 'type', message: 'must be integer' },
    ])
  })

  it('a JSON type with no schema takes any body', () => {
    expect(whole('getLoose', { body: { anything: 1 } }).violations).toEqual([])
  })

  it('a text type takes only a text body, sent as written', () => {
    expect(whole('getText', { body: { a: 1 } }).violations).toEqual([
      { pointer: '/body/answer/body', keyword: 'textBody', message: 'must be a text: text/plain is not JSON, so the body is sent as written' },
    ])
    expect(whole('getText', { body: 'plain "text"' }).prepared.payload).toBe('plain "text"')
  })

  it('no operation (a rule for every operation): a text body goes as text, any other as JSON, nothing is held to a document', () => {
    expect(whole(undefined, { status: 418, body: 'tea' })).toEqual({
      prepared: { status: 418, headers: { 'content-type': 'text/plain; charset=utf-8' }, payload: 'tea' },
      violations: [],
      gateway: false,
    })
    expect(whole(undefined, { status: 418, body: { a: 1 } }).prepared).toEqual({
      status: 418,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      payload: '{"a":1}',
    })
    expect(whole(undefined, { body: 5 }).prepared.payload).toBe('5')
    expect(whole(undefined, { status: 418, headers: { 'Content-Type': 'text/plain' }, body: { a: 1 } }).violations.map((v) => v.keyword)).toEqual(['textBody'])
  })

  it('application/json goes first when the status declares it beside another JSON type', () => {
    expect(whole('getBoth', { body: {} }).prepared.headers['content-type']).toBe('application/json; charset=utf-8')
  })

  it('the Content-Type is found among other headers, in any case', () => {
    expect(whole(undefined, { status: 418, headers: { 'X-A': 'b', 'CONTENT-type': 'text/plain' }, body: 'x' }).prepared.headers).toEqual({
      'x-a': 'b',
      'content-type': 'text/plain',
    })
  })

  it.each(['application/json5', 'x-application/json'])('%s only looks like JSON: an object body is refused', (type) => {
    expect(whole(undefined, { status: 418, headers: { 'Content-Type': type }, body: { a: 1 } }).violations.map((v) => v.keyword)).toEqual(['textBody'])
  })

  it('a Content-Type on an answer without a body, where the status declares none, is left alone', () => {
    expect(whole('dropThing', { status: 202, headers: { 'Content-Type': 'text/plain' } }).violations).toEqual([])
  })

  it('header names are sent in lower case, values as given', () => {
    expect(whole(undefined, { status: 503, headers: { 'Retry-After': '120', 'X-Trace': 'A b' } }).prepared.headers).toEqual({
      'retry-after': '120',
      'x-trace': 'A b',
    })
  })
})

describe('a merge patch held to the document', () => {
  it("adds nothing the schema does not name, whatever the schema's shape", () => {
    expect(
      patched('makeThing', {
        Nam: 'x',
        Tags: [{ Label: 'a', Labl: 'b' }],
        Fields: { any: 'x' },
        Open: { any: 1 },
        Codes: { c1: 1, d: 2 },
        Either: { A: 'a' },
        Both: { Label: 'l', Extra: 'e', Other: 'o' },
        Free: { x: 1 },
        Count: null,
        'a/b': { 'c~d': 'x', 'e~f': 'y' },
      }),
    ).toEqual([
      unknown('/body/answer/patch/Nam'),
      unknown('/body/answer/patch/Tags/0/Labl'),
      unknown('/body/answer/patch/Codes/d'),
      unknown('/body/answer/patch/Both/Other'),
      unknown('/body/answer/patch/a~1b/e~0f'),
    ])
  })

  it('an unknown member set to null removes nothing and adds nothing: it passes', () => {
    expect(patched('makeThing', { Unknown: null })).toEqual([])
  })

  it('a member of either alternative is named; one of neither is not', () => {
    expect(patched('makeThing', { Either: { B: 'b' } })).toEqual([])
    expect(patched('makeThing', { Either: { C: 'c' } })).toContainEqual(unknown('/body/answer/patch/Either/C'))
  })

  it('a value the patch gives a scalar member is not looked into', () => {
    expect(patched('makeThing', { Name: 'x', Count: 3 })).toEqual([])
  })

  it('each documented example that fits is patched and must still fit; a violation is said once, naming the operation and status', () => {
    expect(patched('makeThing', { Count: 'many' })).toEqual([
      { pointer: '/body/answer/patch/Count', keyword: 'type', message: 'must be integer once patched (makeThing 200)' },
    ])
    expect(patched('makeThing', { Name: null })).toEqual([
      { pointer: '/body/answer/patch/Name', keyword: 'required', message: "must have required property 'Name' once patched (makeThing 200)" },
    ])
  })

  it('two violations of one patch are both said', () => {
    expect(
      patched('makeThing', { Count: 'many', Name: 5 })
        .map((v) => v.pointer)
        .sort(),
    ).toEqual(['/body/answer/patch/Count', '/body/answer/patch/Name'])
  })

  it('a lone example, or named examples alone, are what a patch is held to', () => {
    const lost = (operationId: string) => ({
      pointer: '/body/answer/patch/Label',
      keyword: 'required',
      message: `must have required property 'Label' once patched (${operationId} 200)`,
    })
    expect(patched('getOne', { Label: null })).toEqual([lost('getOne')])
    expect(patched('getNamed', { Label: null })).toEqual([lost('getNamed')])
    expect(patched('getOne', { Label: 'y' })).toEqual([])
  })

  it("a scalar where the schema has members is the schema's matter, not a list of unknown members", () => {
    expect(patched('makeThing', { Both: 'xy' }).map((v) => v.keyword)).not.toContain('unknownMember')
  })

  it('a schema that takes no other member names none; one alternative that takes any names all', () => {
    expect(patched('makeThing', { Closed: { x: 1 } })).toContainEqual(unknown('/body/answer/patch/Closed/x'))
    expect(patched('makeThing', { Mixed: { Z: 1 } })).toEqual([])
  })

  it('pattern names are Unicode patterns; a name no pattern takes falls to additionalProperties', () => {
    expect(patched('makeThing', { Labels: { Éa: 'x' } })).toEqual([])
    expect(patched('makeThing', { Codes2: { note: 'x', c1: 1 } })).toEqual([])
    expect(patched('makeThing', { Groups: { g1: { Labl: 'x' } } })).toEqual([unknown('/body/answer/patch/Groups/g1/Labl')])
  })

  it('an example that does not fit the schema itself is not held against the patch', () => {
    expect(patched('makeThing', {})).toEqual([])
    expect(patched('makeThing', { Count: 4 })).toEqual([])
  })

  it('an operation whose success answer is not JSON, or has no body, cannot be patched', () => {
    expect(patched('getText', {})).toEqual([{ pointer: '/body/answer/patch', keyword: 'offDocument', message: 'cannot apply: getText does not answer JSON' }])
    expect(patched('dropThing', {})).toEqual([
      { pointer: '/body/answer/patch', keyword: 'offDocument', message: 'cannot apply: dropThing does not answer JSON' },
    ])
  })

  it('a schema that refers to itself is opened a bounded number of times', () => {
    expect(patched('getCycle', { X: 1, Y: 2 })).toEqual([
      {
        pointer: '/body/answer/patch/Y',
        keyword: 'unknownMember',
        message: 'is not a member getCycle 200 names: a patch that adds it gives an answer the document does not describe (a misspelt member changes nothing)',
      },
    ])
  })

  it('a patched answer is plain data: its members can be changed and removed again', () => {
    const once = mergePatch({}, { a: 1, b: { c: 2 } }) as Record<string, unknown>
    once.a = 3
    expect(once.a).toBe(3)
    expect(mergePatch(once, { a: null, b: { c: null } })).toEqual({ b: {} })
  })

  it('a JSON success answer with no schema takes any patch', () => {
    expect(patched('getLoose', { a: { b: 1 } })).toEqual([])
  })

  it('the success answer is the first 2xx, whatever its number', () => {
    expect(patched('getVendor', { V: 'x' })).toEqual([])
    expect(patched('getVendor', { W: 1 })).toEqual([
      {
        pointer: '/body/answer/patch/W',
        keyword: 'unknownMember',
        message: 'is not a member getVendor 201 names: a patch that adds it gives an answer the document does not describe (a misspelt member changes nothing)',
      },
    ])
  })
})
