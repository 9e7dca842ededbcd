import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { IDS, mockPerSuite } from '../helpers/http.ts'
import { FUZZ_SCALE, runs } from '../helpers/property-runs.ts'
import {
  acceptNewVersions,
  detailIdsOf,
  detailOf,
  expectSameState,
  expectedPage,
  initialModel,
  masterOf,
  ORDERS,
  pickMaster,
  readCount,
  readRows,
  type DetailFields,
  type MasterFields,
  type MasterState,
  type Model,
  type Order,
  type Real,
} from './support/model.ts'

/**
 * Model-based property test: random sequences of client operations (create, update, stale
 * update, half-invalid save, delete, stale delete, new detail row, page reads, counts), sent
 * over HTTP to one mock that is reset before each sequence, and checked after every command
 * against a small reference model of the master and `OrderLines` rows (./support/model.ts).
 * Every reply is also checked against the OpenAPI document by the TestClient.
 *
 * A failure prints fast-check's seed and path; `FC_SEED=<seed> npm test` replays it.
 */

const SAVE = '/ExplorerApi/api/items/save'
const DELETE = '/ExplorerApi/api/items/delete'
const RK = IDS.relationKey
const UNKNOWN_ID = 999_999

// ---- values ----------------------------------------------------------------------------------

/** Spaces, both quotes, an ampersand, a percent sign, accented letters, CJK and an astral character. */
const TRICKY = ['', ' ', "O'Brien & Söhne", 'Zoë "Z" Ltd', '  leading', 'trailing  ', 'Ærø Øl', 'ßtraße', '東京商事', '100% 😀', "''", 'a=b&c']
const CHARS = ['a', 'B', 'z', ' ', "'", '"', '&', '%', 'é', 'É', 'ß', 'Ø', '日', '€', '😀']
const text = fc.oneof(fc.constantFrom(...TRICKY), fc.string({ unit: fc.constantFrom(...CHARS), maxLength: 10 }))
const money = fc.integer({ min: 0, max: 10_000_000 }).map((cents) => cents / 100)
const status = fc.constantFrom('Open', 'Shipped', 'Closed', 'Invoiced')

const masterFields: fc.Arbitrary<MasterFields> = fc.record({ Customer: text, Amount: money, Status: status })
/** Some of a master's fields (at least one), as an update sends only the fields to change. */
const someMasterFields: fc.Arbitrary<Partial<MasterFields>> = fc
  .record({ Customer: text, Amount: money, Status: status }, { requiredKeys: [] })
  .filter((changes) => Object.keys(changes).length > 0)
const detailFields: fc.Arbitrary<DetailFields> = fc.record({ Product: text, Quantity: fc.integer({ min: 1, max: 500 }), UnitPrice: money })
const pick = fc.nat({ max: 1_000 })
/** How a TIMESTAMP is stale: an older version of the row, or one the installation has not handed out yet. */
const staleness = fc.record({ kind: fc.constantFrom('older' as const, 'newer' as const), by: fc.nat({ max: 5 }) })
type Staleness = { kind: 'older' | 'newer'; by: number }

function staleVersion(model: Readonly<Model>, current: number, { kind, by }: Staleness): number {
  return kind === 'older' ? Math.max(0, current - 1 - by) : model.maxVersion + 1 + by
}

// ---- replies ---------------------------------------------------------------------------------

interface ReturnState {
  Code: string
  RelationKey: string | null
  Id: number
}

interface SaveReply {
  IsSaveSuccessfully: boolean
  ReturnStates: ReturnState[]
  CreatedItems: number
  UpdatedItems: number
  DeletedItems: number
  ReturnData?: { PrimaryKeyData: Record<string, { newKeys: Record<string, string> }> }
}

async function send(real: Real, path: string, body: unknown): Promise<SaveReply> {
  const reply = await real.client.post<SaveReply>(path, real.token, body)
  expect(reply.status, `${path} answers 200 (business failures too)`).toBe(200)
  return reply.body
}

function expectFailure(reply: SaveReply, code: string, id: number, what: string): void {
  expect(reply.IsSaveSuccessfully, `${what}: IsSaveSuccessfully`).toBe(false)
  expect(reply.ReturnStates, `${what}: ReturnStates`).toEqual([expect.objectContaining({ Code: code, Id: id, RelationKey: null })])
  expect([reply.CreatedItems, reply.UpdatedItems, reply.DeletedItems], `${what}: counters`).toEqual([0, 0, 0])
}

