import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { baselineCommand, startCeiling } from '../lib/baselines.ts'
import { load, median, medianOf, type LoadResult, type LoadSpec } from '../lib/load.ts'
import { dataHeaders, items, probeMock, startMockServer, writeWorkspace } from '../lib/mock.ts'
import { rssMb, startServer, type Server } from '../lib/processes.ts'
import { atLeast, fixed, ratio, rpsCell, withTail, type Check, type Outcome } from '../lib/report.ts'
import type { Settings } from '../run.ts'

const SAVE = '/ExplorerApi/api/items/save'
const _ITEMS = '/ExplorerApi/api/items'
const CONNECTIONS = 16

/** A create of 100 orders with 2 lines each (temporary Ids: the same body creates new rows every time). */
export const CREATE = JSON.stringify({
  Rows: Array.from({ length: 100 }, (_, i) => ({
    Row: { Id: -(i + 1), IdRow: null, TIMESTAMP: null, Customer: `Bench ${i}`, Amount: i, Status: 'New' },
    Details: [
      {
        RelationKey: 'OrderLines',
        Rows: [1, 2].map((j) => ({ Id: -(j + i * 2), IdRow: null, TIMESTAMP: null, Product: `Line ${j}`, Quantity: j, UnitPrice: 1.5 })),
      },
    ],
  })),
})

/**
 * W4c's bound, the one every bench that reports W4c measures against (\`npm run bench\`, \`npm run
 * bench:compare -- REF --workload w4c\`): Fastify parsing the create body and appending its rows,
 * over the rows the mock starts with (\`rows\`, the mock's own answer to \`$top\` of every row,
 * written into \`dir\`). The command starts it from the project folder.
 */
export const W4C_BOUND = {
  name: 'Fastify parse + append',
  command(rows: Buffer, dir: string): string[] {
    writeFileSync(join(dir, 'rows.json'), rows)
    return baselineCommand('fastify-append', join(dir, 'rows.json'))
  },
}

/** Rows one create request adds: 100 orders and 200 lines. */
const ROWS_PER_REQUEST = 300
/** The target: at least this share of the append baseline's rate, with p99 at most P99_OVER_P50 × p50. */
const MIN_RATIO = 0.5
const P99_OVER_P50 = 10

/** What a run of W4c measured on one side, with the server's resident memory after it. */
interface Run {
  result: LoadResult
  rssMb: number
}

/**
 * W4c: creates of 100 orders with 2 lines each (300 rows a request), 16 connections, against
 * Fastify parsing the same body and appending its rows (the same-run baseline) and bare node:http
 * answering the mock's own create answer (the load generator's ceiling). The body is built once
 * and sent again and again: its Ids are temporary (-1 to -100 for the orders, -1 to -200 for the
 * lines), so every request creates 300 new rows. Every side starts fresh each round and counts a
 * fixed number of answers, so the rows a run adds are bounded whatever the rate (the mock's
 * resident memory after each run is in the table); medians of the rounds.
 */
