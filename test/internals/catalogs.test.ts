import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { buildDocument } from '../../spec/index.ts'
import { PROBLEMS } from '../../src/errors.ts'
import { HANDLERS } from '../../src/operations/index.ts'
import { WARNINGS } from '../../src/warnings.ts'
import { CONTRACTS } from '../../contracts/index.ts'
import { listOperations } from '../../src/document/reader.ts'

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')

describe('catalogs kept in step', () => {
  it('documents every problem code of src/errors.ts in the README, with its status', () => {
    const catalog = README.slice(README.indexOf('### Problem catalog'))
    const rows = catalog.split('\n').filter((line) => line.startsWith('| '))
    const missing = Object.entries(PROBLEMS).filter(([code, { status }]) => {
      const row = rows.find((line) => line.includes(`\`${code}\``))
      return row === undefined || (code !== 'INJECTED_FAULT' && !row.startsWith(`| ${status} `))
    })
    expect(missing.map(([code]) => code)).toEqual([])
  })

  it('lists every warning code of src/warnings.ts in the README\'s warnings table, with its rule, and no other', () => {
    const section = README.slice(README.indexOf('### Warnings'), README.indexOf('### Other choices'))
    const rows = section.split('\n').filter((line) => /^\| `[A-Z_]+` \|/.test(line))
    const listed = rows.map((line) => /^\| `([A-Z_]+)`/.exec(line)?.[1])
    expect(listed.sort()).toEqual(Object.keys(WARNINGS).sort())
    for (const [code, rule] of Object.entries(WARNINGS)) expect(rows.find((line) => line.startsWith(`| \`${code}\``))).toContain(rule.replaceAll('|', '\\|'))
  })

  it('lists every contract in the README\'s verify table, with what it holds to and whether it writes', () => {
    const section = README.slice(README.indexOf('### What is checked'), README.indexOf('### In CI, against a staging installation'))
    const rows = section.split("\n").filter((line) => /^\| `[a-z0-9-]+\.[a-z0-9-]+` \|/.test(line))
    expect(rows.map((line) => /^\| `([^`]+)`/.exec(line)?.[1])).toEqual(CONTRACTS.map((c) => c.id))
    for (const contract of CONTRACTS) {
      const row = rows.find((line) => line.startsWith(`| \`${contract.id}\``)) ?? ''
      expect(row, contract.id).toContain(contract.holdsTo === 'mock' ? "mock's choice" : 'description')
      expect(row.trimEnd().endsWith(contract.writes ? '| yes |' : '|  |'), contract.id).toBe(true)
    }
  })

  it('has a handler for every operation of the document and no handler without one', () => {
    const documented = listOperations(buildDocument()).map((op) => op.operationId).sort()
    expect(Object.keys(HANDLERS).sort()).toEqual(documented)
  })
})