async function readMaster(real: Real, id: number): Promise<MasterState> {
  const rows = await readRows(real, `$filter=Id eq ${id}`)
  expect(
    rows.map((r) => r.Id),
    `master ${id} read back`,
  ).toEqual([id])
  return masterOf(rows[0]!)
}

// ---- commands --------------------------------------------------------------------------------

type Cmd = fc.AsyncCommand<Model, Real>

/** Runs the command, then compares the whole state of the mock with the model. */
abstract class Checked implements Cmd {
  check(_model: Readonly<Model>): boolean {
    return true
  }
  async run(model: Model, real: Real): Promise<void> {
    await this.act(model, real)
    await expectSameState(model, real, this.toString())
  }
  protected abstract act(model: Model, real: Real): Promise<void>
  abstract toString(): string
}

/** Commands that address an existing master, chosen by index among the model's Ids. */
abstract class OnMaster extends Checked {
  constructor(readonly pick: number) {
    super()
  }
  override check(model: Readonly<Model>): boolean {
    return model.masters.size > 0
  }
}

interface NewMaster extends MasterFields {
  lines: DetailFields[]
}

class CreateMasters extends Checked {
  /** `allMinusOne`: every new detail row sent with Id -1, as the description shows them; else -1, -2, ... */
  constructor(
    readonly masters: NewMaster[],
    readonly allMinusOne: boolean,
  ) {
    super()
  }
  toString(): string {
    return `CreateMasters(${JSON.stringify(this.masters)}, ${this.allMinusOne ? 'all -1' : '-1, -2, ...'})`
  }
  /** The temporary Id the d-th new detail row is sent with. */
  tempId(d: number): number {
    return this.allMinusOne ? -1 : -(d + 1)
  }
  protected async act(model: Model, real: Real): Promise<void> {
    const what = this.toString()
    const body = {
      Rows: this.masters.map(({ lines, ...fields }, m) => ({
        Row: { Id: -(m + 1), IdRow: null, TIMESTAMP: null, ...fields },
        Details: lines.length === 0 ? [] : [{ RelationKey: RK, Rows: lines.map((line, d) => ({ Id: this.tempId(d), IdRow: null, TIMESTAMP: null, ...line })) }],
      })),
    }
    const reply = await send(real, SAVE, body)
    const lineCount = this.masters.reduce((n, m) => n + m.lines.length, 0)
    expect(reply, what).toMatchObject({ IsSaveSuccessfully: true, ReturnStates: [], CreatedItems: this.masters.length + lineCount, UpdatedItems: 0 })
    const keys = reply.ReturnData!.PrimaryKeyData
    expect(Object.keys(keys).sort(), `${what}: PrimaryKeyData keyed by the temporary Ids`).toEqual(this.masters.map((_, m) => String(-(m + 1))).sort())

    const versions: number[] = []
    const newMasterIds = new Set<number>()
    for (const [m, { lines, ...fields }] of this.masters.entries()) {
      const newKeys = keys[String(-(m + 1))]!.newKeys
      // Each new line by its position; by its temporary Id too when no other line of the master shares it.
      const byTempId = lines.length === 1 || !this.allMinusOne ? lines.map((_, d) => `${RK}:${this.tempId(d)}`) : []
      expect(Object.keys(newKeys).sort(), `${what}: newKeys of master ${-(m + 1)}`).toEqual(
        ['Id', 'IdRow', ...lines.map((_, d) => `${RK}[${d}]`), ...byTempId].sort(),
      )
      for (const [d] of lines.entries()) {
        if (byTempId.length > 0) expect(newKeys[`${RK}:${this.tempId(d)}`], `${what}: both keys of line ${d}`).toBe(newKeys[`${RK}[${d}]`])
      }
      const id = Number(newKeys.Id)
      expect(model.masters.has(id) || newMasterIds.has(id), `${what}: new master Id ${id} is not taken`).toBe(false)
      newMasterIds.add(id)
      const row = await readMaster(real, id)
      expect(row, `${what}: master ${id} read back`).toEqual({ ...fields, IdRow: Number(newKeys.IdRow), version: row.version })
      model.masters.set(id, row)
      versions.push(row.version)

      const read = await readRows(real, `$filter=MasterId eq ${id}&relationKey=${RK}&$orderby=Id asc`)
      const expectedIds = lines.map((_, d) => Number(newKeys[`${RK}[${d}]`])).sort((a, b) => a - b)
      expect(
        read.map((r) => r.Id),
        `${what}: detail rows of master ${id}`,
      ).toEqual(expectedIds)
      for (const [d, line] of lines.entries()) {
        const detailId = Number(newKeys[`${RK}[${d}]`])
        expect(model.details.has(detailId), `${what}: new detail Id ${detailId} is not taken`).toBe(false)
        const detail = detailOf(read.find((r) => r.Id === detailId)!)
        expect(detail, `${what}: detail ${detailId} read back`).toEqual({ ...line, MasterId: id, IdRow: detail.IdRow, version: detail.version })
        model.details.set(detailId, detail)
        versions.push(detail.version)
      }
    }
    acceptNewVersions(model, versions, what)
  }
}

