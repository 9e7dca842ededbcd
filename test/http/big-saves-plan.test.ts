/**
 * A big save's plan made in slices (`Store.saveInSlices`, used by the save handler for a save of
 * `slicing.checkRows` masters or more): small reads are answered while it is planned, none sees
 * half of it, it answers exactly as a save planned in one go, and a write that lands between its
 * slices makes it plan again, so it ends as if it had come after that write.
 */
import { watchPauses } from '../helpers/paused-writes.ts'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { slicing } from '../../src/http/json-slices.ts'
import type { Store } from '../../src/store/store.ts'
import { IDS, rowVersion, startTestMock, type TestClient } from '../helpers/http.ts'
import { pair } from './sliced-pair.ts'

const SAVE = '/ExplorerApi/api/items/save'
const DEFAULTS = { ...slicing }
// Plan slices as short as they go (a master each), so a plan pauses more than once however fast
// the machine: with the default 8 ms, a fast run planned 3,000 masters in two slices.
const SLICED = { ...DEFAULTS, planMs: 0 }
const OFF = { ...DEFAULTS, bodyChars: Infinity, sliceChars: Infinity, checkRows: Infinity, sliceRows: Infinity }

beforeEach(() => Object.assign(slicing, SLICED))
afterEach(() => Object.assign(slicing, DEFAULTS))

type Master = { Row: Record<string, unknown>; Details: Array<{ RelationKey: string; Rows: Array<Record<string, unknown>> }> }

const line = (id: number, j: number) => ({ Id: id, IdRow: null, TIMESTAMP: null, Product: `Line ${j}`, Quantity: j + 1, UnitPrice: 1.5 })
const order = (i: number): Master => ({
  Row: { Id: -(i + 1), IdRow: null, TIMESTAMP: null, Customer: `Customer ${i}`, Amount: i + 0.5, Status: 'New' },
  Details: [{ RelationKey: 'OrderLines', Rows: [line(-(2 * i + 1), 0), line(-(2 * i + 2), 1)] }],
})
const orders = (count: number) => Array.from({ length: count }, (_, i) => order(i))

interface Answer {
  status: number
  body: unknown
}

async function send(mock: TestClient, token: string, json: unknown): Promise<Answer> {
  const reply = await mock.request('POST', SAVE, {
    body: JSON.stringify(json),
    headers: { ...mock.dataHeaders(token), 'content-type': 'application/json' },
    unchecked: true,
  })
  // Row links name the mock's own address: the one thing two mocks answer differently.
  return { status: reply.status, body: JSON.parse(JSON.stringify(reply.body).replaceAll(mock.url, 'MOCK')) }
}

/**
 * Watches the mock's sliced saves: how many, how many pauses between slices, and whether one is
 * being planned now (`planning`: the mock runs in this process, so a read can look when it is sent
 * and when its answer comes). `atFirstPause` runs between the first two slices.
 */
function watch(mock: TestClient, atFirstPause?: () => Promise<void>) {
  const store = (mock.mock.app as unknown as { store: Store }).store
  const original = store.saveInSlices
  const seen = { calls: 0, pauses: 0, planning: false, restore: () => void (store.saveInSlices = original) }
  store.saveInSlices = async (cmd, pause, sliceMs) => {
    seen.calls++
    seen.planning = true
    try {
      return await original(
        cmd,
        async () => {
          seen.pauses++
          if (seen.pauses === 1 && atFirstPause !== undefined) await atFirstPause()
          await pause()
        },
        sliceMs,
      )
    } finally {
      seen.planning = false
    }
  }
  return seen
}

/** Masters (`relationKey` null) or order lines, newest first, as Get Items answers them. */
async function rows(mock: TestClient, token: string, details = false): Promise<unknown[]> {
  const query = `$top=5000&$orderby=Id desc${details ? `&relationKey=${IDS.relationKey}` : ''}`
  return (await mock.request('POST', '/ExplorerApi/api/items', { json: { query }, headers: mock.dataHeaders(token), unchecked: true })).body as unknown[]
}

