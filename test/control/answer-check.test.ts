/** The merge patch of answer rules against RFC 7386's own examples, and the off-document checks without HTTP. */
import { describe, expect, it } from 'vitest'
import { checkPatch, checkWholeAnswer, mergePatch } from '../../src/rules/answer-check.ts'
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
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
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
  it('sends a problem of an error status as application/problem+json, the document\'s type for it', () => {
    const checked = checkWholeAnswer(document, entry('saveItems'), { status: 401, body: { type: 'urn:x', title: 'No', status: 401, detail: 'Sign in.' } }, '/body/answer')
    expect(checked.violations).toEqual([])
    expect(checked.prepared.headers['content-type']).toBe('application/problem+json; charset=utf-8')
  })
  it('refuses a patch of an answer that is not JSON', () => {
    expect(checkPatch(document, entry('downloadAttachment')!, { a: 1 }, '/body/answer').map((v) => v.pointer)).toEqual(['/body/answer/patch'])
  })
})
