import { textOf } from '../../src/bytes.ts'
import { rowGenerator } from '../../src/fixtures/generate.ts'
import { loadFixture } from '../../src/fixtures/load.ts'
import { parseQueryString } from '../../src/wire/query-string.ts'
import { createStore, type DataKeeper, type Store } from '../../src/store/store.ts'
import type { ChangeRecord, Deps, Fixture, ParsedQuery, Row } from '../../src/store/model/types.ts'

export const APP = 'a1b2c3d4-0000-4000-8000-000000000001'
export const MASTER_STORAGE = '5e7d0c1a-1111-4111-8111-000000000001'
export const DETAIL_STORAGE = '5e7d0c1a-1111-4111-8111-000000000002'
export const LINES = 'OrderLines'
export const NOW = Date.parse('2025-02-03T04:05:06.000Z')

/** The default fixture, read once per test file (tests must not change it: the store copies rows). */
export const defaultFixture: Fixture = loadFixture(new URL('../../fixtures/default.json', import.meta.url).pathname)

/** Fixed clock that can be moved forward; no randomness needed by the store. */
export function fixedDeps(start = NOW): Deps & { advance(ms: number): void } {
  let now = start
  return {
    now: () => now,
    randomBytes: (size) => new Uint8Array(size),
    advance(ms) {
      now += ms
    },
  }
}

export function newStore(fixture: Fixture = defaultFixture, deps: Deps = fixedDeps()): Store {
  return createStore(fixture, deps, rowGenerator)
}

/** A keeper that hands each change record to `record` and keeps every replaced data without writing it. */
export function recordingKeeper(record: (record: ChangeRecord) => void): DataKeeper {
  return {
    record,
    replace: () => {},
    prepareReplace: async () => ({ commit: () => {}, discard: () => {} }),
  }
}

/** A parsed query; fails the test on a parse error. */
export function q(text: string): ParsedQuery {
  const parsed = parseQueryString(text)
  if ('error' in parsed) throw new Error(`bad query in test: ${parsed.message}`)
  return parsed
}

/** Rows of a page, parsed; fails the test on a query error. */
export function rows(store: Store, text: string, relationKey: string | null = null, hidden: readonly string[] = []): Array<Record<string, unknown>> {
  const page = store.queryRows(APP, relationKey, q(text), hidden)
  if ('error' in page) throw new Error(`query failed in test: ${page.message}`)
  return JSON.parse(textOf(page.body)) as Array<Record<string, unknown>>
}

/** The row as the store keeps it (TIMESTAMP as the integer). */
export function row(store: Store, id: number, relationKey: string | null = null): Readonly<Row> {
  const found = store.getRow(APP, relationKey, id)
  if (found === null) throw new Error(`no ${relationKey ?? 'master'} row ${id}`)
  return found.row
}

/** Every row of every table as JSON text, to compare before and after a failed write. */
export function snapshot(store: Store): string {
  const all = q('')
  const parts = [null, LINES].map((key) => {
    const page = store.queryRows(APP, key, all, [])
    if ('error' in page) throw new Error(page.message)
    return textOf(page.body)
  })
  return parts.join('\n')
}
