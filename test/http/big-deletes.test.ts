/**
 * Big deletes (as many rows as `slicing.checkRows`, the size a save is sliced at) read, planned,
 * applied and answered in slices (src/operations/delete-items.ts, `Store.deleteInSlices`): the same
 * answers and data as the whole path on the same bodies; the event loop free beside a delete of
 * 300,000 rows, found or not; and atomic: every read sees none of a delete or all of it, two big
 * deletes and a reset end as one of their serial orders, and a big delete beside a big save too.
 */
import { watchPauses } from '../helpers/paused-writes.ts'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { slicing } from '../../src/http/json-slices.ts'
import type { Store } from '../../src/store/store.ts'
import { IDS, startTestMock, type TestClient } from '../helpers/http.ts'
import { pair } from './sliced-pair.ts'

const DELETE = '/ExplorerApi/api/items/delete'
const SAVE = '/ExplorerApi/api/items/save'
const DEFAULTS = { ...slicing }
/** Deletes of ten rows or more sliced, and every slice as short as it goes (a row each), however fast the machine. */
const SLICED = { ...DEFAULTS, checkRows: 10, planMs: 0 }
const OFF = { ...DEFAULTS, bodyChars: Infinity, sliceChars: Infinity, checkRows: Infinity, sliceRows: Infinity }
/** Far above what the sliced delete blocks for on a loaded machine (GC pauses of some 100 ms), far below the 1.5 to 3 s it blocked for in one step. */
const LONGEST_BLOCK_MS = 500

afterEach(() => Object.assign(slicing, DEFAULTS))

type Ref = { Id: number; TIMESTAMP: number | null }
type Group = { RelationKey?: string | null; Rows: Array<{ Row: Ref; Details?: unknown[] }> }

interface Answer {
  status: number
  warnings: string | null
  body: unknown
  /** The answer's bytes as text: a sliced answer must be the same bytes. */
  text: string
}

const storeOf = (mock: TestClient): Store => (mock.mock.app as unknown as { store: Store }).store
const group = (relationKey: string | null, refs: Ref[]): Group => ({ RelationKey: relationKey, Rows: refs.map((Row) => ({ Row })) })

async function send(mock: TestClient, token: string, path: string, json: unknown): Promise<Answer> {
  const reply = await mock.request('POST', path, {
    body: JSON.stringify(json),
    headers: { ...mock.dataHeaders(token), 'content-type': 'application/json' },
    unchecked: true,
  })
  return { status: reply.status, warnings: reply.headers.get('x-mock-warnings'), body: reply.body, text: reply.raw.toString() }
}

/** Rows `from` to `to` (inclusive) of a table with their current TIMESTAMPs, read from the mock's store (it runs in this process). */
function refs(mock: TestClient, from: number, to: number, relationKey: string | null = null): Ref[] {
  const store = storeOf(mock)
  return Array.from({ length: to - from + 1 }, (_, i) => {
    const found = store.getRow(IDS.applicationId, relationKey, from + i)
    if (found === null) throw new Error(`no row ${from + i}`)
    return { Id: from + i, TIMESTAMP: found.row.TIMESTAMP as number }
  })
}

/** Every master or order line (up to 10,000), by Id. */
async function rows(mock: TestClient, token: string, details = false): Promise<unknown[]> {
  const query = `$top=10000&$orderby=Id asc${details ? `&relationKey=${IDS.relationKey}` : ''}`
  return (await mock.request('POST', '/ExplorerApi/api/items', { json: { query }, headers: mock.dataHeaders(token), unchecked: true })).body as unknown[]
}

/** How many rows of a table a read sees now, with a filter. */
async function count(mock: TestClient, token: string, filter = '', relationKey: string | null = null): Promise<number> {
  const query = `$inlinecount=allpages&$top=0${filter === '' ? '' : `&$filter=${filter}`}${relationKey === null ? '' : `&relationKey=${relationKey}`}`
  return ((await mock.items(token, query)).body as { Items: Array<{ _FieldCount_: number }> }).Items[0]!._FieldCount_
}