class UpdateMaster extends OnMaster {
  constructor(
    pick: number,
    readonly changes: Partial<MasterFields>,
  ) {
    super(pick)
  }
  toString(): string {
    return `UpdateMaster(#${this.pick}, ${JSON.stringify(this.changes)})`
  }
  protected async act(model: Model, real: Real): Promise<void> {
    const id = pickMaster(model, this.pick)
    const what = `${this.toString()} on master ${id}`
    const before = model.masters.get(id)!
    const reply = await send(real, SAVE, { Rows: [{ Row: { Id: id, TIMESTAMP: before.version, ...this.changes }, Details: [] }] })
    expect(reply, what).toMatchObject({ IsSaveSuccessfully: true, ReturnStates: [], CreatedItems: 0, UpdatedItems: 1 })
    const after = await readMaster(real, id)
    expect(after, `${what}: read back`).toEqual({ ...before, ...this.changes, version: after.version })
    expect(after.version, `${what}: the version grows`).toBeGreaterThan(before.version)
    acceptNewVersions(model, [after.version], what)
    model.masters.set(id, after)
  }
}

class StaleUpdate extends OnMaster {
  constructor(
    pick: number,
    readonly changes: Partial<MasterFields>,
    readonly stale: Staleness,
  ) {
    super(pick)
  }
  toString(): string {
    return `StaleUpdate(#${this.pick}, ${JSON.stringify(this.changes)}, ${this.stale.kind}+${this.stale.by})`
  }
  protected async act(model: Model, real: Real): Promise<void> {
    const id = pickMaster(model, this.pick)
    const stamp = staleVersion(model, model.masters.get(id)!.version, this.stale)
    const reply = await send(real, SAVE, { Rows: [{ Row: { Id: id, TIMESTAMP: stamp, ...this.changes }, Details: [] }] })
    expectFailure(reply, 'CONCURRENCY', id, `${this.toString()} on master ${id} with TIMESTAMP ${stamp}`)
  }
}

/** One valid update, one row with an unknown Id (and maybe a valid new master): all refused, nothing written. */
class HalfInvalidSave extends OnMaster {
  constructor(
    pick: number,
    readonly changes: Partial<MasterFields>,
    readonly invalidFirst: boolean,
    readonly alsoCreate: MasterFields | null,
  ) {
    super(pick)
  }
  toString(): string {
    return `HalfInvalidSave(#${this.pick}, ${JSON.stringify(this.changes)}, invalidFirst=${this.invalidFirst}, alsoCreate=${JSON.stringify(this.alsoCreate)})`
  }
  protected async act(model: Model, real: Real): Promise<void> {
    const id = pickMaster(model, this.pick)
    const valid = { Row: { Id: id, TIMESTAMP: model.masters.get(id)!.version, ...this.changes }, Details: [] }
    const invalid = { Row: { Id: UNKNOWN_ID, TIMESTAMP: model.maxVersion, Status: 'Open' }, Details: [] }
    const rows: Array<{ Row: Record<string, unknown>; Details: unknown[] }> = this.invalidFirst ? [invalid, valid] : [valid, invalid]
    if (this.alsoCreate !== null) rows.push({ Row: { Id: -1, IdRow: null, TIMESTAMP: null, ...this.alsoCreate }, Details: [] })
    const reply = await send(real, SAVE, { Rows: rows })
    expectFailure(reply, 'NOT_FOUND', UNKNOWN_ID, `${this.toString()} on master ${id}`)
    expect(reply.ReturnData?.PrimaryKeyData ?? {}, `${this.toString()}: no keys handed out`).toEqual({})
  }
}

