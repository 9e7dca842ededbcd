import { load } from '../lib/load.ts'
import { dataHeaders, startMockServer } from '../lib/mock.ts'
import { stopServer } from '../lib/processes.ts'
import { fixed, type Outcome } from '../lib/report.ts'
import type { Settings } from '../run.ts'

/** A save body of about `megabytes` MB: new orders with 1 KB of text each. */
function bigSave(megabytes: number): string {
  const text = 'x'.repeat(1000)
  const count = Math.floor((megabytes * 1024 * 1024) / 1100)
  return JSON.stringify({ Rows: Array.from({ length: count }, (_, i) => ({ Row: { Id: -(i + 1), IdRow: null, TIMESTAMP: null, Customer: text, Amount: i, Status: 'New' }, Details: [] })) })
}

/**
 * W7: a 59 MB save (just under the 60 MB limit): how long it takes to answer, and the p99 of
 * small Get Items requests sent meanwhile, next to their p99 without it. Latencies only: no
 * throughput, so no generator ceiling.
 */
export async function bigSaves(settings: Settings): Promise<Outcome> {
  const mock = await startMockServer(settings.orders)
  try {
    const headers = await dataHeaders(mock.url)
    const small = { url: mock.url, connections: 5, seconds: settings.seconds, headers, requests: [{ method: 'POST' as const, path: '/ExplorerApi/api/items', body: JSON.stringify({ query: '$top=10' }) }] }
    const quiet = await load(small)
    const body = bigSave(settings.bigSaveMb)
    const during = load(small)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const begun = performance.now()
    const answer = await fetch(`${mock.url}/ExplorerApi/api/items/save`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body })
    const saved = (await answer.json()) as { IsSaveSuccessfully?: boolean; CreatedItems?: number }
    const ms = performance.now() - begun
    const meanwhile = await during
    const table = {
      title: `W7: a ${(Buffer.byteLength(body) / 1024 / 1024).toFixed(1)} MB save (${saved.CreatedItems ?? 0} orders) beside small reads`,
      columns: ['measure', 'value'],
      rows: [
        ['save answered in (ms)', fixed(ms)],
        ['save succeeded', String(saved.IsSaveSuccessfully === true)],
        ['small Get Items p99 ms, alone', fixed(quiet.p99, 1)],
        ['small Get Items p99 ms, while the save runs', fixed(meanwhile.p99, 1)],
        ['small Get Items slowest ms, alone', fixed(quiet.max, 1)],
        ['small Get Items slowest ms, while the save runs', fixed(meanwhile.max, 1)],
      ],
      notes: ['The save is parsed, checked and written in one go (all or nothing), so reads wait for it: the p99 beside it shows how long.'],
    }
    return { tables: [table], checks: [] }
  } finally {
    await stopServer(mock)
  }
}
