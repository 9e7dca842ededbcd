/**
 * Judging never holds forwarding, and the proxy always stops. A target of the test's own plants
 * one huge answer that fits no schema (a wrong type in every row of a 12 MB page: judging it once
 * took minutes, on the thread that forwards); while it is judged, other exchanges pass and the
 * proxy's loop stays free (measured with `monitorEventLoopDelay` in its own process, the test's, with
 * the proxy started in it as a program would); SIGTERM writes every report within 2 s, well formed,
 * with what was judged so far and the exchanges still waiting counted as not judged (`stopped`).
 */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { Browser } from 'playwright-core'
import { launchChromium } from '../helpers/browser.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { stopStarted } from '../cli/processes.ts'
import { runProxy } from '../../src/commands/cli/proxy.ts'
import type { ProxyReport } from '../../src/commands/proxy/inspector.ts'
import { getItems, json, plantedTarget, proxy, report, validRow } from './support.ts'

const dir = sharedTempDir('appdata-kit-proxy-stop-')
afterEach(stopStarted)

/** Far above a loaded machine's worst block (tens of ms), far below the seconds and minutes judging the huge page took. */
const LONGEST_BLOCK_MS = 500
/** The promise of SIGTERM and SIGINT: every report written within this, whatever is being judged. */
const STOP_MS = 2000

/**
 * A page of Get Items, 40 MB (under the --check-limit of 64 the proxies here are started with, so it
 * is judged), with `Id` as text in every row: each row a violation. Judging it is linear (a 13 MB
 * page takes about 0.7 s on a quiet machine) but still takes well over the few requests the tests
 * send before they stop the proxy, so it is still being judged then.
 */
const CHECK_LIMIT = ['--check-limit', '64']
const HUGE = Buffer.from(JSON.stringify(Array.from({ length: 160_000 }, (_, i) => ({ ...validRow(i + 1), Id: `row ${i + 1}` }))))

let target: Awaited<ReturnType<typeof plantedTarget>>
let browser: Browser
beforeAll(async () => {
  target = await plantedTarget({
    huge: (_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(HUGE.length) })
      response.end(HUGE)
    },
    small: (_request, response) => json(response, 200, [validRow(7)]),
  })
  ;({ browser } = await launchChromium())
})
afterAll(async () => {
  await target?.close()
  await browser?.close()
})

/** Whether a text is well-formed XML (or HTML parses without losing its sections), as a browser reads it. */
async function parses(text: string, type: 'application/xml' | 'text/html'): Promise<{ errors: number; sections: number }> {
  const page = await browser.newPage()
  try {
    return await page.evaluate(
      ([source, kind]) => {
        // The browser's own parser (this file is typed without the DOM's names).
        type Parsed = { getElementsByTagName(name: string): { length: number }; querySelectorAll(selector: string): { length: number } }
        const { DOMParser: Parser } = globalThis as unknown as { DOMParser: new () => { parseFromString(text: string, type: string): Parsed } }
        const parsed = new Parser().parseFromString(source as string, kind as string)
        return { errors: parsed.getElementsByTagName('parsererror').length, sections: parsed.querySelectorAll('section, testsuite').length }
      },
      [text, type],
    )
  } finally {
    await page.close()
  }
}

