/**
 * Which big arrays a body is checked a slice at a time by (src/http/check-in-slices.ts): found near
 * the body's top, and only where the schema judges each element on its own.
 */
import { describe, expect, it } from 'vitest'
import type { OpenAPIObject } from 'openapi3-ts/oas31'
import { bigArrays, sliceable } from '../../src/http/check-in-slices.ts'
import { slicing } from '../../src/http/json-slices.ts'
import { buildDocument } from '../../spec/index.ts'
import { listOperations, requestBodyOf } from '../../src/document/reader.ts'
import { bodyAlternatives } from '../../src/document/hints.ts'

const rows = (n: number) => Array.from({ length: n }, (_, i) => ({ Row: { Id: i + 1 } }))

describe('bigArrays', () => {
  it('finds the arrays of checkRows elements or more in the first two levels, none inside another', () => {
    const n = slicing.checkRows
    expect(bigArrays({ Rows: rows(n) })).toEqual([['Rows']])
    expect(bigArrays({ Rows: rows(n - 1) })).toEqual([])
    expect(bigArrays([{ RelationKey: null, Rows: rows(n) }, { Rows: rows(2) }, { RelationKey: 'x', Rows: rows(n + 5) }])).toEqual([
      [0, 'Rows'],
      [2, 'Rows'],
    ])
    expect(bigArrays(rows(n))).toEqual([[]])
    expect(bigArrays({ values: Array.from({ length: n }, (_, i) => i) })).toEqual([['values']])
    // Deeper than two levels: checked whole.
    expect(bigArrays({ Rows: [{ Details: [{ Rows: rows(n) }] }] })).toEqual([])
    expect(bigArrays('text')).toEqual([])
    expect(bigArrays(null)).toEqual([])
  })
})

describe('sliceable', () => {
  const document = buildDocument()
  const bodyOf = (operationId: string) => requestBodyOf(document, listOperations(document).find((entry) => entry.operationId === operationId)!)!.schemaPointer

  it("takes a save's rows, each delete body's group rows, and a row link's Ids", () => {
    expect(sliceable(document, bodyOf('saveItems'), ['Rows'])).toBe(true)
    for (const alternative of bodyAlternatives(document, bodyOf('deleteItems'))) expect(sliceable(document, alternative, [0, 'Rows'])).toBe(true)
    // The row link's values are one Id or a list of them (oneOf): not one schema per element.
    expect(sliceable(document, bodyOf('generateRowLink'), ['values'])).toBe(false)
    // No such member, or a member that is no array.
    expect(sliceable(document, bodyOf('saveItems'), ['Details'])).toBe(false)
    expect(sliceable(document, bodyOf('queryItems'), ['query'])).toBe(false)
  })

  it('refuses an array whose schema judges its elements together, or a way through anything but members and items', () => {
    const doc = (schema: object) =>
      ({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {}, components: { schemas: { Body: schema } } }) as unknown as OpenAPIObject
    const body = (rowsSchema: object, outer: object = {}) => doc({ type: 'object', properties: { Rows: rowsSchema }, ...outer })
    const plain = { type: 'array', items: { type: 'object' } }
    expect(sliceable(body(plain), '/components/schemas/Body', ['Rows'])).toBe(true)
    expect(sliceable(body({ ...plain, minItems: 1, description: 'x', 'x-note': 1 }), '/components/schemas/Body', ['Rows'])).toBe(true)
    for (const keyword of [{ maxItems: 10 }, { uniqueItems: true }, { contains: {} }, { minItems: 2 }, { prefixItems: [] }]) {
      expect(sliceable(body({ ...plain, ...keyword }), '/components/schemas/Body', ['Rows']), JSON.stringify(keyword)).toBe(false)
    }
    expect(sliceable(body(plain, { oneOf: [{}] }), '/components/schemas/Body', ['Rows'])).toBe(false)
    expect(sliceable(doc({ type: 'array', items: { type: 'object', properties: { Rows: plain } } }), '/components/schemas/Body', [0, 'Rows'])).toBe(true)
    expect(
      sliceable(doc({ type: 'array', uniqueItems: true, items: { type: 'object', properties: { Rows: plain } } }), '/components/schemas/Body', [0, 'Rows']),
    ).toBe(false)
    // A map's members by its additionalProperties.
    expect(sliceable(doc({ type: 'object', additionalProperties: plain }), '/components/schemas/Body', ['any'])).toBe(true)
  })
})
