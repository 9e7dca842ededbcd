/** The fault table's matching, counting and draws, without HTTP. */
import { describe, expect, it } from 'vitest'
import { faultOf } from '../helpers/decisions.ts'
import { createRuleTable } from '../../src/rules/table.ts'
import { releaseDocument } from '../../src/document/reader.ts'
import { LATEST_VERSION } from '../../spec/versions.ts'
import { ProblemError } from '../../src/errors.ts'

const DOCUMENT = releaseDocument(LATEST_VERSION)
/** The fault rules of a table for the newest release. */
const createFaultTable = (randomSeed: () => number) => createRuleTable({ document: DOCUMENT, randomSeed }).faults

describe('createFaultTable', () => {
  it('decides nothing without rules and draws no seed until rules are set', () => {
    let draws = 0
    const table = createFaultTable(() => ++draws)
    expect(faultOf(table.decide('saveItems'))).toBeNull()
    expect(draws).toBe(0)
    table.set({ rules: [{ operationId: 'saveItems', latencyMs: 5 }] })
    expect(draws).toBe(1)
  })

  it('applies the first matching rule only, in order', () => {
    const table = createFaultTable(() => 1)
    table.set({
      rules: [
        { operationId: 'saveItems', status: 409 },
        { operationId: '*', latencyMs: 20, drop: true },
      ],
    })
    expect(faultOf(table.decide('saveItems'))).toEqual({
      ruleId: 1,
      latencyMs: 0,
      action: { kind: 'status', status: 409, headers: {}, standing: 'documented' },
    })
    expect(faultOf(table.decide('queryItems'))).toEqual({ ruleId: 2, latencyMs: 20, action: { kind: 'drop' } })
    expect(table.list().rules.map((r) => r.applied)).toEqual([1, 1])
  })

  it('expires a rule after `times` and lets the next one match', () => {
    const table = createFaultTable(() => 1)
    table.set({
      rules: [
        { operationId: 'saveItems', commitThenDrop: true, times: 1 },
        { operationId: 'saveItems', latencyMs: 7 },
      ],
    })
    expect(faultOf(table.decide('saveItems'))?.action).toEqual({ kind: 'commitThenDrop' })
    expect(faultOf(table.decide('saveItems'))).toEqual({ ruleId: 2, latencyMs: 7, action: null })
    expect(table.list().rules.map((r) => r.id)).toEqual([2])
  })

  it('draws the same sequence for the same seed, and rate 0 never applies', () => {
    const pattern = (seed: number) => {
      const table = createFaultTable(() => 0)
      table.set({
        seed,
        rules: [
          { operationId: 'saveItems', status: 500, rate: 0.3 },
          { operationId: 'queryItems', status: 500, rate: 0 },
        ],
      })
      return Array.from({ length: 40 }, () => faultOf(table.decide('saveItems')) !== null)
    }
    const first = pattern(11)
    expect(pattern(11)).toEqual(first)
    expect(first.filter(Boolean).length).toBeGreaterThan(0)
    expect(first.filter(Boolean).length).toBeLessThan(40)
    const table = createFaultTable(() => 0)
    table.set({ rules: [{ operationId: 'queryItems', status: 500, rate: 0 }] })
    expect(Array.from({ length: 20 }, () => faultOf(table.decide('queryItems')))).toEqual(Array(20).fill(null))
  })

  it('refuses rules with no effect, two effects or an unknown operation, keeping the old rules', () => {
    const table = createFaultTable(() => 1)
    table.set({ rules: [{ operationId: 'queryItems', latencyMs: 1 }] })
    for (const rule of [{ operationId: 'saveItems' }, { operationId: 'saveItems', drop: true, commitThenDrop: true }, { operationId: 'save', status: 500 }]) {
      expect(() => table.set({ rules: [rule] }), JSON.stringify(rule)).toThrow(ProblemError)
    }
    expect(table.list().rules.map((r) => r.operationId)).toEqual(['queryItems'])
  })

  it('hands out copies, so a caller cannot change the rules it was given', () => {
    const table = createFaultTable(() => 1)
    const input = { operationId: 'saveItems', status: 500 }
    table.set({ rules: [input] })
    input.status = 400
    const listed = table.list()
    listed.rules[0]!.status = 401
    expect(faultOf(table.decide('saveItems'))?.action).toEqual({ kind: 'status', status: 500, headers: {}, standing: 'gateway' })
  })

  it('decides where a status stands, once, when the rules are set: gateway, documented, off the document', () => {
    const table = createFaultTable(() => 1)
    table.set({
      rules: [
        { operationId: 'saveItems', status: 502, headers: { 'Retry-After': '3' } },
        { operationId: 'queryItems', status: 401 },
        { operationId: 'runAction', status: 429, offDocument: true },
      ],
    })
    expect(faultOf(table.decide('saveItems'))?.action).toEqual({ kind: 'status', status: 502, headers: { 'retry-after': '3' }, standing: 'gateway' })
    expect(faultOf(table.decide('queryItems'))?.action).toMatchObject({ standing: 'documented' })
    expect(faultOf(table.decide('runAction'))?.action).toMatchObject({ standing: 'offDocument' })
    // Strict: the same off-document rule is refused when set, with STRICT_MODE naming its offDocument.
    const strict = createRuleTable({ document: DOCUMENT, randomSeed: () => 1, strict: true }).faults
    let thrown: unknown
    try {
      strict.set({ rules: [{ operationId: 'runAction', status: 429, offDocument: true }] })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toMatchObject({ code: 'STRICT_MODE', violations: [{ pointer: '/body/rules/0/offDocument' }, { pointer: '/body/rules/0/status' }] })
    expect(strict.list().rules).toEqual([])
  })
})