/** Counts the mock's sliced deletes while `run` goes on. */
async function slicedDeletes<T>(mock: TestClient, run: () => Promise<T>): Promise<{ result: T; calls: number }> {
  const store = storeOf(mock)
  const original = store.deleteInSlices
  let calls = 0
  store.deleteInSlices = (cmd, pause, sliceMs) => {
    calls++
    return original(cmd, pause, sliceMs)
  }
  try {
    return { result: await run(), calls }
  } finally {
    store.deleteInSlices = original
  }
}

describe('a big delete in slices answers as the whole path does', () => {
  const ctx = pair()
  // Each test starts from the fixture's 25 orders and 50 lines, on both mocks.
  beforeEach(async () => {
    for (const mock of [ctx.sliced, ctx.whole]) expect((await mock.request('POST', '/__mock/reset')).status).toBe(200)
  })

  /** The same body to both mocks, sliced and whole (read from each mock's rows by `body`); both answers, and the rows after. */
  async function both(body: (mock: TestClient) => unknown): Promise<{ sliced: Answer; whole: Answer }> {
    Object.assign(slicing, SLICED)
    const sliced = await slicedDeletes(ctx.sliced, () => send(ctx.sliced, ctx.tokens.sliced, DELETE, body(ctx.sliced)))
    Object.assign(slicing, OFF)
    const whole = await slicedDeletes(ctx.whole, () => send(ctx.whole, ctx.tokens.whole, DELETE, body(ctx.whole)))
    expect([sliced.calls, whole.calls]).toEqual([1, 0])
    expect(sliced.result).toEqual(whole.result)
    for (const details of [false, true]) expect(await rows(ctx.sliced, ctx.tokens.sliced, details)).toEqual(await rows(ctx.whole, ctx.tokens.whole, details))
    return { sliced: sliced.result, whole: whole.result }
  }

  it('refuses every kind of problem with the same ReturnStates, LockedItems included, and deletes nothing', async () => {
    for (const mock of [ctx.sliced, ctx.whole]) {
      const locked = await mock.request('POST', '/__mock/locks', { json: { applicationId: IDS.applicationId, relationKey: IDS.relationKey, ids: [47] } })
      expect(locked.status).toBe(200)
    }
    const before = await rows(ctx.sliced, ctx.tokens.sliced)
    const { sliced } = await both((mock) => {
      const masters = refs(mock, 1, 20)
      masters.push({ Id: 404, TIMESTAMP: 1 }, { Id: 21, TIMESTAMP: refs(mock, 21, 21)[0]!.TIMESTAMP! - 1 }, { Id: 22, TIMESTAMP: null }, masters[4]!)
      return [group(null, masters), group(IDS.relationKey, refs(mock, 45, 47, IDS.relationKey)), group('Payments', [{ Id: 1, TIMESTAMP: 1 }])]
    })
    expect(sliced.status).toBe(200)
    const body = sliced.body as { IsSaveSuccessfully: boolean; ReturnStates: Array<{ Code: string }>; LockedItems: number; DeletedItems: number }
    expect(body.IsSaveSuccessfully).toBe(false)
    expect(body.ReturnStates.map((state) => state.Code)).toEqual(['NOT_FOUND', 'CONCURRENCY', 'CONCURRENCY', 'DUPLICATE_ROW', 'LOCKED', 'UNKNOWN_RELATION_KEY'])
    expect([body.LockedItems, body.DeletedItems]).toEqual([1, 0])
    expect(await rows(ctx.sliced, ctx.tokens.sliced)).toEqual(before)
    for (const mock of [ctx.sliced, ctx.whole])
      await mock.request('DELETE', '/__mock/locks', { json: { applicationId: IDS.applicationId, relationKey: IDS.relationKey, ids: [47] } })
  })

  it('deletes the same masters, cascaded lines and lines named on their own, with the same answer', async () => {
    const { sliced } = await both((mock) => [group(null, refs(mock, 1, 12)), group(IDS.relationKey, refs(mock, 27, 30, IDS.relationKey))])
    expect(sliced.body).toMatchObject({ IsSaveSuccessfully: true, ReturnStates: [], DeletedItems: 16, LockedItems: 0 })
    expect(await count(ctx.sliced, ctx.tokens.sliced)).toBe(13)
    expect(await count(ctx.sliced, ctx.tokens.sliced, '', IDS.relationKey)).toBe(22)
  })

  it('warns as the whole path does: the older body, a group without RelationKey, an empty group', async () => {
    const older = await both((mock) => [
      { Rows: refs(mock, 1, 4).map((Row) => ({ Row, Details: [] })) },
      { Rows: refs(mock, 5, 12).map((Row) => ({ Row, Details: [] })) },
    ])
    expect(older.sliced.warnings).toBe('LEGACY_DELETE_BODY')
    expect(older.sliced.body).toMatchObject({ IsSaveSuccessfully: true, DeletedItems: 12 })
    // Orders 13 and 14 in a group without RelationKey (master rows), an empty group, the lines of orders 16 to 20.
    const odd = await both((mock) => [
      { Rows: refs(mock, 13, 14).map((Row) => ({ Row })) },
      group(null, []),
      group(IDS.relationKey, refs(mock, 31, 40, IDS.relationKey)),
    ])
    expect(odd.sliced.warnings).toMatch(/DELETE_GROUP_WITHOUT_RELATION_KEY/)
    expect(odd.sliced.warnings).toMatch(/EMPTY_DELETE_GROUP/)
    expect(odd.sliced.body).toMatchObject({ IsSaveSuccessfully: true, DeletedItems: 12 })
  })

  it('writes the same bytes for an answer of 3,000 ReturnStates (hundreds of KB, written in pieces of 64 K characters)', async () => {
    const { sliced } = await both(() => [
      group(
        null,
        Array.from({ length: 3000 }, (_, i) => ({ Id: 100_000 + i, TIMESTAMP: 1 })),
      ),
    ])
    expect(sliced.text.length).toBeGreaterThan(4 * 64 * 1024)
    expect((sliced.body as { ReturnStates: unknown[] }).ReturnStates).toHaveLength(3000)
  })
})

