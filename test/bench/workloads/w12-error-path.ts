import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBaseline } from '../lib/baselines.ts'
import { load, median, type LoadResult, type LoadSpec } from '../lib/load.ts'
import { dataHeaders, startMockServer } from '../lib/mock.ts'
import { onServerCore, ROOT, startServer, stopServer, type Server } from '../lib/processes.ts'
import { fixed, holds, type Check, type Outcome, type Table } from '../lib/report.ts'
import { grownUsage, recordFullUsage } from '../../upgrade/support.ts'
import type { Settings } from '../run.ts'

const ITEMS = '/ExplorerApi/api/items'
const SAVE = '/ExplorerApi/api/items/save'
/** The slowest small request beside any case, ms (the goal: nothing a client sends holds the others longer). */
const SLOWEST_TARGET_MS = 50
/** Time at 8n over time at n, at most: linear with room for what does not grow with the input. */
const GROWTH_TARGET = 10
/** The answer rules of the rules × query text family: the cap. */
const LIVE_RULES = 500

/** What one case took, and the small requests beside it. */
interface Measured {
  ms: number
  beside: LoadResult
}

/** A save of `n` master rows that fit no schema (a text Id, a text TIMESTAMP, a text where Details' array goes). */
export function invalidSave(n: number): string {
  return JSON.stringify({ Rows: Array.from({ length: n }, (_, i) => ({ Row: { Id: `x${i}`, TIMESTAMP: 'AAAA', Customer: 'C' }, Details: 'none' })) })
}

/** A page of Get Items of `n` rows with `Id` as text in every row: a realistic installation's answer with one wrong type per row. */
export function invalidPage(n: number): string {
  return JSON.stringify(
    Array.from({ length: n }, (_, i) => ({
      Id: String(i + 1),
      TIMESTAMP: 'AAAAAAAAA+k=',
      ROW_ORDER: i + 1,
      DT_CREATION: 20261101090000,
      DT_LAST_UPDATE: 20261101090000,
      USER_ID_CREATION: 1,
      USER_ID_LAST_UPDATE: 1,
      CT_ATTACHMENTS: 0,
      IdRow: i + 1,
      Customer: `Customer ${i}`,
      Amount: i,
      Status: 'Open',
    })),
  )
}

/**
 * Runs `work` while small requests go on beside it (wrk, 5 connections, from 0.3 s before to its end):
 * how long it took, and the small requests' latencies meanwhile. The slowest of them is about the
 * longest time the server did nothing else.
 */
async function beside(small: (until: Promise<unknown>) => LoadSpec, work: () => Promise<unknown>): Promise<Measured> {
  let finished: () => void = () => {}
  const done = new Promise<void>((resolve) => (finished = resolve))
  const running = load(small(done))
  await new Promise((resolve) => setTimeout(resolve, 300))
  const begun = performance.now()
  try {
    await work()
  } finally {
    finished()
  }
  const ms = performance.now() - begun
  return { ms, beside: await running }
}

/** `n, 2n, 4n, 8n` of a family: each size's time and slowest small request, and the growth from n to 8n. */
async function family(
  name: string,
  unit: string,
  n: number,
  measure: (size: number) => Promise<Measured>,
): Promise<{ rows: string[][]; growth: number; slowest: number }> {
  const sizes = [n, 2 * n, 4 * n, 8 * n]
  const times = new Map<number, number[]>()
  let slowest = 0
  const rows: string[][] = []
  // Three rounds, the sizes in turn, so a busy spell of the machine falls on every size alike; medians kept.
  const last = new Map<number, Measured>()
  for (let round = 0; round < 3; round++) {
    for (const size of sizes) {
      const measured = await measure(size)
      times.set(size, [...(times.get(size) ?? []), measured.ms])
      slowest = Math.max(slowest, measured.beside.max)
      last.set(size, measured)
    }
  }
  for (const size of sizes) {
    const measured = last.get(size) as Measured
    rows.push([
      name,
      `${size.toLocaleString('en')} ${unit}`,
      fixed(median(times.get(size) ?? []), 0),
      fixed(measured.beside.p99, 1),
      fixed(measured.beside.max, 1),
    ])
  }
  const growth = median(times.get(8 * n) ?? []) / median(times.get(n) ?? [])
  return { rows, growth, slowest }
}

