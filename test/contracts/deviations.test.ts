/**
 * Verify's power, measured: the mock started with each `--deviate` fault, and `appdata-kit verify`
 * (its in-process entry) run against it with writes allowed. Every deviation must make verify
 * fail (exit 1) and name the contract made to catch it. Prints "caught N of M".
 */
import { afterAll, describe, expect, it } from 'vitest'
import { CONTRACTS } from '../../contracts/index.ts'
import { DEVIATIONS } from '../../src/deviate/deviations.ts'
import { startTestMock } from '../helpers/http.ts'
import { verify, verifyFlags } from './support.ts'

const caught: string[] = []

describe('every --deviate fault is caught by the contract made for it', () => {
  afterAll(() => {
    console.log(`verify caught ${caught.length} of ${Object.keys(DEVIATIONS).length} deviations`)
  })

  it('every deviation has a contract that names it, and every named deviation exists', () => {
    const named = new Set(CONTRACTS.flatMap((c) => (c.deviation === undefined ? [] : [c.deviation])))
    expect([...named].sort()).toEqual(Object.keys(DEVIATIONS).sort())
  })

  for (const name of Object.keys(DEVIATIONS)) {
    const catchers = CONTRACTS.filter((c) => c.deviation === name).map((c) => c.id)
    it(`--deviate ${name} (${DEVIATIONS[name]?.breaks}) fails verify, naming ${catchers.join(', ')}`, async () => {
      const mock = await startTestMock({ deviate: [name] })
      try {
        const result = await verify(verifyFlags(mock.url))
        expect(result.code, result.out + result.err).toBe(1)
        for (const id of catchers) expect(result.out).toContain(`FAIL ${id} `)
        caught.push(name)
      } finally {
        await mock.close()
      }
    })
  }
})