/**
 * The mock's longest event-loop block (ms) from the moment the handler hands the delete to the store
 * to the moment the answer's headers arrive: the store call's own synchronous time (all of a delete
 * made in one step; the first slice of one made in slices), then the loop's delay as
 * `monitorEventLoopDelay` reads it from there on. The body's parse and check come before
 * (json-body.ts, request-check.ts) and are held by their own tests. The answer is read after, so the
 * client's own parse of it is not counted. Reads poll meanwhile; each read's count is kept.
 */
async function deleteBeside(
  mock: TestClient,
  token: string,
  body: string,
): Promise<{
  status: number
  answer: { IsSaveSuccessfully: boolean; DeletedItems: number; ReturnStates: Array<{ Code: string }> }
  blockMs: number
  reads: number[]
}> {
  const store = storeOf(mock)
  const loop = monitorEventLoopDelay({ resolution: 10 })
  let callMs = 0
  const timed = <T>(call: () => T): T => {
    const begun = performance.now()
    try {
      return call()
    } finally {
      callMs = Math.max(callMs, performance.now() - begun)
      loop.enable()
    }
  }
  const originals = { delete: store.delete, deleteInSlices: store.deleteInSlices }
  store.delete = (cmd) => timed(() => originals.delete(cmd))
  store.deleteInSlices = (cmd, pause, sliceMs) => timed(() => originals.deleteInSlices(cmd, pause, sliceMs))
  try {
    let answered = false
    const response = fetch(`${mock.url}${DELETE}`, { method: 'POST', headers: { ...mock.dataHeaders(token), 'content-type': 'application/json' }, body }).then(
      (reply) => {
        loop.disable()
        answered = true
        return reply
      },
    )
    const reads: number[] = []
    while (!answered) reads.push(await count(mock, token))
    const reply = await response
    return { status: reply.status, answer: JSON.parse(await reply.text()), blockMs: Math.max(callMs, loop.max / 1e6), reads }
  } finally {
    loop.disable()
    Object.assign(store, originals)
  }
}

