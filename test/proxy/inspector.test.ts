/**
 * The main thread's side of judging (src/commands/proxy/inspector.ts), with a judging thread of the test's
 * own that answers only when told: what waits is bounded by exchanges and by bytes, and what passes
 * that bound is counted as not judged (queue full) rather than kept; the release is decided on the
 * main thread in the order exchanges ended; a judge that fails, or a thread that dies, costs the
 * exchanges it held (counted) and no more; a stop counts what still waits as stopped. The proxy
 * as a whole, with its real thread, is held in the other files of this folder.
 */
import { describe, expect, it } from 'vitest'
import { Inspector, QUEUE_BYTES, QUEUE_EXCHANGES, type ObservedExchange } from '../../src/commands/proxy/inspector.ts'
import type { JudgeListener, StartJudge } from '../../src/commands/proxy/judge-thread.ts'
import type { JudgeRequest, JudgeWorkerData } from '../../src/commands/proxy/judge-protocol.ts'
import type { Judgement } from '../../src/commands/proxy/judge.ts'

/** The sign-in matchers a thread sends when ready: the organization's sign-in, and Get Items. */
const MATCHERS = [
  { method: 'POST', source: '^/identityprovider/([^/]+)/connect/token/?$', flags: 'i', release: '3.0.19' },
  { method: 'POST', source: '^/identityprovider/connect/token/?$', flags: 'i', release: '3.0.18' },
  { method: 'POST', source: '^/ExplorerApi/api/items/?$', flags: 'i', release: null },
]

/** A judging thread the test drives: it holds what it is sent, and answers when told. */
class FakeJudges {
  readonly started: Array<{ data: JudgeWorkerData; listener: JudgeListener; sent: JudgeRequest[]; terminated: boolean }> = []
  readonly start: StartJudge = (data, listener) => {
    const thread = { data, listener, sent: [] as JudgeRequest[], terminated: false }
    this.started.push(thread)
    return {
      // As a thread's port sends it: the bodies' memory moves (the main thread's Buffers are left empty).
      send: (request, transfer) => thread.sent.push(structuredClone(request, { transfer })),
      terminate: async () => {
        thread.terminated = true
      },
    }
  }

  get current() {
    return this.started[this.started.length - 1] as FakeJudges['started'][number]
  }

  ready(): void {
    this.current.listener.reply({ type: 'ready', matchers: MATCHERS })
  }

  /** Answers the oldest exchange the current thread holds, with a judgement (none found, unless given). */
  answer(judgement: Partial<Judgement> = {}): JudgeRequest {
    const request = this.current.sent.shift() as JudgeRequest
    this.current.listener.reply({
      type: 'judged',
      id: request.id,
      judgement: { operationId: 'queryItems', path: '/ExplorerApi/api/items', observations: [], notJudged: {}, secrets: [], ...judgement },
    })
    return request
  }
}

function exchange(overrides: Partial<ObservedExchange> = {}): ObservedExchange {
  return {
    startedAt: 0,
    durationMs: 1,
    method: 'POST',
    url: '/ExplorerApi/api/items',
    requestHeaders: { 'content-type': 'application/json' },
    requestBody: Buffer.from('{"query":"$top=1"}'),
    requestBytes: 18,
    requestComplete: true,
    status: 200,
    answerHeaders: { 'content-type': 'application/json' },
    answerBody: Buffer.from('[]'),
    answerBytes: 2,
    outcome: 'answered',
    ...overrides,
  }
}

const secrets = Object.assign((text: string) => text, { add: () => undefined })
const inspector = (judges: FakeJudges, options: { recordUsage?: boolean } = {}) =>
  new Inspector({ target: 'http://target.test', secrets, startJudge: judges.start, ...options })

