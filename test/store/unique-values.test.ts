/**
 * The `unique` field rule in the store's save plan (src/store/save.ts, field-rules.ts): a row
 * that keeps its own value is no duplicate of itself, the empty text is no value, and a detail
 * table's unique field is checked as a master's is.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseFixture } from '../../src/fixtures/load.ts'
import type { ReturnState, SaveCommand, SaveResult, WireRow, WriteOutcome } from '../../src/store/model/types.ts'
import { APP, LINES, newStore, row } from './support.ts'

const FIXTURE_PATH = new URL('../../fixtures/default.json', import.meta.url).pathname

/** The default fixture with a unique Reference on Orders and a unique Serial on its lines (no row holds either yet). */
function withUniqueFields() {
  const json = JSON.parse(readFileSync(FIXTURE_PATH, 'utf8')) as Record<string, any>
  const orders = json.applications[0]
  orders.master.fields.push({ name: 'Reference', type: 'String', rules: { unique: true } })
  orders.details[0].storage.fields.push({ name: 'Serial', type: 'String', rules: { unique: true } })
  return parseFixture(json, FIXTURE_PATH)
}

type Store = ReturnType<typeof newStore>

function save(store: Store, masters: SaveCommand['masters']): WriteOutcome<SaveResult> {
  return store.save({ applicationId: APP, userId: 1, masters })
}

function saved(outcome: WriteOutcome<SaveResult>): SaveResult {
  if (!outcome.ok) throw new Error(`save failed: ${JSON.stringify(outcome.returnStates)}`)
  return outcome.result
}

/** Each refusal as [code, relation key, row, field]. */
function refusals(outcome: WriteOutcome<SaveResult>): Array<[ReturnState['code'], string | null, number, string | undefined]> {
  if (outcome.ok) throw new Error('save unexpectedly succeeded')
  return outcome.returnStates.map((state) => [state.code, state.relationKey, state.id, state.field])
}

/** A row's fields besides its Id. */
type Fields = Omit<WireRow, 'Id'>

const newOrder = (tempId: number, fields: Fields = {}): SaveCommand['masters'][number] => ({
  row: { IdRow: null, TIMESTAMP: null, Customer: 'Unique Ltd', Amount: 1, Status: 'Open', ...fields, Id: tempId },
  details: [],
})
const newLine = (tempId: number, serial: string): WireRow => ({
  Id: tempId,
  IdRow: null,
  TIMESTAMP: null,
  Product: 'Widget',
  Quantity: 1,
  UnitPrice: 1,
  Serial: serial,
})
const update = (store: Store, id: number, fields: Fields, relationKey: string | null = null): WireRow => ({
  TIMESTAMP: row(store, id, relationKey).TIMESTAMP,
  ...fields,
  Id: id,
})

describe('unique fields', () => {
  it('let a row that holds a unique value be updated, whether the save leaves the value out or sends it again', () => {
    const store = newStore(withUniqueFields())
    const id = saved(save(store, [newOrder(-1, { Reference: 'R-1' })])).firstMasterId as number
    saved(save(store, [{ row: update(store, id, { Status: 'Closed' }), details: [] }]))
    saved(save(store, [{ row: update(store, id, { Reference: 'R-1', Amount: 2 }), details: [] }]))
    expect(row(store, id)).toMatchObject({ Reference: 'R-1', Status: 'Closed', Amount: 2 })
    // Another row is still refused the value.
    expect(refusals(save(store, [newOrder(-1, { Reference: 'R-1' })]))).toEqual([['NOT_UNIQUE', null, -1, 'Reference']])
  })

  it('count the empty text as no value: any number of rows may hold it', () => {
    const store = newStore(withUniqueFields())
    saved(save(store, [newOrder(-1, { Reference: '' }), newOrder(-2, { Reference: '' })]))
    const third = saved(save(store, [newOrder(-1, { Reference: '' })])).firstMasterId as number
    expect(row(store, third).Reference).toBe('')
  })

  it("hold on a detail table too: two new lines with one value, and a line with a stored line's value", () => {
    const store = newStore(withUniqueFields())
    const twice = save(store, [{ row: update(store, 1, {}), details: [{ relationKey: LINES, rows: [newLine(-1, 'S-1'), newLine(-2, 'S-1')] }] }])
    expect(refusals(twice)).toEqual([
      ['NOT_UNIQUE', LINES, -1, 'Serial'],
      ['NOT_UNIQUE', LINES, -2, 'Serial'],
    ])
    saved(save(store, [{ row: update(store, 1, {}), details: [{ relationKey: LINES, rows: [newLine(-1, 'S-1')] }] }]))
    const again = save(store, [{ row: update(store, 2, {}), details: [{ relationKey: LINES, rows: [newLine(-1, 'S-1')] }] }])
    expect(refusals(again)).toEqual([['NOT_UNIQUE', LINES, -1, 'Serial']])
  })
})
