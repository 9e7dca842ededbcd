import { alternate, load, median, type LoadSpec } from '../lib/load.ts'
import { dataHeaders, items, startMockServer } from '../lib/mock.ts'
import { stopServer, type Server } from '../lib/processes.ts'
import { fixed, holds, ratio, type Outcome } from '../lib/report.ts'
import type { Settings } from '../run.ts'

const ITEMS = '/ExplorerApi/api/items'
const SAVE = '/ExplorerApi/api/items/save'
/** The probes' target: the slowest small read while a case runs, ms. */
const SLOWEST_TARGET_MS = 50
/** Pairs of runs behind the rules' cost on another operation (a 10 % question, like W1's log). */
const PAIRS = 5
const LIVE_RULES = 500

/** An answer rule of the largest pattern (1,000 values less a few) for saveItems, with an answer that brings it to `bytes`. */
function largestRule(n: number, bytes: number): unknown {
  const rows = Array.from({ length: 100 }, (_, i) => ({ Row: { Customer: `Customer ${n}-${i}`, Amount: i, Status: 'Open', Id: -(i + 1) } }))
  const rule = {
    operationId: 'saveItems',
    match: { body: { Rows: rows } },
    answer: { status: 200, headers: { 'Content-Type': 'text/plain' }, body: '' },
    offDocument: true,
  }
  rule.answer.body = 'x'.repeat(Math.max(0, bytes - JSON.stringify(rule).length - 200))
  return rule
}

async function control(url: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const answer = await fetch(`${url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
  const text = await answer.text()
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${text.slice(0, 300)}`)
  return text === '' ? null : JSON.parse(text)
}

/**
 * W10: what answer rules cost. (a) Get Items (W1's page) on a mock holding 500 rules of the largest
 * size for another operation, against the same mock without rules, in back-to-back pairs: rules are
 * kept by operation, so they should cost nothing measurable (target: within 10 %). (b) The cases that
 * once froze or stalled the mock (issue "Rules you can trust"), each run while small reads go on
 * beside it: the slowest small read is about the longest time the mock did nothing else (target:
 * 50 ms). (c) 50 rules of the largest pattern on Get Items itself, against none (no target: those
 * rules are matched on every read).
 */
