import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { rowVersion } from '../../../src/client/client.ts'
import { startBaseline, startCeiling } from '../lib/baselines.ts'
import { load, medianOf, type LoadResult, type LoadSpec } from '../lib/load.ts'
import { dataHeaders, items, probeMock, startMockServer, writeWorkspace } from '../lib/mock.ts'
import type { Server } from '../lib/processes.ts'
import { atLeast, fixed, ratio, rpsCell, type Check, type Outcome } from '../lib/report.ts'
import type { Settings } from '../run.ts'

/** More requests in a list than answers counted: each connection may have one in flight when the run stops. */
const SPARE = 100
const SAVE = '/ExplorerApi/api/items/save'
const ITEMS = '/ExplorerApi/api/items'

type Requests = LoadSpec['requests']
type Row = { Id: number; TIMESTAMP: string }

const updateBody = (row: Row, i: number) =>
  JSON.stringify({ Rows: [{ Row: { Id: row.Id, TIMESTAMP: rowVersion(row.TIMESTAMP), Amount: 10 + (i % 1000) }, Details: [] }] })

/** One-row updates, each of a row no earlier update touched, with the version it has now. */
function updates(rows: readonly Row[], from: number, count: number): Requests {
  return rows.slice(from, from + count).map((row, i) => ({ method: 'POST', path: SAVE, body: updateBody(row, i) }))
}

/** Reads of 200 rows in `order`, one before each one-row update. */
function readsWithUpdates(rows: readonly Row[], order: string, count: number): Requests {
  return updates(rows, 0, Math.ceil(count / 2)).flatMap((update, i) => [
    { method: 'POST' as const, path: ITEMS, body: JSON.stringify({ query: `$orderby=${order}&$top=200&$skip=${(i % 400) * 200}` }) },
    update,
  ])
}

/** One server of a comparison: how to start it fresh (with the headers its requests carry). */
interface Side {
  name: string
  start: () => Promise<{ server: Server; headers: Record<string, string>; cleanup?: () => void }>
}

/**
 * W4: one-row updates (each of another row, with its current TIMESTAMP) over 100 k orders, by the
 * mock as it is and by the mock keeping its data in a `--state-file`, against Fastify parsing the
 * same bodies and appending (creates of 300 rows are W4c, w4c-creates.ts). W4b: reads ordered by
 * `Id asc` and by a non-key field, 1:1 with one-row updates, against Fastify appending and slicing.
 * Every comparison also runs its requests against bare node:http answering the mock's own answers:
 * the load generator's ceiling. Each side runs on a fresh server every round, alternated, and
 * counts a fixed number of answers (so every update names a row with its current TIMESTAMP);
 * medians of the rounds.
 */