export async function creates(settings: Settings): Promise<Outcome> {
  const ROWS = settings.orders
  // Unmeasured creates before each measured run (JIT warm-up), then the counted ones.
  const warmup = settings.quick ? 50 : 200
  const amount = settings.quick ? 200 : 2000
  const { dir, servers, stop, close } = writeWorkspace('w4c')
  try {
    // A probe: the rows the baseline starts with, and the mock's create answer the ceiling sends back.
    const { probe, headers: probeHeaders, answer: post } = await probeMock(ROWS, servers)
    const boundCommand = W4C_BOUND.command(Buffer.from(await (await items(probe.url, probeHeaders, `$top=${ROWS}`)).arrayBuffer()), dir)
    const answer = await post(SAVE, CREATE)
    if (!answer.toString('utf8').includes('"IsSaveSuccessfully":true'))
      throw new Error(`W4c: the mock refused the create: ${answer.toString('utf8').slice(0, 500)}`)
    await stop()

    const sides: Array<{ name: string; start: () => Promise<{ server: Server; headers: Record<string, string> }> }> = [
      {
        name: 'mock',
        start: async () => {
          const server = await startMockServer(ROWS)
          return { server, headers: await dataHeaders(server.url) }
        },
      },
      { name: 'baseline', start: async () => ({ server: await startServer(W4C_BOUND.name, boundCommand), headers: {} }) },
      { name: 'ceiling', start: async () => ({ server: await startCeiling('W4c', answer), headers: {} }) },
    ]
    const runs = new Map<string, Run[]>()
    for (let round = 0; round < settings.rounds; round++) {
      for (const side of sides) {
        const { server, headers } = await side.start()
        servers.push(server)
        try {
          const spec = (count: number): LoadSpec => ({
            url: server.url,
            connections: CONNECTIONS,
            seconds: settings.seconds,
            amount: count,
            headers,
            requests: [{ method: 'POST', path: SAVE, body: CREATE }],
          })
          await load(spec(warmup))
          const result = await load(spec(amount))
          runs.set(side.name, [...(runs.get(side.name) ?? []), { result, rssMb: rssMb(server.child.pid as number) }])
        } finally {
          await stop()
        }
      }
    }
    const result = (name: string) => medianOf((runs.get(name) ?? []).map((run) => run.result))
    const rss = (name: string) => median((runs.get(name) ?? []).map((run) => run.rssMb))
    const top = result('ceiling').rps
    const base = result('baseline').rps
    const mock = result('mock')
    const row = (name: string, r: LoadResult, memory: number) => [
      name,
      name === 'ceiling' ? fixed(r.rps) : rpsCell(r.rps, top),
      name === 'ceiling' ? '-' : fixed(r.rps * ROWS_PER_REQUEST),
      ratio(r.rps, base),
      fixed(r.p50, 2),
      fixed(r.p99, 2),
      r.p50 > 0 ? `${fixed(r.p99 / r.p50, 1)}×` : '-',
      r.errors + r.non2xx,
      fixed(memory),
    ]
    const check: Check = {
      workload: 'W4c',
      target: `creates of 300 rows ≥ ${MIN_RATIO}× Fastify parse + append; p99 ≤ ${P99_OVER_P50}× p50`,
      figure: `${fixed(mock.rps)} req/s, ${ratio(mock.rps, base)} of ${fixed(base)}; p50 ${fixed(mock.p50, 1)} ms, p99 ${fixed(mock.p99, 1)} ms (${mock.p50 > 0 ? fixed(mock.p99 / mock.p50, 1) : '-'}× p50)`,
      verdict: withTail(atLeast({ value: mock.rps, base, min: MIN_RATIO, ceiling: top }), mock, P99_OVER_P50),
    }
    return {
      tables: [
        {
          title: `W4c: creates of 100 orders + 200 lines (300 rows a request) over ${ROWS / 1000} k orders, ${CONNECTIONS} connections`,
          columns: ['server', 'req/s', 'rows/s', 'vs baseline', 'p50 ms', 'p99 ms', 'p99 / p50', 'errors', 'RSS MB after the run'],
          rows: [
            row('appdata-kit mock', mock, rss('mock')),
            row('baseline: Fastify parse + append', result('baseline'), rss('baseline')),
            row('ceiling', result('ceiling'), rss('ceiling')),
          ],
          notes: [
            `Each run counts ${amount} answers (${amount * ROWS_PER_REQUEST} new rows) after ${warmup} unmeasured creates, on a server started fresh for the round. One body, built once, sent on every request: its Ids are temporary, so each request creates 300 new rows. Baseline: Fastify parsing the body and appending its rows to an array. Ceiling: bare node:http answering the mock's create answer. Errors: socket errors, answers of 400 or more and saves answered with the flag false.`,
            `Target: the mock ≥ ${MIN_RATIO}× the baseline's req/s, with its p99 at most ${P99_OVER_P50}× its p50.`,
          ],
        },
      ],
      checks: [check],
    }
  } finally {
    await close()
  }
}