/** One case at a single size beside small requests: its row. */
async function single(name: string, measure: () => Promise<Measured>): Promise<{ row: string[]; slowest: number }> {
  const measured = await measure()
  return { row: [name, fixed(measured.ms), fixed(measured.beside.p99, 1), fixed(measured.beside.max, 1)], slowest: measured.beside.max }
}

/** Runs the built command line to its end: its wall time, ms. */
function timedCli(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const [file, ...rest] = onServerCore([process.execPath, 'bin/appdata-kit.js', ...args]) as [string, ...string[]]
    const begun = performance.now()
    const child = spawn(file, rest, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    child.on('error', reject)
    child.on('close', (code) =>
      code === 0 || code === 1 ? resolve(performance.now() - begun) : reject(new Error(`appdata-kit ${args[0]} exited ${code}: ${stderr.slice(-500)}`)),
    )
  })
}

async function control(url: string, method: string, path: string, body?: unknown): Promise<void> {
  const answer = await fetch(`${url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
  const text = await answer.text()
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${text.slice(0, 300)}`)
}

/**
 * W12: the error path. Invalid input at growing sizes, each beside small requests: a save of rows
 * that fit no schema (the mock), a page of rows with a wrong type in every row (through the proxy),
 * a long query text against the 500 regex rules of Get Items (the mock), a usage file (`upgrade`,
 * no server); then the inputs within the limits that once held the others beyond 50 ms. Targets:
 * 8 times the input in at most 10 times the time (medians of three rounds), and no small request
 * beside any case beyond 50 ms.
 */
