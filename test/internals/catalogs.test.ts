import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { buildDocument } from '../../spec/index.ts'
import { PROBLEMS } from '../../src/errors.ts'
import { HANDLERS } from '../../src/operations/index.ts'
import { WARNINGS } from '../../src/policy/warnings.ts'
import { CONTRACTS } from '../../contracts/index.ts'
import { listOperations } from '../../src/document/reader.ts'

/** A page of docs/, from the repository's root. */
const page = (name: string): string => readFileSync(new URL(`../../docs/${name}`, import.meta.url), 'utf8')
const BEHAVIOUR = page('behaviour.md')
const VERIFY = page('verify.md')

/** The text of `text` from the heading `from` to the heading `to` (or the end); throws when a heading is missing. */
function section(text: string, from: string, to?: string): string {
  const start = text.indexOf(`\n${from}\n`)
  const end = to === undefined ? text.length : text.indexOf(`\n${to}\n`, start)
  if (start === -1 || end === -1) throw new Error(`no section ${from}${to === undefined ? '' : ` … ${to}`}`)
  return text.slice(start, end)
}

describe('catalogs kept in step', () => {
  it('documents every problem code of src/errors.ts in the problem catalog of docs/behaviour.md, with its status', () => {
    const catalog = section(BEHAVIOUR, '## Problem catalog')
    const rows = catalog.split('\n').filter((line) => line.startsWith('| '))
    const missing = Object.entries(PROBLEMS).filter(([code, { status }]) => {
      const row = rows.find((line) => line.includes(`\`${code}\``))
      return row === undefined || (code !== 'INJECTED_FAULT' && !row.startsWith(`| ${status} `))
    })
    expect(missing.map(([code]) => code)).toEqual([])
  })

  it("lists every warning code of src/policy/warnings.ts in docs/behaviour.md's warnings table, with its rule, and no other", () => {
    const rows = section(BEHAVIOUR, '## Warnings', '## Other choices')
      .split('\n')
      .filter((line) => /^\| `[A-Z_]+` \|/.test(line))
    const listed = rows.map((line) => /^\| `([A-Z_]+)`/.exec(line)?.[1])
    expect(listed.sort()).toEqual(Object.keys(WARNINGS).sort())
    for (const [code, rule] of Object.entries(WARNINGS)) expect(rows.find((line) => line.startsWith(`| \`${code}\``))).toContain(rule.replaceAll('|', '\\|'))
  })

  it("lists every contract in docs/verify.md's table, with what it holds to and whether it writes", () => {
    const rows = section(VERIFY, '## What is checked', '## In CI, against a staging installation')
      .split('\n')
      .filter((line) => /^\| `[a-z0-9-]+\.[a-z0-9-]+` \|/.test(line))
    expect(rows.map((line) => /^\| `([^`]+)`/.exec(line)?.[1])).toEqual(CONTRACTS.map((c) => c.id))
    for (const contract of CONTRACTS) {
      const row = rows.find((line) => line.startsWith(`| \`${contract.id}\``)) ?? ''
      expect(row, contract.id).toContain(contract.holdsTo === 'mock' ? "mock's choice" : 'description')
      expect(row.trimEnd().endsWith(contract.writes ? '| yes |' : '|  |'), contract.id).toBe(true)
    }
  })

  it('has a handler for every operation of the document and no handler without one', () => {
    const documented = listOperations(buildDocument())
      .map((op) => op.operationId)
      .sort()
    expect(Object.keys(HANDLERS).sort()).toEqual(documented)
  })
})