class DeleteMaster extends OnMaster {
  toString(): string {
    return `DeleteMaster(#${this.pick})`
  }
  protected async act(model: Model, real: Real): Promise<void> {
    const id = pickMaster(model, this.pick)
    const what = `${this.toString()} on master ${id}`
    const reply = await send(real, DELETE, [{ RelationKey: null, Rows: [{ Row: { Id: id, TIMESTAMP: model.masters.get(id)!.version } }] }])
    expect(reply, what).toMatchObject({ IsSaveSuccessfully: true, ReturnStates: [], DeletedItems: 1 })
    model.masters.delete(id)
    for (const detailId of detailIdsOf(model, id)) model.details.delete(detailId)
    expect(await readRows(real, `$filter=Id eq ${id}`), `${what}: the master is gone`).toEqual([])
    expect(await readCount(real, `$inlinecount=allpages&$filter=MasterId eq ${id}&relationKey=${RK}`), `${what}: its detail rows are gone`).toBe(0)
  }
}

class StaleDelete extends OnMaster {
  constructor(
    pick: number,
    readonly stale: Staleness,
  ) {
    super(pick)
  }
  toString(): string {
    return `StaleDelete(#${this.pick}, ${this.stale.kind}+${this.stale.by})`
  }
  protected async act(model: Model, real: Real): Promise<void> {
    const id = pickMaster(model, this.pick)
    const stamp = staleVersion(model, model.masters.get(id)!.version, this.stale)
    const reply = await send(real, DELETE, [{ RelationKey: null, Rows: [{ Row: { Id: id, TIMESTAMP: stamp } }] }])
    expectFailure(reply, 'CONCURRENCY', id, `${this.toString()} on master ${id} with TIMESTAMP ${stamp}`)
  }
}

/** A new detail row under an existing master; the master itself is sent without changes, so it is not written. */
class AddDetail extends OnMaster {
  constructor(
    pick: number,
    readonly line: DetailFields,
  ) {
    super(pick)
  }
  toString(): string {
    return `AddDetail(#${this.pick}, ${JSON.stringify(this.line)})`
  }
  protected async act(model: Model, real: Real): Promise<void> {
    const id = pickMaster(model, this.pick)
    const what = `${this.toString()} under master ${id}`
    const reply = await send(real, SAVE, {
      Rows: [
        {
          Row: { Id: id, TIMESTAMP: model.masters.get(id)!.version },
          Details: [{ RelationKey: RK, Rows: [{ Id: -1, IdRow: null, TIMESTAMP: null, ...this.line }] }],
        },
      ],
    })
    expect(reply, what).toMatchObject({ IsSaveSuccessfully: true, ReturnStates: [], CreatedItems: 1, UpdatedItems: 0 })
    const newKeys = reply.ReturnData!.PrimaryKeyData[String(id)]?.newKeys
    expect(Object.keys(newKeys ?? {}), `${what}: PrimaryKeyData keyed by the master's Id`).toEqual([`${RK}[0]`, `${RK}:-1`])
    const detailId = Number(newKeys![`${RK}[0]`])
    expect(newKeys![`${RK}:-1`], `${what}: both keys name the same row`).toBe(String(detailId))
    expect(model.details.has(detailId), `${what}: new detail Id ${detailId} is not taken`).toBe(false)
    const read = await readRows(real, `$filter=Id eq ${detailId}&relationKey=${RK}`)
    expect(
      read.map((r) => r.Id),
      `${what}: detail ${detailId} read back`,
    ).toEqual([detailId])
    const detail = detailOf(read[0]!)
    expect(detail, `${what}: detail ${detailId} read back`).toEqual({ ...this.line, MasterId: id, IdRow: detail.IdRow, version: detail.version })
    acceptNewVersions(model, [detail.version], what)
    model.details.set(detailId, detail)
  }
}