describe('appdata-kit proxy while it judges a huge answer', () => {
  it('passes other exchanges meanwhile, and on SIGTERM writes every report within 2 s, well formed, counting what was still being judged as stopped', async () => {
    expect(HUGE.length).toBeGreaterThan(38 * 1024 * 1024)
    const files = { report: join(dir, 'stop.json'), junit: join(dir, 'stop.xml'), html: join(dir, 'stop.html'), usage: join(dir, 'stop-usage.json') }
    const run = await proxy(target.url, [
      '--product-version',
      '3.0.19',
      ...CHECK_LIMIT,
      '--report',
      files.report,
      '--junit',
      files.junit,
      '--html',
      files.html,
      '--record-usage',
      files.usage,
    ])
    // One exchange judged before: the reports hold what was judged.
    expect((await getItems(run.url, 'small')).status).toBe(200)
    expect((await report(run)).violations).toEqual([])

    const huge = await getItems(run.url, 'huge')
    expect(Buffer.from(await huge.arrayBuffer()).equals(HUGE)).toBe(true)
    // While the page is judged, exchanges pass, and the proxy's own endpoints answer.
    for (let i = 0; i < 5; i++) expect(await (await getItems(run.url, 'small')).json()).toEqual([validRow(7)])
    expect((await fetch(`${run.url}/__proxy/health`)).status).toBe(200)

    const signalled = performance.now()
    run.child.kill('SIGTERM')
    const { code, at } = await run.exited
    expect(at - signalled).toBeLessThan(STOP_MS)
    // An exchange not judged fails the answer side (--fail-on answer, the default).
    expect(code).toBe(1)
    for (const file of Object.values(files)) expect(existsSync(file), file).toBe(true)

    const written = JSON.parse(readFileSync(files.report, 'utf8')) as ProxyReport
    expect(written).toMatchObject({ exchanges: 7, violations: [], notJudged: { count: 6, reasons: { stopped: 6 }, sides: { request: 6, answer: 6 } } })
    const usage = JSON.parse(readFileSync(files.usage, 'utf8')) as { interactions: Array<{ operation: string; count: number }> }
    expect(usage.interactions).toMatchObject([{ operation: 'queryItems', count: 1 }])
    expect(await parses(readFileSync(files.junit, 'utf8'), 'application/xml')).toEqual({ errors: 0, sections: 2 })
    expect(readFileSync(files.junit, 'utf8')).toMatch(
      /<testcase classname="proxy.answer" name="not judged: stopped"[^>]*>\s*<failure message="6 exchange\(s\) passed with their answer not judged; 6 for this reason: the proxy stopped before it was judged"/,
    )
    const html = readFileSync(files.html, 'utf8')
    expect(await parses(html, 'text/html')).toMatchObject({ errors: 0 })
    expect(html).toContain('<code>stopped</code> 6: the proxy stopped before it was judged')
    expect(run.stdout).toContain('NOT JUDGED: 6 exchange(s) (requests 6, answers 6): 6 stopped')
    expect(run.stdout).toContain('--fail-on answer: exit 1')
  }, 60_000)

  it('with --shed-load, counts the exchanges left unjudged without failing the run', async () => {
    const files = { report: join(dir, 'shed.json') }
    const run = await proxy(target.url, ['--product-version', '3.0.19', ...CHECK_LIMIT, '--report', files.report, '--shed-load'])
    expect((await (await getItems(run.url, 'huge')).arrayBuffer()).byteLength).toBe(HUGE.length)
    const signalled = performance.now()
    run.child.kill('SIGTERM')
    const { code, at } = await run.exited
    expect(at - signalled).toBeLessThan(STOP_MS)
    expect(code).toBe(0)
    expect(JSON.parse(readFileSync(files.report, 'utf8'))).toMatchObject({ exchanges: 1, violations: [], notJudged: { count: 1, reasons: { stopped: 1 } } })
    expect(run.stdout).toContain('(--shed-load: they do not fail the run)')
  }, 60_000)

  it("started in a program's own process, keeps that process's loop free while it judges, and stops within 2 s", async () => {
    let out = ''
    let listening: (url: string) => void = () => undefined
    const url = new Promise<string>((resolve) => (listening = resolve))
    let signal: () => void = () => undefined
    const stopped = new Promise<void>((resolve) => (signal = resolve))
    const reportFile = join(dir, 'in-process.json')
    const exited = runProxy(
      ['--target', target.url, '--port', '0', '--product-version', '3.0.19', ...CHECK_LIMIT, '--report', reportFile],
      {
        stdout: (text) => {
          out += text
          const found = /listening on (\S+)/.exec(out)
          if (found !== null) listening(found[1] as string)
        },
        stderr: () => undefined,
      },
      stopped,
    )
    const base = await url
    // The judging thread loads (from the sources here): the first exchange waits for it, judged before the huge one comes.
    expect((await getItems(base, 'small')).status).toBe(200)
    const before = (await (await fetch(`${base}/__proxy/report`)).json()) as ProxyReport
    expect(before.notJudged.count).toBe(0)

    const loop = monitorEventLoopDelay({ resolution: 10 })
    loop.enable()
    try {
      const huge = await getItems(base, 'huge')
      expect((await huge.arrayBuffer()).byteLength).toBe(HUGE.length)
      for (let i = 0; i < 20; i++) expect((await getItems(base, 'small')).status).toBe(200)
      const signalled = performance.now()
      signal()
      expect(await exited).toBe(1)
      expect(performance.now() - signalled).toBeLessThan(STOP_MS)
    } finally {
      loop.disable()
    }
    expect(loop.max / 1e6).toBeLessThan(LONGEST_BLOCK_MS)
    // Every exchange is in the report: judged, or (if the thread had not finished the huge page and
    // those behind it within the second the stop grants it) counted as stopped, never anything else.
    // How many are left depends on the machine's speed; the test above counts them exactly.
    const written = JSON.parse(readFileSync(reportFile, 'utf8')) as ProxyReport
    expect(written.exchanges).toBe(22)
    expect(Object.keys(written.notJudged.reasons).filter((reason) => reason !== 'stopped')).toEqual([])
    expect(written.notJudged.count).toBe(written.notJudged.reasons.stopped ?? 0)
  }, 120_000)
})