export async function writes(settings: Settings): Promise<Outcome> {
  const ROWS = settings.orders
  // Unmeasured updates before each measured run; a quick run keeps both short.
  const WARMUP = settings.quick ? 1000 : 5000
  const { dir, servers, stop, close } = writeWorkspace('w4')
  try {
    // A probe: every row with its TIMESTAMP, and the mock's answers the ceilings send back.
    const { answer } = await probeMock(ROWS, servers)
    const all = await answer(ITEMS, JSON.stringify({ query: `$top=${ROWS}` }))
    writeFileSync(join(dir, 'rows.json'), all)
    const rows = JSON.parse(all.toString('utf8')) as Row[]
    const answers = {
      update: await answer(SAVE, updateBody(rows[ROWS - 1] as Row, 0)),
      byId: await answer(ITEMS, JSON.stringify({ query: '$orderby=Id asc&$top=200' })),
      byAmount: await answer(ITEMS, JSON.stringify({ query: '$orderby=Amount desc&$top=200' })),
    }
    await stop()

    const amount = Math.min(ROWS - WARMUP - SPARE, (settings.quick ? 3000 : 10_000) * settings.seconds)
    const mockSide = (name: string, extra: () => { args: string[]; cleanup?: () => void } = () => ({ args: [] })): Side => ({
      name,
      start: async () => {
        const { args, cleanup } = extra()
        const server = await startMockServer(ROWS, args)
        const headers = await dataHeaders(server.url)
        // Orders a reader asks for are kept from the first read on; read once so the run measures keeping them.
        await items(server.url, headers, '$orderby=Amount desc&$top=1').then((response) => response.arrayBuffer())
        return cleanup === undefined ? { server, headers } : { server, headers, cleanup }
      },
    })
    const stateFile = () => {
      const folder = mkdtempSync(join(tmpdir(), 'appdata-kit-bench-state-'))
      return { args: ['--state-file', join(folder, 'state.json')], cleanup: () => rmSync(folder, { recursive: true, force: true }) }
    }
    const baseline: Side = { name: 'baseline', start: async () => ({ server: await startBaseline('fastify-append', join(dir, 'rows.json')), headers: {} }) }
    const ceiling = (bytes: Buffer, routes: Record<string, Buffer> = {}): Side => ({
      name: 'ceiling',
      start: async () => ({ server: await startCeiling('W4', bytes, routes), headers: {} }),
    })

    const cases: Array<{ name: string; sides: Side[]; requests: Requests; amount: number }> = [
      {
        name: 'one-row updates',
        sides: [mockSide('mock'), mockSide('mock --state-file', stateFile), baseline, ceiling(answers.update)],
        requests: updates(rows, 0, amount + SPARE),
        amount,
      },
      {
        name: 'reads by Id asc, 1:1 with updates',
        sides: [mockSide('mock'), baseline, ceiling(answers.update, { [ITEMS]: answers.byId })],
        requests: readsWithUpdates(rows, 'Id asc', amount + SPARE),
        amount,
      },
      {
        name: 'reads by Amount desc, 1:1 with updates',
        sides: [mockSide('mock'), baseline, ceiling(answers.update, { [ITEMS]: answers.byAmount })],
        requests: readsWithUpdates(rows, 'Amount desc', amount + SPARE),
        amount,
      },
    ]
    const tableRows: Array<Array<string | number>> = []
    const checks: Check[] = []
    for (const item of cases) {
      const runs = new Map<string, LoadResult[]>()
      for (let round = 0; round < settings.rounds; round++) {
        for (const side of item.sides) {
          const { server, headers, cleanup } = await side.start()
          servers.push(server)
          try {
            // Unmeasured first, on rows the measured run never touches: JIT warm-up lands in no figure.
            await load({
              url: server.url,
              connections: 50,
              seconds: settings.seconds,
              amount: WARMUP - SPARE,
              headers,
              requests: updates(rows, ROWS - WARMUP, WARMUP),
            })
            const result = await load({ url: server.url, connections: 50, seconds: settings.seconds, amount: item.amount, headers, requests: item.requests })
            runs.set(side.name, [...(runs.get(side.name) ?? []), result])
          } finally {
            await stop()
            cleanup?.()
          }
        }
      }
      const result = (name: string) => medianOf(runs.get(name) ?? [])
      const top = result('ceiling').rps
      const base = result('baseline').rps
      for (const side of item.sides.filter((s) => s.name.startsWith('mock'))) {
        const r = result(side.name)
        const name = side.name === 'mock' ? item.name : `${item.name}, ${side.name}`
        tableRows.push([
          name,
          rpsCell(r.rps, top),
          fixed(r.p50, 2),
          fixed(r.p99, 2),
          r.errors + r.non2xx,
          fixed(base),
          ratio(r.rps, base),
          fixed(top),
          ratio(r.rps, top),
        ])
      }
      const mockRps = result('mock').rps
      if (item.name === 'one-row updates') {
        const durable = result('mock --state-file').rps
        checks.push(
          {
            workload: 'W4',
            target: 'one-row updates ≥ 0.6× the append baseline',
            figure: `${fixed(mockRps)} req/s, ${ratio(mockRps, base)} of ${fixed(base)}`,
            verdict: atLeast({ value: mockRps, base, min: 0.6, ceiling: top }),
          },
          {
            workload: 'W4',
            target: 'one-row updates with `--state-file` (no target: the cost of durable state)',
            figure: `${fixed(durable)} req/s, ${ratio(durable, mockRps)} of the mock without it`,
            verdict: 'measured',
          },
        )
      }
      if (item.name.startsWith('reads'))
        checks.push({
          workload: 'W4b',
          target: `${item.name} ≥ 0.5× the baseline`,
          figure: `${fixed(mockRps)} req/s, ${ratio(mockRps, base)} of ${fixed(base)}`,
          verdict: atLeast({ value: mockRps, base, min: 0.5, ceiling: top }),
        })
    }
    return {
      tables: [
        {
          title: `W4 and W4b: writes over ${ROWS / 1000} k orders, 50 connections`,
          columns: [
            'workload',
            'mock req/s',
            'mock p50 ms',
            'mock p99 ms',
            'mock errors',
            'baseline req/s',
            'mock vs baseline',
            'ceiling req/s (node:http, same bytes)',
            'mock vs ceiling',
          ],
          rows: tableRows,
          notes: [
            `Each run counts ${amount} answers, after ${WARMUP - SPARE} unmeasured updates of other rows. Baseline: Fastify parsing each body and appending its rows to an array, and answering reads by slicing and \`JSON.stringify\`ing 200 rows (no order kept). Ceiling: bare node:http answering the mock's own answers (a one-row update's, the first page in that order). \`--state-file\`: the mock keeping its data in a file of a fresh temporary folder. Errors: socket errors, answers of 400 or more and saves answered with the flag false.`,
            'Targets: one-row updates ≥ 0.6× the baseline; reads 1:1 with updates ≥ 0.5× with either order.',
          ],
        },
      ],
      checks,
    }
  } finally {
    await close()
  }
}