export async function rules(settings: Settings): Promise<Outcome> {
  const servers: Server[] = []
  try {
    const orders = Math.min(settings.orders, 100_000)
    // The two differ in their rules alone: the journal keeps bodies up to 64 KB in both (W1's page is
    // 53 KB), which the journal probes below need and which costs a read by itself.
    const flags = ['--journal-body-limit', String(64 * 1024)]
    const plain = await startMockServer(orders, flags)
    const ruled = await startMockServer(orders, flags)
    servers.push(plain, ruled)
    const plainHeaders = await dataHeaders(plain.url)
    const ruledHeaders = await dataHeaders(ruled.url)
    const query = `$top=200&$skip=${orders / 2}`
    for (const [server, headers] of [
      [plain, plainHeaders],
      [ruled, ruledHeaders],
    ] as const)
      await (await items(server.url, headers, query)).arrayBuffer()
    const perRule = Math.floor((16 * 1024 * 1024) / LIVE_RULES) - 512
    for (let n = 0; n < LIVE_RULES; n++) await control(ruled.url, 'POST', '/__mock/stubs', largestRule(n, perRule))
    const page = (server: Server, headers: Record<string, string>) => (): LoadSpec => ({
      url: server.url,
      connections: 50,
      seconds: settings.seconds,
      headers,
      requests: [{ method: 'POST', path: ITEMS, body: JSON.stringify({ query }) }],
    })
    const pairs: number[] = []
    for (let round = 0; round < (settings.quick ? 1 : PAIRS); round++) {
      const a = await load((round % 2 === 0 ? page(plain, plainHeaders) : page(ruled, ruledHeaders))())
      const b = await load((round % 2 === 0 ? page(ruled, ruledHeaders) : page(plain, plainHeaders))())
      pairs.push(round % 2 === 0 ? b.rps / a.rps : a.rps / b.rps)
    }
    const otherOperation = median(pairs)
    await control(ruled.url, 'DELETE', '/__mock/stubs')

    // (b) each case beside small reads.
    const small = (seconds: number, until?: Promise<unknown>): LoadSpec => ({
      url: ruled.url,
      connections: 5,
      seconds,
      headers: ruledHeaders,
      ...(until === undefined ? {} : { until }),
      requests: [{ method: 'POST', path: ITEMS, body: JSON.stringify({ query: '$top=10' }) }],
    })
    const alone = await load(small(settings.seconds))
    const post = (path: string, body: unknown) =>
      fetch(`${ruled.url}${path}`, { method: 'POST', headers: { ...ruledHeaders, 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) =>
        r.arrayBuffer(),
      )
    const get = (path: string) => fetch(`${ruled.url}${path}`).then((r) => r.arrayBuffer())
    const long = 'a'.repeat(50_000)
    const rows1500 = {
      Rows: Array.from({ length: 1_500 }, (_, i) => ({
        Row: { Id: -(i + 1), IdRow: null, TIMESTAMP: null, Customer: `Bulk ${i}`, Amount: i, Status: 'Open' },
        Details: [],
      })),
    }
    // `bound`: the case is a baseline, not a former freeze; `against`: the case is judged by what it adds to that baseline's slowest read.
    const cases: Array<{ name: string; setup?: () => Promise<unknown>; run: () => Promise<unknown>; bound?: true; against?: true }> = [
      {
        name: "a rule `a*a*a*a*a*a*b` on Get Items, 200 queries of 200 a's",
        setup: () =>
          control(ruled.url, 'POST', '/__mock/stubs', {
            operationId: 'queryItems',
            match: { body: { query: { $regex: 'a*a*a*a*a*a*b' } } },
            answer: { body: [] },
          }),
        run: async () => {
          for (let i = 0; i < 200; i++) await post(ITEMS, { query: `$top=1&$filter=Status eq '${'a'.repeat(200)}'` })
        },
      },
      {
        name: 'a rule `(a|a)*$` on Get Items, 100 bodies of 50 KB',
        setup: () =>
          control(ruled.url, 'POST', '/__mock/stubs', { operationId: 'queryItems', match: { body: { query: { $regex: '^(a|a)*$' } } }, answer: { body: [] } }),
        run: async () => {
          for (let i = 0; i < 100; i++) await post(ITEMS, { query: long })
        },
      },
      {
        name: '`(a|a)*$` in `GET /__mock/requests?match=` over a journal of 1,000 bodies of 50 KB',
        setup: async () => {
          for (let i = 0; i < 1_000; i++) await post(ITEMS, { query: long })
        },
        run: () => get(`/__mock/requests?match=${encodeURIComponent(JSON.stringify({ body: { query: { $regex: '(a|a)*b$' } } }))}`),
      },
      {
        name: 'the same in `GET /__mock/requests/near-misses`',
        run: () => get(`/__mock/requests/near-misses?match=${encodeURIComponent(JSON.stringify({ body: { query: { $regex: '(a|a)*b$' } } }))}`),
      },
      {
        // The bound the next case is read against: what the save costs the others with no rule at all.
        name: "the same save of 1,500 rows with no rule (the save's own cost)",
        run: () => post(SAVE, rows1500),
        bound: true,
      },
      {
        name: 'a rule of 100 array elements against a save of 1,500 rows',
        setup: () =>
          control(ruled.url, 'POST', '/__mock/stubs', {
            operationId: 'saveItems',
            match: { body: { Rows: Array.from({ length: 100 }, (_, i) => ({ Row: { Customer: `Bulk ${1_499 - i}` } })) } },
            answer: { patch: { LockedItems: 0 } },
          }),
        run: () => post(SAVE, rows1500),
        against: true,
      },
    ]
    const rows: string[][] = []
    let worst = 0
    let bound = 0
    for (const probe of cases) {
      await probe.setup?.()
      let finished: () => void = () => {}
      const done = new Promise<void>((resolve) => (finished = resolve))
      const beside = load(small(300, done))
      await new Promise((resolve) => setTimeout(resolve, 300))
      const begun = performance.now()
      await probe.run()
      const ms = performance.now() - begun
      finished()
      const meanwhile = await beside
      if (probe.bound) bound = meanwhile.max
      else worst = Math.max(worst, probe.against ? meanwhile.max - bound : meanwhile.max)
      rows.push([probe.name, fixed(ms), fixed(meanwhile.p99, 1), fixed(meanwhile.max, 1)])
      await control(ruled.url, 'DELETE', '/__mock/stubs')
    }
    await control(ruled.url, 'DELETE', '/__mock/requests')

    // (c) 50 rules of the largest pattern on Get Items itself.
    for (let n = 0; n < 50; n++) {
      const rule = largestRule(n, 4096) as { operationId: string; match: unknown }
      rule.operationId = 'queryItems'
      rule.match = { body: { query: { $contains: `never-${n}` }, extra: (largestRule(n, 0) as { match: { body: unknown } }).match.body } }
      await control(ruled.url, 'POST', '/__mock/stubs', rule)
    }
    const sameOperation = await alternate(
      [
        { name: 'no rules', spec: page(plain, plainHeaders) },
        { name: '50 rules of the largest pattern on Get Items', spec: page(ruled, ruledHeaders) },
      ],
      settings.rounds,
    )
    const noRules = sameOperation.get('no rules')?.rps ?? 0
    const fifty = sameOperation.get('50 rules of the largest pattern on Get Items')?.rps ?? 0
    return {
      tables: [
        {
          title: `W10: answer rules (${orders / 1000} k orders, W1's page, 50 connections)`,
          columns: ['measure', 'value'],
          rows: [
            [
              `Get Items with ${LIVE_RULES} rules of the largest size on saveItems, against none (median of ${pairs.length} pairs)`,
              `${otherOperation.toFixed(3)}× (${pairs.map((r) => r.toFixed(2)).join(', ')})`,
            ],
            [
              'Get Items with 50 rules of the largest pattern on Get Items itself, against none',
              `${ratio(fifty, noRules)} (${fixed(fifty)} against ${fixed(noRules)} req/s)`,
            ],
            ['small Get Items p99 / slowest ms, alone', `${fixed(alone.p99, 1)} / ${fixed(alone.max, 1)}`],
          ],
          notes: [
            `Rules are kept by operation: ${LIVE_RULES} rules of the largest pattern (1,000 values) on another operation should cost a read nothing measurable (target: ≥ 0.9×). Rules on the operation itself are matched on every request of it; each of the 50 asks for a member the query body lacks, the cheapest miss.`,
          ],
        },
        {
          title: 'W10: the cases that once froze or stalled the mock, beside small reads ($top=10, 5 connections)',
          columns: ['case', 'took ms', 'small reads p99 ms', 'small reads slowest ms'],
          rows,
          notes: [
            `The slowest small read is about the longest time the mock did nothing else (target: ≤ ${SLOWEST_TARGET_MS} ms; for the rule on the save, what it adds to the slowest read beside the same save with no rule, whose JSON body, checks and 1,500 new rows are the save's own cost, the one W7 bounds). Before: minutes (the expressions), 18 s (the journal), 6.8 s (a 1,500-element pattern, now refused at the door: the widest is 100).`,
          ],
        },
      ],
      checks: [
        {
          workload: 'W10',
          target: `Get Items with ${LIVE_RULES} rules of the largest size on another operation ≥ 0.9× of none`,
          figure: `${otherOperation.toFixed(3)}×, the median of ${pairs.length} paired runs`,
          verdict: holds(otherOperation >= 0.9),
        },
        {
          workload: 'W10',
          target: `the slowest small read beside each former freeze ≤ ${SLOWEST_TARGET_MS} ms (the save's: beyond the same save without the rule)`,
          figure: `${fixed(worst, 1)} ms at worst (alone: ${fixed(alone.max, 1)} ms; the 1,500-row save without a rule: ${fixed(bound, 1)} ms)`,
          verdict: holds(worst <= SLOWEST_TARGET_MS),
        },
      ],
    }
  } finally {
    for (const server of servers) await stopServer(server)
  }
}