describe("the proxy's judging queue", () => {
  it('holds exchanges until the thread is ready, then sends them in order, each with the release its sign-in showed', () => {
    const judges = new FakeJudges()
    const inspected = inspector(judges)
    inspected.observe(exchange())
    inspected.observe(
      exchange({
        url: '/identityprovider/connect/token',
        requestHeaders: { 'content-type': 'application/x-www-form-urlencoded' },
        requestBody: Buffer.from('password=s3cret-form'),
      }),
    )
    inspected.observe(exchange())
    expect(judges.current.sent).toEqual([])
    judges.ready()
    expect(judges.current.sent.map(({ exchange: sent }) => [sent.url, sent.release, sent.beforeSignIn, sent.signIn])).toEqual([
      ['/ExplorerApi/api/items', '3.0.19', true, false],
      ['/identityprovider/connect/token', '3.0.18', false, true],
      ['/ExplorerApi/api/items', '3.0.18', false, false],
    ])
    expect(inspected.release()).toEqual({ release: '3.0.18', from: 'sign-in' })
  })

  it(`takes at most ${QUEUE_EXCHANGES} exchanges waiting; those past it pass unjudged, counted as queue full on both sides`, () => {
    const judges = new FakeJudges()
    const inspected = inspector(judges)
    judges.ready()
    for (let i = 0; i < QUEUE_EXCHANGES + 3; i++) inspected.observe(exchange())
    expect(judges.current.sent).toHaveLength(QUEUE_EXCHANGES)
    expect(inspected.report()).toMatchObject({
      exchanges: QUEUE_EXCHANGES + 3,
      pending: QUEUE_EXCHANGES,
      notJudged: { count: 3, reasons: { queueFull: 3 }, sides: { request: 3, answer: 3 } },
    })
    // Room again once one is judged.
    judges.answer()
    inspected.observe(exchange())
    expect(judges.current.sent).toHaveLength(QUEUE_EXCHANGES)
    expect(inspected.report().notJudged.count).toBe(3)
    expect(inspected.failed('answer')).toBe(true)
    expect(inspected.failed('request')).toBe(true)
    expect(inspected.failed('answer', true)).toBe(false)
  })

  it(`takes at most ${QUEUE_BYTES / 1024 / 1024} MB of bodies waiting, but always one exchange when none waits`, () => {
    const judges = new FakeJudges()
    const inspected = inspector(judges)
    judges.ready()
    const big = () => exchange({ answerBody: Buffer.allocUnsafe(QUEUE_BYTES / 2 - 1024), answerBytes: QUEUE_BYTES / 2 - 1024 })
    inspected.observe(big())
    inspected.observe(big())
    inspected.observe(big())
    expect(judges.current.sent).toHaveLength(2)
    expect(inspected.report().notJudged).toMatchObject({ count: 1, reasons: { queueFull: 1 } })
    judges.answer()
    judges.answer()
    // Judged, their bytes no longer count: two more fit.
    inspected.observe(big())
    inspected.observe(big())
    expect(judges.current.sent).toHaveLength(2)
    judges.answer()
    judges.answer()
    // Larger than the bound: taken, since nothing waits; nothing else then.
    inspected.observe(exchange({ answerBody: Buffer.allocUnsafe(QUEUE_BYTES + 1), answerBytes: QUEUE_BYTES + 1 }))
    inspected.observe(exchange())
    expect(judges.current.sent).toHaveLength(1)
    expect(inspected.report().notJudged.count).toBe(2)
  })

  it('counts the sides a judgement did not judge, each for its reason, and fails only the side --fail-on names', () => {
    const judges = new FakeJudges()
    const inspected = inspector(judges)
    judges.ready()
    inspected.observe(exchange())
    judges.answer({ notJudged: { request: 'overCheckLimit' } })
    expect(inspected.report().notJudged).toEqual({ count: 1, reasons: { overCheckLimit: 1 }, sides: { request: 1, answer: 0 } })
    expect([inspected.failed('answer'), inspected.failed('request'), inspected.failed('any'), inspected.failed('none')]).toEqual([false, true, true, false])
    inspected.observe(exchange())
    judges.answer({ notJudged: { request: 'overCheckLimit', answer: 'encoded' } })
    expect(inspected.report().notJudged).toEqual({ count: 2, reasons: { overCheckLimit: 2, encoded: 1 }, sides: { request: 2, answer: 1 } })
  })

  it('counts an exchange the judge failed on, and the ones a dying thread held, then goes on with a new thread that keeps the usage counted', async () => {
    const judges = new FakeJudges()
    const inspected = inspector(judges, { recordUsage: true })
    judges.ready()
    inspected.observe(exchange())
    const first = judges.current.sent.shift() as JudgeRequest
    judges.current.listener.reply({ type: 'failed', id: first.id, message: 'POST /ExplorerApi/api/items: a bug' })
    inspected.observe(exchange())
    judges.answer({
      usage: { key: 'k', interaction: { operation: 'queryItems', release: '3.0.19', request: { auth: 'session-token', headers: [] }, count: 1, answers: {} } },
    })
    inspected.observe(exchange())
    inspected.observe(exchange())
    judges.current.listener.ended('out of memory')
    expect(judges.started).toHaveLength(2)
    expect(judges.current.data).toMatchObject({ recordUsage: true, usage: { interactions: [{ operation: 'queryItems', count: 1 }] } })
    inspected.observe(exchange())
    const settled = inspected.settled(10_000)
    judges.ready()
    judges.answer()
    await settled
    expect(inspected.report()).toMatchObject({
      exchanges: 5,
      notJudged: { count: 3, reasons: { judgeFailed: 3 }, failure: 'POST /ExplorerApi/api/items: a bug' },
    })
    expect(inspected.report().pending).toBeUndefined()
  })

  it('turns judging off when the thread dies before it is ready: every exchange passes, counted as the judge failing', () => {
    const judges = new FakeJudges()
    const inspected = inspector(judges)
    inspected.observe(exchange())
    judges.current.listener.ended('Cannot find module judge-worker.mjs')
    inspected.observe(exchange())
    expect(judges.started).toHaveLength(1)
    expect(inspected.report().notJudged).toEqual({
      count: 2,
      reasons: { judgeFailed: 2 },
      sides: { request: 2, answer: 2 },
      failure: 'Cannot find module judge-worker.mjs',
    })
  })

  it('at stop, counts what is being judged and what waits as stopped, ends the thread, and keeps what was judged', async () => {
    const judges = new FakeJudges()
    const inspected = inspector(judges)
    judges.ready()
    for (let i = 0; i < 3; i++) inspected.observe(exchange())
    judges.answer({ observations: [{ side: 'answer', severity: 'violation', pointer: '/body/*/Id', message: 'must be integer' }] })
    await inspected.stop()
    expect(judges.current.terminated).toBe(true)
    expect(inspected.report()).toMatchObject({
      exchanges: 3,
      violations: [{ pointer: '/body/*/Id', count: 1 }],
      notJudged: { count: 2, reasons: { stopped: 2 } },
    })
    expect(inspected.report().pending).toBeUndefined()
    // A judgement that comes after the stop changes nothing.
    judges.answer({ observations: [{ side: 'answer', severity: 'violation', pointer: '/status', message: 'late' }] })
    expect(inspected.report().violations).toHaveLength(1)
  })
})
