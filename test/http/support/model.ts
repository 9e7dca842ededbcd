import { expect } from 'vitest'
import { IDS, rowVersion, type TestClient } from '../../helpers/http.ts'

/**
 * The reference model of the stateful property test (../stateful.test.ts): the default
 * application's master rows and its `OrderLines` detail rows, as plain maps keyed by Id, with
 * the row version (TIMESTAMP as a number) of each. It knows nothing of the mock's internals:
 * it is filled from an ordinary read at the start of a run and then changed only by what the
 * commands expect a client-visible write to do.
 */

export interface MasterState {
  IdRow: number
  Customer: string | null
  Amount: number | null
  Status: string | null
  version: number
}

export interface DetailState {
  IdRow: number
  MasterId: number
  Product: string | null
  Quantity: number | null
  UnitPrice: number | null
  version: number
}

export interface Model {
  masters: Map<number, MasterState>
  details: Map<number, DetailState>
  /** The greatest row version seen so far: every later write must hand out a greater one (one growing counter). */
  maxVersion: number
}

/** The system under test: a started mock and an admin token that survives its resets. */
export interface Real {
  client: TestClient
  token: string
}

export type MasterFields = Pick<MasterState, 'Customer' | 'Amount' | 'Status'>
export type DetailFields = Pick<DetailState, 'Product' | 'Quantity' | 'UnitPrice'>

export const ORDERS = ['Id asc', 'Id desc', 'Customer asc'] as const
export type Order = (typeof ORDERS)[number]

/** A row as the mock answers it (only the members the model follows are typed). */
export type WireRow = Record<string, unknown> & { Id: number; TIMESTAMP: string }

export function masterOf(row: WireRow): MasterState {
  return {
    IdRow: row.IdRow as number,
    Customer: row.Customer as string | null,
    Amount: row.Amount as number | null,
    Status: row.Status as string | null,
    version: rowVersion(row.TIMESTAMP),
  }
}

export function detailOf(row: WireRow): DetailState {
  return {
    IdRow: row.IdRow as number,
    MasterId: row.MasterId as number,
    Product: row.Product as string | null,
    Quantity: row.Quantity as number | null,
    UnitPrice: row.UnitPrice as number | null,
    version: rowVersion(row.TIMESTAMP),
  }
}

/** Get Items with a query text; expects 200 and an array of rows. */
export async function readRows(real: Real, query: string): Promise<WireRow[]> {
  const reply = await real.client.items<WireRow[]>(real.token, query)
  expect(reply.status, `Get Items ${query}`).toBe(200)
  expect(Array.isArray(reply.body), `Get Items ${query} answers an array`).toBe(true)
  return reply.body
}

/** Get Items Count with a query text; expects 200 and the count. */
export async function readCount(real: Real, query: string): Promise<number> {
  const reply = await real.client.items(real.token, query)
  expect(reply.status, `Get Items Count ${query}`).toBe(200)
  return reply.body.Items[0]._FieldCount_ as number
}

/** Everything the model follows, read the way a client reads it. */
export async function readState(real: Real): Promise<{ masters: Map<number, MasterState>; details: Map<number, DetailState> }> {
  const masters = new Map<number, MasterState>()
  for (const row of await readRows(real, '$orderby=Id asc')) {
    expect(masters.has(row.Id), `master ${row.Id} answered twice`).toBe(false)
    masters.set(row.Id, masterOf(row))
  }
  const details = new Map<number, DetailState>()
  for (const row of await readRows(real, `$orderby=Id asc&relationKey=${IDS.relationKey}`)) {
    expect(details.has(row.Id), `detail ${row.Id} answered twice`).toBe(false)
    details.set(row.Id, detailOf(row))
  }
  return { masters, details }
}

export async function initialModel(real: Real): Promise<Model> {
  const { masters, details } = await readState(real)
  const versions = [...masters.values(), ...details.values()].map((r) => r.version)
  return { masters, details, maxVersion: Math.max(0, ...versions) }
}

/** A map as an array ordered by Id, for readable diffs. */
export function byId<T>(rows: ReadonlyMap<number, T>): Array<T & { Id: number }> {
  return [...rows].sort(([a], [b]) => a - b).map(([Id, row]) => ({ Id, ...row }))
}

/** Compares the whole state of the mock, field by field, with the model. */
export async function expectSameState(model: Model, real: Real, after: string): Promise<void> {
  const actual = await readState(real)
  expect(byId(actual.masters), `master rows after ${after}`).toEqual(byId(model.masters))
  expect(byId(actual.details), `OrderLines rows after ${after}`).toEqual(byId(model.details))
}

/** The existing master Ids, ascending; commands pick among them by index so shrinking keeps them valid. */
export function masterIds(model: Readonly<Model>): number[] {
  return [...model.masters.keys()].sort((a, b) => a - b)
}

export function pickMaster(model: Readonly<Model>, pick: number): number {
  const ids = masterIds(model)
  return ids[pick % ids.length] as number
}

export function detailIdsOf(model: Readonly<Model>, masterId: number): number[] {
  return [...model.details]
    .filter(([, d]) => d.MasterId === masterId)
    .map(([id]) => id)
    .sort((a, b) => a - b)
}

/** Text compared by UTF-16 code units, nulls first, as the mock documents for `$orderby`. */
function compareText(a: string | null, b: string | null): number {
  if (a === b) return 0
  if (a === null) return -1
  if (b === null) return 1
  return a < b ? -1 : 1
}

/** The master Ids a page read should answer, in order; ties keep ascending Id. */
export function expectedPage(model: Readonly<Model>, order: Order, skip: number, top: number | null): number[] {
  const ids = masterIds(model)
  if (order === 'Id desc') ids.reverse()
  if (order === 'Customer asc') {
    ids.sort((a, b) => compareText(model.masters.get(a)!.Customer, model.masters.get(b)!.Customer) || a - b)
  }
  return ids.slice(skip, top === null ? undefined : skip + top)
}

/** Records the versions a successful write handed out: each above every version seen before, all distinct. */
export function acceptNewVersions(model: Model, versions: readonly number[], what: string): void {
  for (const v of versions) {
    expect(v, `${what}: new row version above the greatest seen before (${model.maxVersion})`).toBeGreaterThan(model.maxVersion)
  }
  expect(new Set(versions).size, `${what}: distinct new row versions`).toBe(versions.length)
  model.maxVersion = Math.max(model.maxVersion, ...versions)
}