const count = async (mock: TestClient, token: string) => (await mock.items(token, '$inlinecount=allpages&$top=0')).body

/** The fixture's first orders with their current TIMESTAMP (read as base64 text, sent back as the integer). */
async function existing(mock: TestClient, token: string): Promise<Array<{ Id: number; TIMESTAMP: number }>> {
  const read = (await mock.items(token, '$top=5&$orderby=Id asc')).body as Array<{ Id: number; TIMESTAMP: string }>
  return read.map(({ Id, TIMESTAMP }) => ({ Id, TIMESTAMP: rowVersion(TIMESTAMP) }))
}

describe('a big save planned in slices, beside small reads', () => {
  let mock: TestClient
  let token: string
  beforeAll(async () => {
    mock = await startTestMock()
    token = await mock.signIn()
  })
  afterAll(() => mock?.close())

  it('answers small reads while it is planned, and none of them sees part of it', async () => {
    const before = await count(mock, token)
    const watched = watch(mock)
    let saved = false
    const saving = send(mock, token, { Rows: orders(5000) }).then((answer) => {
      saved = true
      return answer
    })
    const reads: Array<{ duringPlan: boolean; body: unknown }> = []
    while (!saved) {
      const sentDuringPlan = watched.planning
      const body = await count(mock, token)
      // Sent after the plan began and answered before it ended: answered while the save was being planned.
      reads.push({ duringPlan: sentDuringPlan && watched.planning, body })
    }
    const answer = await saving
    watched.restore()
    expect(answer.status).toBe(200)
    expect((answer.body as { CreatedItems: number }).CreatedItems).toBe(15_000)
    expect(watched.calls).toBe(1)
    expect(watched.pauses).toBeGreaterThan(1)
    const duringPlan = reads.filter((read) => read.duringPlan)
    expect(duringPlan.length).toBeGreaterThan(0)
    const after = await count(mock, token)
    expect(after).not.toEqual(before)
    for (const read of reads) expect([before, after]).toContainEqual(read.body)
    for (const read of duringPlan) expect(read.body).toEqual(before)
  }, 120_000)
})

