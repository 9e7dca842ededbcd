/**
 * The yes-only body check run before Ajv (src/document/quick-accept.ts): whatever it accepts, Ajv
 * accepts (so no refusal is lost and every refusal still carries Ajv's violations), and it does
 * accept the usual saves, whose check it is there to make cheap.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { listOperations, releaseDocument, requestBodyOf } from '../../src/document/reader.ts'
import { quickAcceptAt } from '../../src/document/quick-accept.ts'
import { DocumentValidators } from '../../src/document/validators.ts'
import { servedViews } from '../../spec/request-validators.ts'
import { LATEST_VERSION } from '../../spec/versions.ts'
import { bodyOf, fromSchema, mutated } from './support/fuzz.ts'

describe('the quick body check', () => {
  for (const view of servedViews()) {
    it(`accepts only bodies Ajv accepts, for every operation of the ${view.name}`, () => {
      const validators = new DocumentValidators(structuredClone(view.document), { precompiled: false })
      let quick = 0
      let valid = 0
      listOperations(view.document).forEach((entry, index) => {
        const pointer = requestBodyOf(view.document, entry)?.schemaPointer
        const body = bodyOf(view.document, entry)
        if (pointer === undefined || body === undefined || !body.mediaType.includes('json')) return
        const accept = quickAcceptAt(view.document, pointer)
        expect(accept).toBeDefined()
        const ajv = validators.schemaAt(pointer)
        const drawn = fc.sample(
          fc.oneof(
            mutated(fc.oneof(fromSchema(body.schema), ...body.examples.map((example) => fc.constant(example)))),
            ...body.examples.map((example) => fc.constant(example)),
          ),
          { seed: 20261126 + index, numRuns: 60 },
        )
        for (const value of drawn) {
          const sure = accept!(value)
          const verdict = ajv(value)
          if (sure) expect(verdict, `${entry.operationId}: ${JSON.stringify(value)?.slice(0, 400)}`).toBe(true)
          if (sure) quick++
          if (verdict) valid++
        }
      })
      // It answers yes often enough to matter, and never where Ajv says no.
      expect(valid).toBeGreaterThan(0)
      expect(quick).toBeGreaterThan(0)
    })
  }

  it('accepts the usual saves: 100 new orders with 2 lines each, and a one-row update', () => {
    const document = releaseDocument(LATEST_VERSION)
    const entry = listOperations(document).find((e) => e.operationId === 'saveItems')!
    const accept = quickAcceptAt(document, requestBodyOf(document, entry)!.schemaPointer)!
    const creates = {
      Rows: Array.from({ length: 100 }, (_, i) => ({
        Row: { Id: -(i + 1), IdRow: null, TIMESTAMP: null, Customer: `Bench ${i}`, Amount: i, Status: 'New', Tags: ['a', 1] },
        Details: [
          {
            RelationKey: 'OrderLines',
            Rows: [1, 2].map((j) => ({ Id: -(j + i * 2), IdRow: null, TIMESTAMP: null, Product: `Line ${j}`, Quantity: j, UnitPrice: 1.5, Paid: true })),
          },
        ],
      })),
    }
    expect(accept(creates)).toBe(true)
    expect(accept({ Rows: [{ Row: { Id: 7, TIMESTAMP: 1234, Amount: 10 }, Details: [] }] })).toBe(true)
    // What it cannot confirm goes to Ajv: a wrong type, a missing member, an unknown one, a float Id.
    expect(accept({ Rows: [{ Row: { Id: 7, TIMESTAMP: '1234' }, Details: [] }] })).toBe(false)
    expect(accept({ Rows: [{ Row: { Id: 7 }, Details: [] }] })).toBe(false)
    expect(accept({ Rows: [{ Row: { Id: 7, TIMESTAMP: 1 }, Details: [], Extra: 1 }] })).toBe(false)
    expect(accept({ Rows: [{ Row: { Id: 7.5, TIMESTAMP: 1 }, Details: [] }] })).toBe(false)
    expect(accept({ Rows: [] })).toBe(false)
    expect(accept({ Rows: [{ Row: { Id: 7, TIMESTAMP: 1, Note: { a: 1 } }, Details: [] }] })).toBe(false)
  })

  it('is compiled into code that names and values of any characters cannot break', () => {
    const odd = ['__proto__', 'a"b', 'back\\slash', 'line\u2028break', '${x}', '*/ return true /*']
    const schema = {
      type: 'object',
      properties: Object.fromEntries(odd.map((name) => [name, { type: 'string', enum: ['"', '\u2028', '*/'], pattern: '^[^/]+$' }])),
      required: ['a"b'],
      additionalProperties: false,
    }
    const document = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {}, components: { schemas: { Odd: schema } } }
    const accept = quickAcceptAt(document as never, '/components/schemas/Odd')!
    expect(accept(JSON.parse('{"a\\"b":"\\"","__proto__":"\\u2028"}'))).toBe(true)
    expect(accept({ 'a"b': '*/' })).toBe(false) // the pattern refuses the slash
    expect(accept({ 'a"b': 'other' })).toBe(false) // not in the enum
    expect(accept({ '*/ return true /*': '"' })).toBe(false) // the required member is absent
    expect(accept({ 'a"b': '"', extra: '"' })).toBe(false) // no other members
  })
})
