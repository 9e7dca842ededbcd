import { describe, expect, it } from 'vitest'
import { compareRuns } from '../../src/commands/compare/compare.ts'
import type { Exchange } from '../../src/commands/compare/recording.ts'
import { apiDocument } from '../../src/document/reader.ts'

function exchange(body: unknown, overrides: Partial<Exchange> = {}): Exchange {
  return {
    part: 'items.order',
    method: 'POST',
    path: '/ExplorerApi/api/items',
    status: 200,
    contentType: 'application/json; charset=utf-8',
    body: Buffer.from(JSON.stringify(body)),
    ...overrides,
  }
}

const rows = (n: number, customer: (i: number) => string | null = (i) => `Customer ${i}`) =>
  Array.from({ length: n }, (_, i) => ({
    Id: i + 1,
    TIMESTAMP: `AAAAAAAAAA${i}=`,
    Customer: customer(i),
    Amount: i * 1.5,
    DT_CREATION: `2026-01-0${(i % 9) + 1}T00:00:00Z`,
  }))

describe('compareRuns', () => {
  it('sets aside Ids, versions, times, tokens and row values', () => {
    const first = [exchange(rows(3)), exchange({ access_token: 'a', expires_in: 3600 }, { part: 'sign-in.token' })]
    const second = [exchange(rows(3, (i) => `Anonymised ${i * 7}`)), exchange({ access_token: 'b', expires_in: 60 }, { part: 'sign-in.token' })]
    expect(compareRuns(first, second, apiDocument())).toEqual([])
  })

  it.each([
    ['status', exchange(rows(1)), exchange({ status: 400 }, { status: 400, contentType: 'application/problem+json' }), 'status', '200', '400'],
    ['media type', exchange(rows(1)), exchange('x', { contentType: 'text/html' }), 'media type', 'application/json', 'text/html'],
    ['paging', exchange(rows(5)), exchange(rows(2)), 'paging', '/ 5 items', '/ 2 items'],
    ['a member', exchange(rows(1)), exchange(rows(1).map(({ Amount: _a, ...rest }) => rest)), 'shape', '/*/Amount present', '/*/Amount absent'],
    ['a JSON type', exchange([{ Id: 1, Amount: 1 }]), exchange([{ Id: 1, Amount: '1' }]), 'shape', '/*/Amount number', '/*/Amount string'],
    [
      'a count',
      exchange({ Items: [{ _FieldCount_: 25 }] }),
      exchange({ Items: [{ _FieldCount_: 24 }] }),
      'count',
      '/Items/*/_FieldCount_ count 25',
      '/Items/*/_FieldCount_ count 24',
    ],
    [
      'a flag',
      exchange({ IsSaveSuccessfully: true }),
      exchange({ IsSaveSuccessfully: false }),
      'flag',
      '/IsSaveSuccessfully boolean true',
      '/IsSaveSuccessfully boolean false',
    ],
  ])('reports a different %s, with the operation it was for', (_name, a, b, kind, first, second) => {
    expect(compareRuns([a], [b], apiDocument())).toEqual([
      { operationId: 'queryItems', part: 'items.order', index: 1, kind, first, second, request: 'POST /ExplorerApi/api/items' },
    ])
  })

  it('reports a contract that sent more requests to one side', () => {
    const differences = compareRuns([exchange([]), exchange([])], [exchange([])], apiDocument())
    expect(differences).toEqual([expect.objectContaining({ kind: 'requests', part: 'items.order', first: '2 requests', second: '1 requests' })])
  })
})