describe('a delete of 300,000 rows', () => {
  it('all of them not found: answered with 300,000 NOT_FOUND, the loop free', async () => {
    const mock = await startTestMock()
    try {
      const token = await mock.signIn()
      const body = JSON.stringify([
        group(
          null,
          Array.from({ length: 300_000 }, (_, i) => ({ Id: 1_000_000 + i, TIMESTAMP: 1 })),
        ),
      ])
      const { status, answer, blockMs } = await deleteBeside(mock, token, body)
      expect(status).toBe(200)
      expect(answer.IsSaveSuccessfully).toBe(false)
      expect(answer.ReturnStates).toHaveLength(300_000)
      expect(answer.ReturnStates.every((state) => state.Code === 'NOT_FOUND')).toBe(true)
      expect(await count(mock, token)).toBe(25)
      expect(blockMs).toBeLessThan(LONGEST_BLOCK_MS)
    } finally {
      await mock.close()
    }
  }, 300_000)

  it('all of them found (300,000 orders and their 600,000 lines): deleted whole, each read beside it sees all of them or none, the loop free', async () => {
    const mock = await startTestMock({ rows: 300_000 })
    try {
      const token = await mock.signIn()
      const body = JSON.stringify([group(null, refs(mock, 26, 300_025))])
      const { status, answer, blockMs, reads } = await deleteBeside(mock, token, body)
      expect(status).toBe(200)
      expect(answer).toMatchObject({ IsSaveSuccessfully: true, DeletedItems: 300_000, ReturnStates: [] })
      expect(await count(mock, token)).toBe(25)
      expect(await count(mock, token, '', IDS.relationKey)).toBe(50)
      expect(reads.length).toBeGreaterThan(0)
      for (const seen of reads) expect([300_025, 25]).toContain(seen)
      expect(blockMs).toBeLessThan(LONGEST_BLOCK_MS)
    } finally {
      await mock.close()
    }
  }, 300_000)
})