describe('a big save planned in slices answers as one planned in one go', () => {
  const ctx = pair()

  /** The same save to both mocks: the first plans it in slices, the second in one go. */
  async function both(body: unknown): Promise<{ sliced: Answer; whole: Answer; pauses: number }> {
    const watchSliced = watch(ctx.sliced)
    const watchWhole = watch(ctx.whole)
    try {
      Object.assign(slicing, SLICED)
      const sliced = await send(ctx.sliced, ctx.tokens.sliced, body)
      Object.assign(slicing, OFF)
      const whole = await send(ctx.whole, ctx.tokens.whole, body)
      expect(watchSliced.calls).toBe(1)
      expect(watchWhole.calls).toBe(0)
      return { sliced, whole, pauses: watchSliced.pauses }
    } finally {
      watchSliced.restore()
      watchWhole.restore()
    }
  }

  async function sameData(): Promise<void> {
    expect(await rows(ctx.sliced, ctx.tokens.sliced)).toEqual(await rows(ctx.whole, ctx.tokens.whole))
    expect(await rows(ctx.sliced, ctx.tokens.sliced, true)).toEqual(await rows(ctx.whole, ctx.tokens.whole, true))
  }

  it('refuses a stale TIMESTAMP in row 4,000 and a duplicate identity with the same problems, writing nothing', async () => {
    const [first, second] = await existing(ctx.sliced, ctx.tokens.sliced)
    expect(await existing(ctx.whole, ctx.tokens.whole)).toEqual(await existing(ctx.sliced, ctx.tokens.sliced))
    const masters = orders(4500)
    // Order 2 sent with order 1's version: never order 2's current one.
    masters[4000] = { Row: { Id: second!.Id, TIMESTAMP: first!.TIMESTAMP, Customer: 'Stale' }, Details: [{ RelationKey: 'OrderLines', Rows: [line(-1, 0)] }] }
    masters[4200]!.Row.IdRow = 1001
    const before = await rows(ctx.sliced, ctx.tokens.sliced)
    const { sliced, whole, pauses } = await both({ Rows: masters })
    expect(pauses).toBeGreaterThan(1)
    expect(sliced.status).toBe(200)
    const body = sliced.body as { IsSaveSuccessfully: boolean; ReturnStates?: unknown; CreatedItems: number }
    expect(body.IsSaveSuccessfully).toBe(false)
    expect(JSON.stringify(sliced.body)).toMatch(/CONCURRENCY/)
    expect(JSON.stringify(sliced.body)).toMatch(/DUPLICATE_KEY/)
    expect(sliced).toEqual(whole)
    expect(await rows(ctx.sliced, ctx.tokens.sliced)).toEqual(before)
    await sameData()
  }, 120_000)

  it('writes the same rows with the same answer (PrimaryKeyData included) when valid', async () => {
    const [first, second] = await existing(ctx.sliced, ctx.tokens.sliced)
    const masters = orders(4500)
    masters[10] = {
      Row: { Id: first!.Id, TIMESTAMP: first!.TIMESTAMP, Customer: 'Updated first' },
      Details: [{ RelationKey: 'OrderLines', Rows: [line(-1, 0), line(-2, 1)] }],
    }
    masters[4000] = { Row: { Id: second!.Id, TIMESTAMP: second!.TIMESTAMP, Amount: 99.5 }, Details: [] }
    const { sliced, whole, pauses } = await both({ Rows: masters })
    expect(pauses).toBeGreaterThan(1)
    expect(sliced.status).toBe(200)
    const body = sliced.body as {
      IsSaveSuccessfully: boolean
      CreatedItems: number
      UpdatedItems: number
      ReturnData: { PrimaryKeyData: Record<string, unknown> }
    }
    expect(body.IsSaveSuccessfully).toBe(true)
    expect(body.CreatedItems).toBe(4498 * 3 + 2)
    expect(body.UpdatedItems).toBe(2)
    expect(Object.keys(body.ReturnData.PrimaryKeyData)).toHaveLength(4499)
    expect(sliced).toEqual(whole)
    await sameData()
  }, 120_000)
})

