/** The journal's ring buffer and redaction, without HTTP. */
import { describe, expect, it } from 'vitest'
import { createJournal, type JournalRecord } from '../../src/mock/control/journal-store.ts'
import { REDACTED, redactHeaders, redactValue } from '../../src/mock/control/redact.ts'

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
})

describe('redaction', () => {
  it('replaces secret members at any depth and leaves empty ones visible', () => {
    expect(redactValue({ a: { access_token: 'x', refresh_token: '' }, list: [{ password: null }] })).toEqual({ a: { access_token: REDACTED, refresh_token: '' }, list: [{ password: null }] })
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