describe('big deletes beside each other, a reset and a big save', () => {
  /** Orders 26 to 2125 and 2126 to 4225 are the two deletes' (A and B, just past the size a delete is sliced at, 512 rows, with their lines). */
  const SIZE = 2100
  let mock: TestClient
  let token: string
  beforeAll(async () => {
    mock = await startTestMock({ rows: 2 * SIZE })
    token = await mock.signIn()
  })
  afterAll(() => mock?.close())

  const first = { A: 26, B: 26 + SIZE }
  const deleteOf = (name: 'A' | 'B') => [group(null, refs(mock, first[name], first[name] + SIZE - 1))]
  /** How many of a delete's orders a read sees now. */
  const left = (name: 'A' | 'B') => count(mock, token, `Id ge ${first[name]} and Id le ${first[name] + SIZE - 1}`)

  /**
   * Two big deletes sent at once while a read polls how many orders of each it sees, and, unless
   * `resetAt` is null, a reset sent when the deletes have paused that many times in all. The outcome
   * must be one of the serial orders of the three: every read sees all or none of each delete's
   * orders, a delete the reset cut answers 503 and none of its orders was ever seen gone.
   */
  async function race(resetAt: number | null): Promise<{ statuses: number[]; reads: Array<[number, number]> }> {
    Object.assign(slicing, { ...DEFAULTS, planMs: 0 })
    const bodies = { A: deleteOf('A'), B: deleteOf('B') }
    const store = storeOf(mock)
    const pauses = watchPauses(store as unknown as Record<'deleteInSlices', unknown>, 'deleteInSlices', () => mock.request('POST', '/__mock/reset'), resetAt)
    try {
      let settled = 0
      const deleting = (['A', 'B'] as const).map((name) => send(mock, token, DELETE, bodies[name]).finally(() => settled++))
      const bothSettled = Promise.allSettled(deleting)
      const reads: Array<[number, number]> = []
      while (settled < 2) {
        await Promise.race([pauses.next(), bothSettled])
        reads.push([await left('A'), await left('B')])
      }
      const answers = await Promise.all(deleting)
      await pauses.reset()
      reads.push([await left('A'), await left('B')])
      for (const read of reads) for (const seen of read) expect([0, SIZE]).toContain(seen)
      for (const [i, answer] of answers.entries()) {
        if (answer.status === 503) {
          expect((answer.body as { code: string }).code).toBe('DATA_REPLACED')
          // Cut by the reset: no read ever saw its orders gone.
          expect(reads.every((read) => read[i] === SIZE)).toBe(true)
        } else {
          expect(answer.status).toBe(200)
          expect(answer.body).toMatchObject({ IsSaveSuccessfully: true, DeletedItems: SIZE })
        }
      }
      return { statuses: answers.map((answer) => answer.status), reads }
    } finally {
      pauses.restore()
      await mock.request('POST', '/__mock/reset')
    }
  }

  it('two big deletes at once, no reset: both written whole', async () => {
    const { statuses, reads } = await race(null)
    expect(statuses).toEqual([200, 200])
    expect(reads.at(-1)).toEqual([0, 0])
  }, 300_000)

  it.each([
    // Pauses in all (both deletes' slices, a turn each): each is planned (4,201 pauses: the group, 2,100 orders, their
    // lines), then its 6,300 rows are found (6,298), so the first is written after about 21,000 pauses in all; the other,
    // voided by it, is planned again while the first sweeps its rows out of the indexes (6,298 more each).
    ['while both are planned', 10, [503, 503]],
    ['while both find their rows', 15_000, [503, 503]],
    ['after one is written, while the other is planned again', 24_000, [200, 503]],
  ])(
    'two big deletes and a reset %s: one of the serial orders, the data the reset put in place',
    async (_name, at, statuses) => {
      const { statuses: answered, reads } = await race(at)
      expect(answered.sort()).toEqual(statuses)
      // Whatever came first, the reset came last for the data: every order of both is back.
      expect(reads.at(-1)).toEqual([SIZE, SIZE])
    },
    300_000,
  )

  it('a big delete beside a big save: both written whole, each read sees all or none of each, the data as if one came after the other', async () => {
    Object.assign(slicing, { ...DEFAULTS, planMs: 0 })
    const serial = await startTestMock({ rows: 2 * SIZE })
    try {
      const serialToken = await serial.signIn()
      const line = (id: number, j: number) => ({ Id: id, IdRow: null, TIMESTAMP: null, Product: `Line ${j}`, Quantity: j + 1, UnitPrice: 1.5 })
      const orders = {
        Rows: Array.from({ length: SIZE }, (_, i) => ({
          Row: { Id: -(i + 1), IdRow: null, TIMESTAMP: null, Customer: `Saved ${i}`, Amount: i, Status: 'New' },
          Details: [{ RelationKey: IDS.relationKey, Rows: [line(-(2 * i + 1), 0), line(-(2 * i + 2), 1)] }],
        })),
      }
      const body = deleteOf('A')
      const saved = () => count(mock, token, `startswith(Customer,'Saved ')`)
      // The delete is sent when the save has paused 100 times: it is planned and applied while the save is.
      const store = storeOf(mock)
      const original = store.saveInSlices
      let savePauses = 0
      let deleting: Promise<Answer> | undefined
      store.saveInSlices = (cmd, pause, sliceMs) =>
        original(
          cmd,
          async () => {
            if (++savePauses === 100) deleting = send(mock, token, DELETE, body).finally(() => settled++)
            await pause()
          },
          sliceMs,
        )
      let settled = 0
      const saving = send(mock, token, SAVE, orders).finally(() => settled++)
      const reads: Array<[number, number]> = []
      while (settled < 2) reads.push([await saved(), await left('A')])
      const del = await deleting
      const save = await saving
      store.saveInSlices = original
      expect(savePauses).toBeGreaterThan(100)
      expect(save!.body).toMatchObject({ IsSaveSuccessfully: true, CreatedItems: 3 * SIZE })
      expect(del!.body).toMatchObject({ IsSaveSuccessfully: true, DeletedItems: SIZE })
      for (const [s, d] of reads) {
        expect([0, SIZE]).toContain(s)
        expect([0, SIZE]).toContain(d)
      }
      // The same writes one after the other: new Ids do not depend on the delete, so either order leaves these rows (their
      // versions apart: they keep growing across the resets this mock has had).
      expect((await send(serial, serialToken, DELETE, [group(null, refs(serial, first.A, first.A + SIZE - 1))])).body).toMatchObject({ DeletedItems: SIZE })
      expect((await send(serial, serialToken, SAVE, orders)).body).toMatchObject({ CreatedItems: 3 * SIZE })
      const unversioned = async (client: TestClient, clientToken: string, details: boolean) =>
        (await rows(client, clientToken, details)).map((row) => ({ ...(row as object), TIMESTAMP: null }))
      for (const details of [false, true]) expect(await unversioned(mock, token, details)).toEqual(await unversioned(serial, serialToken, details))
    } finally {
      await serial.close()
      await mock.request('POST', '/__mock/reset')
    }
  }, 300_000)
})