describe("a write that lands between the slices of a big save's plan", () => {
  const ctx = pair('between', 'before')

  /**
   * `small` sent to one mock while `big` is planned (between its first two slices), and to the
   * other before `big`: the same answers, the same data after.
   */
  async function landsBetween(small: unknown, big: unknown): Promise<{ small: Answer; big: Answer }> {
    let smallBetween: Answer | undefined
    let plannedWhenSmallAnswered = false
    const watched = watch(ctx.between, async () => {
      smallBetween = await send(ctx.between, ctx.tokens.between, small)
      plannedWhenSmallAnswered = watched.planning
    })
    const bigBetween = await send(ctx.between, ctx.tokens.between, big)
    watched.restore()
    expect(watched.calls).toBe(1)
    expect(watched.pauses).toBeGreaterThan(1)
    expect(plannedWhenSmallAnswered).toBe(true)
    const smallBefore = await send(ctx.before, ctx.tokens.before, small)
    const bigBefore = await send(ctx.before, ctx.tokens.before, big)
    expect(smallBetween).toEqual(smallBefore)
    expect(bigBetween).toEqual(bigBefore)
    expect(await rows(ctx.between, ctx.tokens.between)).toEqual(await rows(ctx.before, ctx.tokens.before))
    expect(await rows(ctx.between, ctx.tokens.between, true)).toEqual(await rows(ctx.before, ctx.tokens.before, true))
    return { small: smallBetween!, big: bigBetween }
  }

  it('an update of a row the big save updates too: the big save is planned again and refused (CONCURRENCY), writing nothing', async () => {
    const [first] = await existing(ctx.between, ctx.tokens.between)
    const masters = orders(4000)
    // In the first slice: planned (and found current) before the small update lands.
    masters[5] = { Row: { Id: first!.Id, TIMESTAMP: first!.TIMESTAMP, Amount: 12.5 }, Details: [] }
    const { small, big } = await landsBetween(
      { Rows: [{ Row: { Id: first!.Id, TIMESTAMP: first!.TIMESTAMP, Customer: 'Changed meanwhile' }, Details: [] }] },
      { Rows: masters },
    )
    expect((small.body as { IsSaveSuccessfully: boolean }).IsSaveSuccessfully).toBe(true)
    expect(big.status).toBe(200)
    expect((big.body as { IsSaveSuccessfully: boolean }).IsSaveSuccessfully).toBe(false)
    const states = JSON.stringify(big.body)
    expect(states).toMatch(/CONCURRENCY/)
    expect(states).toContain(`row ${first!.Id}`)
    // Nothing of the big save written: the fixture's 25 orders, the first as the small update left it.
    const after = (await rows(ctx.between, ctx.tokens.between)) as Array<{ Id: number; Customer: string; Amount: number }>
    expect(after).toHaveLength(25)
    expect(after.find((row) => row.Id === first!.Id)).toMatchObject({ Customer: 'Changed meanwhile' })
    expect(after.find((row) => row.Id === first!.Id)?.Amount).not.toBe(12.5)
  }, 120_000)

  it('a create: the big save is planned again after it, taking the Ids and identities after the new row', async () => {
    const { small, big } = await landsBetween({ Rows: [order(0)] }, { Rows: orders(3000) })
    expect((small.body as { IsSaveSuccessfully: boolean }).IsSaveSuccessfully).toBe(true)
    expect((big.body as { IsSaveSuccessfully: boolean; CreatedItems: number }).IsSaveSuccessfully).toBe(true)
    expect((big.body as { CreatedItems: number }).CreatedItems).toBe(9000)
    expect(await rows(ctx.between, ctx.tokens.between)).toHaveLength(25 + 1 + 3000)
  }, 120_000)
})

