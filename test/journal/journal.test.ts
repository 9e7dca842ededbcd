/** The journal's ring buffer and redaction, without HTTP. */
import { describe, expect, it, vi } from 'vitest'
import { createJournal, type JournalRecord } from '../../src/journal/journal.ts'
import { REDACTED, redactHeaders, redactValue } from '../../src/policy/redact.ts'

function record(url: string, extra: Partial<JournalRecord> = {}): JournalRecord {
  return { seq: 0, time: 0, method: 'GET', url, operationId: 'op', user: null, status: 200, durationMs: 1, fault: null, warnings: [], ...extra }
}

describe('createJournal', () => {
  it('keeps the newest `capacity` entries in order and counts the rest as evicted', () => {
    const journal = createJournal({ capacity: 3, bodyLimit: 0 })
    for (let i = 1; i <= 7; i++) journal.add(record(`/r/${i}`))
    const page = journal.read()
    expect(page.entries.map((e) => e.url)).toEqual(['/r/5', '/r/6', '/r/7'])
    expect(page.entries.map((e) => e.seq)).toEqual([5, 6, 7])
    expect(page).toMatchObject({ capacity: 3, recorded: 7, evicted: 4 })
  })

  it('filters by operationId, then takes the newest `limit`', () => {
    const journal = createJournal({ capacity: 10, bodyLimit: 0 })
    for (let i = 1; i <= 6; i++) journal.add(record(`/r/${i}`, { operationId: i % 2 === 0 ? 'even' : 'odd' }))
    expect(journal.read({ operationId: 'even', limit: 2 }).entries.map((e) => e.url)).toEqual(['/r/4', '/r/6'])
    expect(journal.read({ limit: 100 }).entries).toHaveLength(6)
  })

  it('clears entries and counters but keeps numbering', () => {
    const journal = createJournal({ capacity: 2, bodyLimit: 0 })
    journal.add(record('/a'))
    journal.add(record('/b'))
    journal.add(record('/c'))
    expect(journal.clear()).toBe(2)
    expect(journal.read()).toMatchObject({ recorded: 0, evicted: 0, entries: [] })
    journal.add(record('/d'))
    expect(journal.read().entries.map((e) => [e.url, e.seq])).toEqual([['/d', 4]])
  })

  it('shows bodies only when asked, redacted, and parses JSON replies', () => {
    const journal = createJournal({ capacity: 2, bodyLimit: 1000 })
    journal.add(
      record('/sign-in?x=1', {
        requestHeaders: { sessiontoken: 'abc', accept: ['a', 'b'] },
        requestBody: { kept: true, value: { userName: 'u', Password: 'p' } },
        responseType: 'application/json',
        responseBody: { kept: true, value: '{"SessionToken":"t","nested":[{"password":"q"}]}' },
      }),
    )
    const [plain] = journal.read().entries
    expect(plain?.request).toBeUndefined()
    expect(plain?.path).toBe('/sign-in')
    const [entry] = journal.read({ bodies: true }).entries
    expect(entry?.request).toEqual({ headers: { sessiontoken: REDACTED, accept: 'a, b' }, body: { userName: 'u', Password: REDACTED } })
    expect(entry?.response).toEqual({ contentType: 'application/json', body: { SessionToken: REDACTED, nested: [{ password: REDACTED }] } })
  })

  it('refuses a capacity below one', () => {
    expect(() => createJournal({ capacity: 0, bodyLimit: 0 })).toThrow(RangeError)
  })

  it('matches a pattern over what it kept, before limit; a body it did not keep matches no body pattern', async () => {
    const journal = createJournal({ capacity: 10, bodyLimit: 1024 })
    const save = (customer: string, extra: Partial<JournalRecord> = {}): JournalRecord =>
      record('/save', {
        operationId: 'saveItems',
        requestHeaders: {},
        requestBody: { kept: true, value: { Rows: [{ Row: { Customer: customer } }] } },
        ...extra,
      })
    journal.add(save('Initech'))
    journal.add(save('Initek'))
    journal.add(save('Initech', { requestBody: { kept: false, note: '[chunked]' } }))
    journal.add(save('Initech', { user: 'admin@acme.test' }))
    const match = { body: { Rows: [{ Row: { Customer: 'Initech' } }] } }
    expect(journal.read({ match }).entries.map((e) => e.seq)).toEqual([1, 4])
    expect(journal.read({ match, limit: 1 }).entries.map((e) => e.seq)).toEqual([4])
    expect(journal.read({ match: { user: 'admin@acme.test' } }).entries.map((e) => e.seq)).toEqual([4])
    expect((await journal.readSliced({ match, limit: 1 })).entries.map((e) => e.seq)).toEqual([4])
    const found = await journal.search({ operationId: 'saveItems', match }, { nearMisses: 5 })
    expect(found.matches.map((e) => e.seq)).toEqual([1, 4])
    expect(found.nearMisses.map((m) => [m.seq, m.differences.map((d) => `${d.pointer} ${d.actual}`)])).toEqual([
      [3, ['/body [chunked]']],
      [2, ['/body/Rows/0/Row/Customer "Initek"']],
    ]) // equally far (0.5): the newer first
    expect(() => journal.read({ match: { body: { $near: 1 } } })).toThrow(/\/match\/body/)
  })

  it('settles when the exchanges begun before are finished, or after the bound', async () => {
    const journal = createJournal({ capacity: 10, bodyLimit: 0 })
    await journal.settled(1000) // nothing in flight: at once
    const first = {}
    const later = {}
    journal.begin(first)
    let settled = false
    const waiting = journal.settled(1000).then(() => (settled = true))
    journal.begin(later) // begun after: not waited for
    journal.finish(later)
    await new Promise((resolve) => setImmediate(resolve))
    expect(settled).toBe(false)
    journal.finish(first)
    await waiting
    // At the bound, with nothing finished: on the timer, which a fake clock moves.
    vi.useFakeTimers()
    try {
      const never = {}
      journal.begin(never)
      let done = false
      const bounded = journal.settled(50).then(() => (done = true))
      await vi.advanceTimersByTimeAsync(49)
      expect(done).toBe(false)
      await vi.advanceTimersByTimeAsync(1)
      await bounded
      // Not waited for again: slow on purpose, or never to finish.
      await journal.settled(50)
    } finally {
      vi.useRealTimers()
    }
  })

  it("settles when a waited exchange's client closes with no answer, and when the journal is cleared", async () => {
    const closers = new Map<object, () => void>()
    const gone = new Set<object>()
    const recorded: object[] = []
    const journal = createJournal({
      capacity: 10,
      bodyLimit: 0,
      abandoned: (token) => gone.has(token),
      recordAbandoned: (token) => recorded.push(token),
      whenClosed: (token, then) => {
        closers.set(token, then)
        return () => closers.delete(token)
      },
    })
    const left = {}
    journal.begin(left)
    const waiting = journal.settled(60_000)
    expect(closers.has(left)).toBe(true)
    gone.add(left)
    closers.get(left)?.()
    await waiting
    expect(recorded).toEqual([left])
    expect(closers.size).toBe(0)
    const cleared = {}
    journal.begin(cleared)
    const waitingForClear = journal.settled(60_000)
    journal.clear()
    await waitingForClear
  })
})