export async function errorPath(settings: Settings): Promise<Outcome> {
  const dir = mkdtempSync(join(tmpdir(), 'appdata-kit-bench-w12-'))
  const servers: Server[] = []
  const tables: Table[] = []
  const checks: Check[] = []
  try {
    const mock = await startMockServer(Math.min(settings.orders, 100_000))
    servers.push(mock)
    const headers = await dataHeaders(mock.url)
    const smallRead = (until: Promise<unknown>): LoadSpec => ({
      url: mock.url,
      connections: 5,
      seconds: 600,
      until,
      headers,
      requests: [{ method: 'POST', path: ITEMS, body: JSON.stringify({ query: '$top=10' }) }],
    })
    const post = async (path: string, body: string) => {
      const answer = await fetch(`${mock.url}${path}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body })
      await answer.arrayBuffer()
      return answer.status
    }
    const growthRows: string[][] = []
    const growthChecks: Array<{ name: string; growth: number; slowest: number }> = []

    // The invalid save: one 400 with a short list, in time linear in the rows.
    const n = settings.quick ? 1_000 : 8_000
    const bodies = new Map([n, 2 * n, 4 * n, 8 * n].map((size) => [size, invalidSave(size)]))
    const save = await family('a save of rows that fit no schema', 'rows', n, (size) => beside(smallRead, () => post(SAVE, bodies.get(size) as string)))
    growthRows.push(...save.rows)
    growthChecks.push({ name: 'the invalid save', growth: save.growth, slowest: save.slowest })

    // Rules × query text: the 500 rules of Get Items, each a $regex over the whole text, matched in slices.
    for (let i = 0; i < LIVE_RULES; i++)
      await control(mock.url, 'POST', '/__mock/stubs', {
        operationId: 'queryItems',
        match: { body: { query: { $regex: `never-${i}$` } } },
        answer: { body: [] },
      })
    const kb = settings.quick ? 16 : 128
    const texts = new Map(
      // Each a little under its size, so the largest stays within the text a $regex is matched against
      // (MAX_REGEX_SUBJECT, 1 MiB): a longer one matches no rule at once and measures nothing.
      [kb, 2 * kb, 4 * kb, 8 * kb].map((size) => [size, JSON.stringify({ query: `$top=1&$filter=Status eq '${'a'.repeat(size * 1024 - 64)}'` })]),
    )
    const rules = await family(`a query text against ${LIVE_RULES} $regex rules`, 'KB', kb, (size) =>
      beside(smallRead, () => post(ITEMS, texts.get(size) as string)),
    )
    growthRows.push(...rules.rows)
    growthChecks.push({ name: `rules × query text (${LIVE_RULES} rules)`, growth: rules.growth, slowest: rules.slowest })
    await control(mock.url, 'DELETE', '/__mock/stubs')

    // The invalid page through the proxy: a target of node:http answering it, small exchanges beside.
    const rowsN = settings.quick ? 1_000 : 5_000
    const pageFiles = [rowsN, 2 * rowsN, 4 * rowsN, 8 * rowsN].map((size) => {
      const file = join(dir, `page-${size}.json`)
      writeFileSync(file, invalidPage(size))
      return { size, file }
    })
    writeFileSync(join(dir, 'small.json'), '[]')
    // Small exchanges: a list of attachments answered `[]`; the big ones: Get Items answered the page its query names
    // (`?page5000`: the reference server routes by path and query up to the first `=`).
    const target = await startBaseline(
      'node-bytes',
      join(dir, 'small.json'),
      pageFiles.map((page) => `${ITEMS}?page${page.size}=${page.file}`),
    )
    servers.push(target)
    const proxy = await startServer('appdata-kit proxy', [
      process.execPath,
      'bin/appdata-kit.js',
      'proxy',
      '--target',
      target.url,
      '--port',
      '0',
      '--product-version',
      '3.0.19',
    ])
    servers.push(proxy)
    const smallExchange = (until: Promise<unknown>): LoadSpec => ({
      url: proxy.url,
      connections: 5,
      seconds: 600,
      until,
      headers,
      requests: [{ method: 'GET', path: '/ExplorerApi/api/attachments?$filter=ParentId%20eq%201', body: '' }],
    })
    const page = await family('a page of rows with a wrong type in each, through the proxy', 'rows', rowsN, (size) =>
      beside(smallExchange, async () => {
        const answer = await fetch(`${proxy.url}${ITEMS}?page${size}`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ query: '$top=10' }),
        })
        await answer.arrayBuffer()
      }),
    )
    growthRows.push(...page.rows)
    growthChecks.push({ name: 'the invalid page through the proxy', growth: page.growth, slowest: page.slowest })
    const report = (await (await fetch(`${proxy.url}/__proxy/report`)).json()) as { exchanges: number; notJudged?: { count: number } }

    // The usage file: `upgrade`, no server; its time alone.
    const recorded = await recordFullUsage(join(dir, 'recorded.json'), '3.0.19')
    const interactions = settings.quick ? 1_250 : 12_500
    const usageTimes = new Map<number, number[]>()
    for (const size of [interactions, 2 * interactions, 4 * interactions, 8 * interactions])
      writeFileSync(join(dir, `usage-${size}.json`), JSON.stringify(grownUsage(recorded, size)))
    for (let round = 0; round < 3; round++) {
      for (const size of [interactions, 2 * interactions, 4 * interactions, 8 * interactions]) {
        const ms = await timedCli([
          'upgrade',
          '--usage',
          join(dir, `usage-${size}.json`),
          '--to',
          '3.0.18',
          '--format',
          'json',
          '--out',
          join(dir, 'upgrade.json'),
        ])
        usageTimes.set(size, [...(usageTimes.get(size) ?? []), ms])
      }
    }
    for (const size of [interactions, 2 * interactions, 4 * interactions, 8 * interactions])
      growthRows.push(['`upgrade` over a usage file', `${size.toLocaleString('en')} interactions`, fixed(median(usageTimes.get(size) ?? [])), '-', '-'])
    const usageGrowth = median(usageTimes.get(8 * interactions) ?? []) / median(usageTimes.get(interactions) ?? [])

    tables.push({
      title: 'W12: the error path, each family at n, 2n, 4n and 8n, beside small requests (5 connections)',
      columns: ['family', 'size', 'took ms (median of 3)', 'small requests p99 ms', 'small requests slowest ms'],
      rows: growthRows,
      notes: [
        `Targets: 8 times the input in at most ${GROWTH_TARGET} times the time, and no small request beside a case beyond ${SLOWEST_TARGET_MS} ms. The sizes of a family are run in turn, three rounds, and the medians kept. Small requests: Get Items of 10 rows on the mock; a list of attachments through the proxy (its target answers it \`[]\`). The usage file is read by \`upgrade\` with no server: its time alone (a process each, start-up included).`,
        `The proxy's report after its family: ${report.exchanges} exchanges, notJudged ${report.notJudged?.count ?? 0}.`,
      ],
    })

    // The inputs within the limits that once held the others beyond 50 ms.
    const within: Array<{ name: string; run: () => Promise<unknown>; setup?: () => Promise<unknown>; teardown?: () => Promise<unknown> }> = [
      {
        name: 'a body at the 60 MB limit that is no save (`Rows` a 60 MB text)',
        run: () => post(SAVE, JSON.stringify({ Rows: 'x'.repeat(60 * 1024 * 1024 - 12) })),
      },
      { name: 'a 59 MB query text', run: () => post(ITEMS, JSON.stringify({ query: `$top=1&${'a'.repeat(59 * 1024 * 1024)}` })) },
      { name: 'a 10 MB query text', run: () => post(ITEMS, JSON.stringify({ query: `$top=1&${'a'.repeat(10 * 1024 * 1024)}` })) },
      // Refused at the nesting and members limits (src/http/json-limits.ts), scanned in slices.
      { name: 'a 40 MB body of `[` (20 million levels deep)', run: () => post(ITEMS, `${'['.repeat(20 * 1024 * 1024)}${']'.repeat(20 * 1024 * 1024)}`) },
      {
        name: 'a 44 MB body of one object with 3.7 million members',
        run: () => post(ITEMS, `{${Array.from({ length: 3_700_000 }, (_, i) => `"a${i}":1`).join(',')}}`),
      },
      {
        name: 'a save of 300,000 new rows',
        run: () =>
          post(
            SAVE,
            JSON.stringify({
              Rows: Array.from({ length: 300_000 }, (_, i) => ({
                Row: { Id: -(i + 1), IdRow: null, TIMESTAMP: null, Customer: `Bulk ${i}`, Amount: i, Status: 'Open' },
                Details: [],
              })),
            }),
          ),
      },
      {
        name: '`GET /__mock/stubs` with a 16 MB rule table',
        setup: async () => {
          const perRule = Math.floor((16 * 1024 * 1024) / LIVE_RULES) - 512
          for (let i = 0; i < LIVE_RULES; i++)
            await control(mock.url, 'POST', '/__mock/stubs', {
              operationId: 'saveItems',
              match: { body: { Rows: [{ Row: { Customer: `c${i}` } }] } },
              answer: { status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'x'.repeat(perRule) },
              offDocument: true,
            })
        },
        run: async () => (await fetch(`${mock.url}/__mock/stubs`)).arrayBuffer(),
        teardown: () => control(mock.url, 'DELETE', '/__mock/stubs'),
      },
      {
        name: 'adding one rule with 30 header regexes',
        run: () =>
          control(mock.url, 'POST', '/__mock/stubs', {
            operationId: 'queryItems',
            match: {
              headers: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`x-case-${i}`, { $regex: `^(a|b|c|d)*[0-9]{1,64}(x|y|z){2,32}${i}$` }])),
            },
            answer: { body: [] },
          }),
        teardown: () => control(mock.url, 'DELETE', '/__mock/stubs'),
      },
    ]
    const withinRows: string[][] = []
    let withinWorst = 0
    for (const item of within) {
      await item.setup?.()
      const measured = await single(item.name, () => beside(smallRead, item.run))
      withinRows.push(measured.row)
      withinWorst = Math.max(withinWorst, measured.slowest)
      await item.teardown?.()
    }
    // A 200,000-deep JSON answer through the proxy, beside small exchanges.
    const deep = join(dir, 'deep.json')
    writeFileSync(deep, `${'['.repeat(200_000)}${']'.repeat(200_000)}`)
    const deepTarget = await startBaseline('node-bytes', join(dir, 'small.json'), [`${ITEMS}?deep=${deep}`])
    servers.push(deepTarget)
    const deepProxy = await startServer('appdata-kit proxy (deep)', [
      process.execPath,
      'bin/appdata-kit.js',
      'proxy',
      '--target',
      deepTarget.url,
      '--port',
      '0',
      '--product-version',
      '3.0.19',
    ])
    servers.push(deepProxy)
    const deepSmall = (until: Promise<unknown>): LoadSpec => ({ ...smallExchange(until), url: deepProxy.url })
    const deepMeasured = await single('a 200,000-deep JSON answer through the proxy', () =>
      beside(deepSmall, async () =>
        (
          await fetch(`${deepProxy.url}${ITEMS}?deep`, {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body: JSON.stringify({ query: '$top=1' }),
          })
        ).arrayBuffer(),
      ),
    )
    withinRows.push(deepMeasured.row)
    withinWorst = Math.max(withinWorst, deepMeasured.slowest)
    tables.push({
      title: 'W12: inputs within the limits that once held the other clients beyond 50 ms',
      columns: ['case', 'took ms', 'small requests p99 ms', 'small requests slowest ms'],
      rows: withinRows,
      notes: [
        `Before (main a4456c3): a 60 MB body 133 ms, a 59 MB query text 781 ms, a 10 MB one 139 ms, a 300,000-row save 221 ms, the 16 MB rule table 91 ms, a rule with 30 header regexes 104 ms, the 200,000-deep answer 67–123 ms (the slowest small request beside each). Before the nesting and members limits (main 8ccdd05, one small request at a time beside it): the 40 MB of \`[\` 10.4 s, the 44 MB object 62 s.`,
      ],
    })

    for (const { name, growth, slowest } of growthChecks) {
      checks.push({
        workload: 'W12',
        target: `${name}: 8n in ≤ ${GROWTH_TARGET}× the time of n; small requests beside it ≤ ${SLOWEST_TARGET_MS} ms`,
        figure: `${growth.toFixed(2)}×; slowest ${fixed(slowest, 1)} ms`,
        verdict: holds(growth <= GROWTH_TARGET && slowest <= SLOWEST_TARGET_MS),
      })
    }
    checks.push({
      workload: 'W12',
      target: `the usage file: 8n interactions in ≤ ${GROWTH_TARGET}× the time of n (\`upgrade\`)`,
      figure: `${usageGrowth.toFixed(2)}× (${fixed(median(usageTimes.get(8 * interactions) ?? []))} ms for ${(8 * interactions).toLocaleString('en')})`,
      verdict: holds(usageGrowth <= GROWTH_TARGET),
    })
    checks.push({
      workload: 'W12',
      target: `every input within the limits: small requests beside it ≤ ${SLOWEST_TARGET_MS} ms`,
      figure: `${fixed(withinWorst, 1)} ms at worst`,
      verdict: holds(withinWorst <= SLOWEST_TARGET_MS),
    })
    checks.push({
      workload: 'W12',
      target: 'the proxy judged every exchange of its family (notJudged 0)',
      figure: `notJudged ${report.notJudged?.count ?? 0} of ${report.exchanges}`,
      verdict: holds((report.notJudged?.count ?? 0) === 0),
    })
    return { tables, checks }
  } finally {
    for (const server of servers) await stopServer(server)
    rmSync(dir, { recursive: true, force: true })
  }
}