describe('big saves beside other clients and each other', () => {
  let mock: TestClient
  let token: string
  beforeAll(async () => {
    mock = await startTestMock()
    token = await mock.signIn()
  })
  afterAll(() => mock?.close())

  const named = (prefix: string, count: number): Master[] =>
    orders(count).map((master, i) => ({ ...master, Row: { ...master.Row, Customer: `${prefix} ${i}` } }))
  /** How many orders of a save (by its Customer prefix) a read sees now. */
  const seen = async (prefix: string): Promise<number> =>
    ((await mock.items(token, `$inlinecount=allpages&$top=0&$filter=startswith(Customer,'${prefix} ')`)).body as { Items: Array<{ _FieldCount_: number }> })
      .Items[0]!._FieldCount_
  /** The new master Ids a save's answer names, in order. */
  const newIds = (answer: Answer): number[] =>
    Object.values((answer.body as { ReturnData: { PrimaryKeyData: Record<string, { newKeys: { Id: string } }> } }).ReturnData.PrimaryKeyData).map((keys) =>
      Number(keys.newKeys.Id),
    )

  it('voided by a write between its slices, is planned again in slices: the loop stays free, and it ends after that write', async () => {
    Object.assign(slicing, DEFAULTS)
    const loop = monitorEventLoopDelay({ resolution: 10 })
    let small: Answer | undefined
    const watched = watch(mock, async () => {
      small = await send(mock, token, { Rows: [order(0)] })
    })
    const body = JSON.stringify({ Rows: named('Voided', 80_000) })
    loop.enable()
    const big = await mock.request('POST', SAVE, { body, headers: { ...mock.dataHeaders(token), 'content-type': 'application/json' }, unchecked: true })
    loop.disable()
    watched.restore()
    expect((small?.body as { IsSaveSuccessfully: boolean }).IsSaveSuccessfully).toBe(true)
    expect(big.status).toBe(200)
    expect(big.body).toMatchObject({ IsSaveSuccessfully: true, CreatedItems: 240_000 })
    // Planned again after the small save: its first new order takes the Id after the small save's.
    const smallId = newIds(small!)[0]!
    expect(newIds({ status: 200, body: big.body })[0]).toBe(smallId + 1)
    expect(await seen('Voided')).toBe(80_000)
    expect(loop.max / 1e6).toBeLessThan(500)
    await mock.request('POST', '/__mock/reset')
  }, 300_000)

  /**
   * Two big saves sent at once while a read polls how many orders of each it sees, and, unless
   * `resetAt` is null, a reset sent when the saves have paused that many times in all. The outcome
   * must be one of the serial orders of the three: every read sees none or all of each save, the
   * saves' new Ids do not interleave, a save the reset cut answers 503 and was never seen.
   */
  async function race(resetAt: number | null): Promise<{ answers: Answer[]; reads: Array<[number, number]> }> {
    Object.assign(slicing, SLICED)
    // Just past the size a save is sliced at (slicing.checkRows).
    const size = 2100
    const store = (mock.mock.app as unknown as { store: Store }).store
    const pauses = watchPauses(store as unknown as Record<'saveInSlices', unknown>, 'saveInSlices', () => mock.request('POST', '/__mock/reset'), resetAt)
    try {
      let settled = 0
      const saving = ['A', 'B'].map((prefix) => send(mock, token, { Rows: named(prefix, size) }).finally(() => settled++))
      const bothSettled = Promise.allSettled(saving)
      const reads: Array<[number, number]> = []
      while (settled < 2) {
        await Promise.race([pauses.next(), bothSettled])
        reads.push([await seen('A'), await seen('B')])
      }
      const answers = await Promise.all(saving)
      await pauses.reset()
      reads.push([await seen('A'), await seen('B')])
      for (const [a, b] of reads) {
        expect([0, size]).toContain(a)
        expect([0, size]).toContain(b)
      }
      for (const [i, answer] of answers.entries()) {
        if (answer.status === 503) {
          expect((answer.body as { code: string }).code).toBe('DATA_REPLACED')
          // Cut by the reset: no read ever saw a row of it.
          expect(reads.every((read) => read[i] === 0)).toBe(true)
        } else {
          expect(answer.status).toBe(200)
          expect(answer.body).toMatchObject({ IsSaveSuccessfully: true, CreatedItems: 3 * size })
        }
      }
      const committed = answers.filter((answer) => answer.status === 200).map(newIds)
      // Each save's new Ids are one run, and two saves' runs do not overlap: one saved after the other.
      for (const ids of committed) expect(ids).toEqual(Array.from({ length: size }, (_, k) => ids[0]! + k))
      if (committed.length === 2) expect(Math.abs(committed[0]![0]! - committed[1]![0]!)).toBeGreaterThanOrEqual(size)
      return { answers, reads }
    } finally {
      pauses.restore()
      await mock.request('POST', '/__mock/reset')
    }
  }

  it('two big saves at once, no reset: both written whole, one after the other', async () => {
    const { answers, reads } = await race(null)
    expect(answers.map((answer) => answer.status)).toEqual([200, 200])
    expect(reads.at(-1)).toEqual([2100, 2100])
  }, 300_000)

  it.each([
    // Pauses in all (both saves' slices, a turn each): each is planned (2,100), then one stages its 6,300 rows while the
    // other waits a turn at a time, then the other plans again and stages: the first is written after about 16,800 pauses
    // in all (10,500 at the least), the second about 8,400 later.
    ['while both are planned', 10, [503, 503]],
    ['while one writes its rows out of sight', 8_000, [503, 503]],
    ['after one is written, while the other is planned again', 21_000, [200, 503]],
  ])(
    'two big saves and a reset %s: one of the serial orders, the data the reset put in place',
    async (_name, at, statuses) => {
      const { answers, reads } = await race(at)
      expect(answers.map((answer) => answer.status).sort()).toEqual(statuses)
      // Whatever came first, the reset came last for the data: nothing of either save is left.
      expect(reads.at(-1)).toEqual([0, 0])
    },
    300_000,
  )
})
