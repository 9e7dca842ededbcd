/**
 * The audit in step with the contracts: every statement a contract names is in the audit, every
 * checkable statement has a contract held to the description, every row of contracts/AUDIT.md
 * names contracts that exist, and the file is what `npm run audit` writes.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { checkersOf, renderAudit, STATEMENTS } from '../../contracts/audit.ts'
import { CONTRACTS } from '../../contracts/index.ts'

const AUDIT = readFileSync(new URL('../../contracts/AUDIT.md', import.meta.url), 'utf8')
const ids = new Set(STATEMENTS.map((statement) => statement.id))

describe('the audit of the description, statement by statement', () => {
  it('gives each statement one id', () => {
    expect(ids.size).toBe(STATEMENTS.length)
  })

  it('holds every statement a contract names', () => {
    const unknown = CONTRACTS.flatMap((contract) => (contract.statements ?? []).filter((id) => !ids.has(id)).map((id) => `${contract.id} names ${id}`))
    expect(unknown).toEqual([])
  })

  it('has every contract held to the description name its statements and its data', () => {
    const bare = CONTRACTS.filter(
      (contract) => contract.holdsTo === 'description' && ((contract.statements ?? []).length === 0 || (contract.data ?? '') === ''),
    )
    expect(bare.map((contract) => contract.id)).toEqual([])
  })

  it('checks every checkable statement with a contract, and gives the others a reason, never both', () => {
    const unchecked = STATEMENTS.filter((statement) => statement.unchecked === undefined && checkersOf(statement, CONTRACTS).length === 0)
    expect(unchecked.map((statement) => statement.id)).toEqual([])
    const both = STATEMENTS.filter((statement) => statement.unchecked !== undefined && checkersOf(statement, CONTRACTS).length > 0)
    expect(both.map((statement) => statement.id)).toEqual([])
    for (const statement of STATEMENTS) if (statement.unchecked !== undefined) expect(statement.unchecked.why, statement.id).not.toBe('')
  })

  it('contracts/AUDIT.md is what npm run audit writes', () => {
    expect(AUDIT).toBe(renderAudit(CONTRACTS))
  })

  it('has one row per statement in AUDIT.md, each naming only contracts that exist', () => {
    const contractIds = new Set(CONTRACTS.map((contract) => contract.id))
    const rows = AUDIT.split('\n').filter((line) => /^\| `/.test(line))
    expect(rows.map((row) => /^\| `([^`]+)`/.exec(row)?.[1])).toEqual(STATEMENTS.map((statement) => statement.id))
    for (const row of rows) {
      const checkedBy = row.split(' | ')[3] ?? ''
      const named = [...checkedBy.matchAll(/(?:^|<br>)`([^`]+)`/g)].map((match) => match[1] as string)
      if (!checkedBy.startsWith('not checkable')) expect(named.length, row).toBeGreaterThan(0)
      for (const id of named) expect(contractIds.has(id), `${id} in ${row.slice(0, 60)}`).toBe(true)
    }
  })
})