describe('the exchanges in flight', () => {
  it('cannot grow with exchanges their clients abandoned: past a bound, the abandoned ones are recorded and leave', () => {
    const recorded: object[] = []
    const journal = createJournal({
      capacity: 10,
      bodyLimit: 0,
      abandoned: (token) => (token as { gone: boolean }).gone,
      recordAbandoned: (token) => {
        recorded.push(token)
        journal.finish(token)
      },
    })
    const live = Array.from({ length: 100 }, () => ({ gone: false }))
    for (const token of live) journal.begin(token)
    for (let i = 0; i < 10_000; i++) journal.begin({ gone: true })
    // Live exchanges stay; the abandoned ones are swept once the set reaches its bound, so it never holds thousands.
    expect(journal.inFlight).toBeLessThan(1100)
    expect(recorded.length).toBeGreaterThan(8900)
    for (const token of live) expect(journal.finish(token)).toBe(true)
  })

  it('are forgotten by clear(): none begun before it is to be recorded after', () => {
    const journal = createJournal({ capacity: 10, bodyLimit: 0 })
    const before = {}
    journal.begin(before)
    journal.clear()
    expect(journal.inFlight).toBe(0)
    const after = {}
    journal.begin(after)
    expect(journal.finish(before)).toBe(false)
    expect(journal.finish(after)).toBe(true)
  })
})

describe('redaction', () => {
  it('replaces secret members at any depth and leaves empty ones visible', () => {
    expect(redactValue({ a: { access_token: 'x', refresh_token: '' }, list: [{ password: null }] })).toEqual({
      a: { access_token: REDACTED, refresh_token: '' },
      list: [{ password: null }],
    })
  })

  it('replaces Authorization, SessionToken and the control token headers', () => {
    expect(redactHeaders({ authorization: 'Bearer x', 'x-mock-control-token': 'y', sessiontoken: 'z', host: 'h' })).toEqual({
      authorization: REDACTED,
      'x-mock-control-token': REDACTED,
      sessiontoken: REDACTED,
      host: 'h',
    })
  })
})
