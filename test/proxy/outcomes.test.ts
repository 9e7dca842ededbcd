/**
 * docs/proxy.md's table of outcomes, walked: each row (an outcome on one side) is made to happen
 * alone, through the proxy, by a client and a target of the test's own, and the proxy's exit code
 * and JUnit are held to what the row says under a `--fail-on` of its own side and of the other
 * side (and `--shed-load` where the row names it). The table is read from the page, so the page
 * and the code cannot drift apart.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { until } from '../helpers/until.ts'
import { ROOT, stopStarted } from '../cli/processes.ts'
import { getItems, json, plantedTarget, proxy, report, stop, validRow } from './support.ts'

const dir = sharedTempDir('appdata-kit-proxy-outcomes-')
afterEach(stopStarted)

type ExchangeSide = 'request' | 'answer'

interface Row {
  outcome: string
  side: ExchangeSide
  /** The --fail-on values under which it fails the run. */
  failsUnder: string[]
  /** Whether --shed-load keeps it from failing the run. */
  shed: boolean
  /** `failed-or-skipped` (a failed case when it fails the run, else skipped) or `passed`. */
  junit: 'failed-or-skipped' | 'passed'
  /** Where the JSON report holds it. */
  json: string
}

/** The table of docs/proxy.md's "What each outcome counts for". */
function table(): Row[] {
  const page = readFileSync(join(ROOT, 'docs/proxy.md'), 'utf8')
  const start = page.indexOf('### What each outcome counts for')
  expect(start).toBeGreaterThan(0)
  const lines = page
    .slice(start)
    .split('\n')
    .filter((line) => /^\| (violation|warning|not judged|broken exchange) \|/.test(line))
  return lines.map((line) => {
    const [outcome, side, , fails, junit, where] = line.split(' | ').map((cell) => cell.replace(/^\| |\|$/g, '').trim()) as string[]
    return {
      outcome: outcome as string,
      side: side as ExchangeSide,
      failsUnder: fails === 'never' ? [] : [...(fails as string).matchAll(/`(request|answer|any|none)`/g)].map((m) => m[1] as string),
      shed: (fails as string).includes('never with `--shed-load`'),
      junit: /^a failed case/.test(junit as string)
        ? 'failed-or-skipped'
        : /^passed/.test(junit as string)
          ? 'passed'
          : (() => {
              throw new Error(`JUnit cell not understood: ${junit}`)
            })(),
      json: where as string,
    }
  })
}

/** The held answers of the `silent` plant. */
const held: Array<() => void> = []

let target: Awaited<ReturnType<typeof plantedTarget>>
beforeAll(async () => {
  target = await plantedTarget({
    'off-document': (_request, response) => json(response, 200, [{ ...validRow(1), Id: 'one' }]),
    gateway: (_request, response) => json(response, 503, { title: 'Service Unavailable', status: 503 }),
    // An encoding the proxy does not decode, and no client runtime either (Node 24's fetch decodes
    // zstd, and would fail on these bytes): the answer passes unjudged.
    compress: (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'compress' })
      response.end('(compress)')
    },
    cut: (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' })
      response.write('[{"Id":1,', () => response.socket?.destroy())
    },
    silent: (_request, response) => held.push(() => response.socket?.destroy()),
  })
})
afterAll(async () => {
  for (const release of held) release()
  await target?.close()
})

/** How each row is made to happen alone: the client's exchange, and the flags it needs. */
const SCENARIOS: Record<string, { flags?: string[]; run(base: string): Promise<void> }> = {
  'violation request': { run: async (base) => void (await getItems(base, 'valid', { body: JSON.stringify({ query: 5 }) })).arrayBuffer() },
  'violation answer': { run: async (base) => void (await getItems(base, 'off-document')).arrayBuffer() },
  'warning request': { run: async (base) => void (await getItems(base, 'valid', { body: JSON.stringify({ query: '$top=1', extra: true }) })).arrayBuffer() },
  'warning answer': { run: async (base) => void (await getItems(base, 'gateway')).arrayBuffer() },
  // --check-limit of about 1 KB: the request's body is over it, the valid page's is not.
  'not judged request': {
    flags: ['--check-limit', '0.001'],
    run: async (base) => void (await getItems(base, 'valid', { body: JSON.stringify({ query: '$top=1', note: 'x'.repeat(2000) }) })).arrayBuffer(),
  },
  'not judged answer': { run: async (base) => void (await getItems(base, 'compress')).arrayBuffer() },
  'broken exchange request': {
    run: async (base) => {
      const gone = new AbortController()
      const before = held.length
      const asked = getItems(base, 'silent', { signal: gone.signal })
      await until(() => held.length > before, 'the target to hold the request')
      gone.abort()
      await expect(asked).rejects.toThrow()
    },
  },
  'broken exchange answer': { run: async (base) => void (await getItems(base, 'cut')).arrayBuffer().catch(() => undefined) },
}

