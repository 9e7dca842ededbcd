import { load } from '../lib/load.ts'
import { dataHeaders, startMockServer } from '../lib/mock.ts'
import { stopServer } from '../lib/processes.ts'
import { fixed, holds, type Outcome } from '../lib/report.ts'
import type { Settings } from '../run.ts'

/** Bytes of one order with its two lines in the save below, its 1 KB or so of text included. */
const ORDER_BYTES = 1100

/** A save body of about `megabytes` MB (MiB): new orders of about 1 KB each, and two lines under each. */
export function bigSave(megabytes: number): string {
  const order = (i: number, text: string) => ({
    Row: { Id: -(i + 1), IdRow: null, TIMESTAMP: null, Customer: text, Amount: i, Status: 'New' },
    Details: [
      {
        RelationKey: 'OrderLines',
        Rows: [1, 2].map((j) => ({ Id: -(2 * i + j), IdRow: null, TIMESTAMP: null, Product: `Line ${j}`, Quantity: j, UnitPrice: 1.5 })),
      },
    ],
  })
  // The text that makes an order (with the widest Ids) ORDER_BYTES long, comma included.
  const count = Math.floor((megabytes * 1024 * 1024) / ORDER_BYTES)
  const text = 'x'.repeat(ORDER_BYTES - JSON.stringify(order(count, '')).length - 1)
  return JSON.stringify({ Rows: Array.from({ length: count }, (_, i) => order(i, text)) })
}

/** The target: small reads' p99 while the big save runs, ms. */
const P99_TARGET_MS = 250

/**
 * W7: a 59 MB save (just under the 60 MB limit) of 56 k orders with two lines each (169 k rows): how long
 * it takes to answer, and the p99 and slowest of small Get Items requests (`$top=10`, 5 connections)
 * sent meanwhile, next to the same reads alone. The reads run from half a second before the save
 * to half a second after its answer. The slowest read beside the save is about the longest time the mock
 * did nothing else: the save's longest synchronous step (its plan and apply, see docs/performance.md).
 * Latencies only: no throughput, so no generator ceiling.
 */
export async function bigSaves(settings: Settings): Promise<Outcome> {
  const mock = await startMockServer(settings.orders)
  try {
    const headers = await dataHeaders(mock.url)
    const small = (seconds: number) => ({
      url: mock.url,
      connections: 5,
      seconds,
      headers,
      requests: [{ method: 'POST' as const, path: '/ExplorerApi/api/items', body: JSON.stringify({ query: '$top=10' }) }],
    })
    const quiet = await load(small(settings.seconds))
    const body = bigSave(settings.bigSaveMb)
    // The reads run from half a second before the save to half a second after its answer (five minutes at most).
    const pause = () => new Promise((resolve) => setTimeout(resolve, 500))
    let answered: () => void = () => {}
    const saveDone = new Promise<void>((resolve) => (answered = resolve))
    const during = load({ ...small(300), until: saveDone.then(pause) })
    await pause()
    const begun = performance.now()
    const answer = await fetch(`${mock.url}/ExplorerApi/api/items/save`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body })
    const saved = (await answer.json()) as { IsSaveSuccessfully?: boolean; CreatedItems?: number }
    const ms = performance.now() - begun
    answered()
    const meanwhile = await during
    const table = {
      title: `W7: a ${(Buffer.byteLength(body) / 1024 / 1024).toFixed(1)} MB save (${saved.CreatedItems ?? 0} rows: orders with two lines each) beside small reads`,
      columns: ['measure', 'value'],
      rows: [
        ['save answered in (ms)', fixed(ms)],
        ['save succeeded', String(saved.IsSaveSuccessfully === true)],
        ['small Get Items p99 ms, alone', fixed(quiet.p99, 1)],
        ['small Get Items p99 ms, from 0.5 s before the save to 0.5 s after its answer', fixed(meanwhile.p99, 1)],
        ['small Get Items slowest ms, alone', fixed(quiet.max, 1)],
        ['small Get Items slowest ms, with the save (about its longest synchronous step)', fixed(meanwhile.max, 1)],
      ],
      notes: [
        `The save is read, parsed and checked a slice of rows at a time, yielding to the reads between slices; its plan and apply run in one synchronous step, so no read sees half of it (all or nothing). Target: the small reads' p99 ≤ ${P99_TARGET_MS} ms while it runs.`,
      ],
    }
    const p99 = meanwhile.p99
    return {
      tables: [table],
      checks: [
        {
          workload: 'W7',
          target: `small reads' p99 ≤ ${P99_TARGET_MS} ms while a ${settings.bigSaveMb} MB save runs`,
          figure: `${fixed(p99, 1)} ms (slowest ${fixed(meanwhile.max)} ms; the save answered in ${fixed(ms)} ms)`,
          verdict: saved.IsSaveSuccessfully !== true ? 'not measured: the save failed' : holds(p99 <= P99_TARGET_MS),
        },
      ],
    }
  } finally {
    await stopServer(mock)
  }
}