class ReadPage extends Checked {
  constructor(
    readonly order: Order,
    readonly skip: number,
    readonly top: number | null,
  ) {
    super()
  }
  get query(): string {
    return [this.top === null ? null : `$top=${this.top}`, this.skip === 0 ? null : `$skip=${this.skip}`, `$orderby=${this.order}`]
      .filter((p) => p !== null)
      .join('&')
  }
  toString(): string {
    return `ReadPage(${this.query})`
  }
  protected async act(model: Model, real: Real): Promise<void> {
    const rows = await readRows(real, this.query)
    const ids = expectedPage(model, this.order, this.skip, this.top)
    expect(
      rows.map((r) => r.Id),
      `${this.toString()}: Ids in order`,
    ).toEqual(ids)
    expect(rows.map(masterOf), `${this.toString()}: rows`).toEqual(ids.map((id) => model.masters.get(id)))
  }
}

/** `$filter=Customer eq '…'` with the quote doubled, percent-encoded as a client would send any text. */
class ReadByCustomer extends OnMaster {
  toString(): string {
    return `ReadByCustomer(#${this.pick})`
  }
  protected async act(model: Model, real: Real): Promise<void> {
    const id = pickMaster(model, this.pick)
    const customer = model.masters.get(id)!.Customer
    if (customer === null) return
    const filter = encodeURIComponent(`Customer eq '${customer.replaceAll("'", "''")}'`)
    const rows = await readRows(real, `$filter=${filter}&$orderby=Id asc`)
    const ids = [...model.masters]
      .filter(([, m]) => m.Customer === customer)
      .map(([i]) => i)
      .sort((a, b) => a - b)
    expect(
      rows.map((r) => r.Id),
      `${this.toString()}: masters whose Customer is ${JSON.stringify(customer)}`,
    ).toEqual(ids)
  }
}

class Count extends Checked {
  constructor(
    readonly details: boolean,
    readonly page: boolean,
  ) {
    super()
  }
  get query(): string {
    return ['$inlinecount=allpages', this.page ? '$top=1&$skip=2' : null, this.details ? `relationKey=${RK}` : null].filter((p) => p !== null).join('&')
  }
  toString(): string {
    return `Count(${this.query})`
  }
  protected async act(model: Model, real: Real): Promise<void> {
    const expected = this.details ? model.details.size : model.masters.size
    expect(await readCount(real, this.query), this.toString()).toBe(expected)
  }
}

const commandArbs: Array<fc.Arbitrary<Cmd>> = [
  fc
    .tuple(
      fc.array(fc.record({ Customer: text, Amount: money, Status: status, lines: fc.array(detailFields, { maxLength: 3 }) }), { minLength: 1, maxLength: 3 }),
      fc.boolean(),
    )
    .map(([masters, allMinusOne]) => new CreateMasters(masters, allMinusOne)),
  fc.tuple(pick, someMasterFields).map(([p, changes]) => new UpdateMaster(p, changes)),
  fc.tuple(pick, someMasterFields, staleness).map(([p, changes, stale]) => new StaleUpdate(p, changes, stale)),
  fc
    .tuple(pick, someMasterFields, fc.boolean(), fc.option(masterFields, { nil: null }))
    .map(([p, changes, first, create]) => new HalfInvalidSave(p, changes, first, create)),
  pick.map((p) => new DeleteMaster(p)),
  fc.tuple(pick, staleness).map(([p, stale]) => new StaleDelete(p, stale)),
  fc.tuple(pick, detailFields).map(([p, line]) => new AddDetail(p, line)),
  fc
    .tuple(fc.constantFrom(...ORDERS), fc.nat({ max: 40 }), fc.option(fc.nat({ max: 12 }), { nil: null }))
    .map(([order, skip, top]) => new ReadPage(order, skip, top)),
  pick.map((p) => new ReadByCustomer(p)),
  fc.tuple(fc.boolean(), fc.boolean()).map(([details, page]) => new Count(details, page)),
]

// ---- the property ----------------------------------------------------------------------------

describe('the mock against a model of its master/detail rows, over HTTP', () => {
  const suite = mockPerSuite()

  it('keeps saves, deletes, pages and counts consistent with the model', { timeout: 120_000 * FUZZ_SCALE }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commandArbs, { maxCommands: 12, size: 'max' }), async (cmds) => {
        const setup = async () => {
          suite.mock.mock.reset() // the start fixture again; the session survives, row versions keep growing
          const real: Real = { client: suite.mock, token: suite.token }
          return { model: await initialModel(real), real }
        }
        await fc.asyncModelRun(setup, cmds)
      }),
      // The number of runs alone bounds the property, so a seed replays exactly; the test's limit is far above it.
      { numRuns: runs(15) },
    )
  })
})