/** Each case of a JUnit file by suite side and name: failed, skipped or passed. */
function junitCases(xml: string): Array<{ side: string; name: string; state: 'failed' | 'skipped' | 'passed' }> {
  return [...xml.matchAll(/<testcase classname="proxy\.(request|answer)" name="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g)].map((m) => ({
    side: m[1] as string,
    name: m[2] as string,
    state: /<failure\b/.test(m[3] ?? '') ? 'failed' : /<skipped\b/.test(m[3] ?? '') ? 'skipped' : 'passed',
  }))
}

describe("docs/proxy.md's table of outcomes", () => {
  const rows = table()

  it('has a row for each outcome on each side', () => {
    expect(rows.map((row) => `${row.outcome} ${row.side}`)).toEqual(Object.keys(SCENARIOS))
  })

  for (const row of rows) {
    it(`${row.outcome} on the ${row.side} side: fails under ${row.failsUnder.length === 0 ? 'no --fail-on' : row.failsUnder.join(', ')}${row.shed ? ' unless --shed-load' : ''}; JUnit ${row.junit}; in ${row.json}`, async () => {
      const scenario = SCENARIOS[`${row.outcome} ${row.side}`]
      expect(scenario, `${row.outcome} ${row.side}`).toBeDefined()
      const other: ExchangeSide = row.side === 'request' ? 'answer' : 'request'
      const runs: Array<{ failOn: string; shedLoad: boolean }> = [
        { failOn: row.side, shedLoad: false },
        { failOn: other, shedLoad: false },
        ...(row.shed ? [{ failOn: row.side, shedLoad: true }] : []),
      ]
      for (const { failOn, shedLoad } of runs) {
        const junit = join(dir, `${row.outcome.replace(' ', '-')}-${row.side}-${failOn}${shedLoad ? '-shed' : ''}.xml`)
        const run = await proxy(target.url, [
          '--product-version',
          '3.0.19',
          '--fail-on',
          failOn,
          '--junit',
          junit,
          ...(shedLoad ? ['--shed-load'] : []),
          ...(scenario?.flags ?? []),
        ])
        await scenario?.run(run.url)
        const found = await report(run)
        const label = `${row.outcome} ${row.side}, --fail-on ${failOn}${shedLoad ? ' --shed-load' : ''}`
        // The row happened, alone: where the JSON report holds it, and nothing else that fails a run.
        const mine = found.violations.filter((f) => f.side === row.side)
        if (row.json.startsWith('`notJudged`')) {
          expect(found.notJudged.sides, label).toEqual({ request: row.side === 'request' ? 1 : 0, answer: row.side === 'answer' ? 1 : 0 })
        } else {
          const severity = /"severity": "(violation|warning)"/.exec(row.json)?.[1]
          expect(
            mine.map((f) => f.severity),
            label,
          ).toContain(severity)
          expect(found.notJudged.count, label).toBe(0)
        }
        expect(
          found.violations.filter((f) => f.side === other),
          label,
        ).toEqual([])
        expect(
          found.violations.filter((f) => f.severity === 'violation' && row.json.startsWith('`notJudged`')),
          label,
        ).toEqual([])

        const fails = row.failsUnder.includes(failOn) && !(shedLoad && row.shed)
        expect(await stop(run), label).toBe(fails ? 1 : 0)
        const cases = junitCases(readFileSync(junit, 'utf8')).filter((c) => c.side === row.side && !c.name.startsWith('every '))
        const states = new Set(cases.map((c) => c.state))
        if (row.junit === 'passed') expect([...states], label).toEqual(['passed'])
        else {
          const own = row.outcome === 'not judged' ? cases.filter((c) => c.name.startsWith('not judged: ')) : cases.filter((c) => c.state !== 'passed')
          expect(own.length, label).toBeGreaterThan(0)
          expect(new Set(own.map((c) => c.state)), label).toEqual(new Set([fails ? 'failed' : 'skipped']))
        }
        expect(
          junitCases(readFileSync(junit, 'utf8')).filter((c) => c.side === other && c.state !== 'passed'),
          label,
        ).toEqual([])
      }
    }, 60_000)
  }
})
