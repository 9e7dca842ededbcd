/**
 * The proxy judging on the calling thread (src/commands/proxy/judge-inline.ts): what a program that
 * embeds the proxy where no thread may start gets, and what `npm run mutate` runs the proxy's tests
 * with (test/proxy/support.ts). It judges as the judging thread does: the same finding for an
 * off-document answer, the same sign-in known, the usage recorded, every exchange judged.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runProxy } from '../../src/commands/cli/proxy.ts'
import { startJudgeInline } from '../../src/commands/proxy/judge-inline.ts'
import type { ProxyReport } from '../../src/commands/proxy/inspector.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { startInProcess } from '../cli/processes.ts'
import { getItems, json, named, plantedTarget, report, validRow } from './support.ts'

const dir = sharedTempDir('appdata-kit-proxy-inline-')

let target: Awaited<ReturnType<typeof plantedTarget>>
beforeAll(async () => {
  target = await plantedTarget({ 'text-id': (_request, response) => json(response, 200, [{ ...validRow(1), Id: 'one' }]) })
})
afterAll(() => target?.close())

describe('the proxy with its judge on the calling thread', () => {
  it('finds the off-document answer the judging thread finds, judges every exchange, records the usage and writes its report on stop', async () => {
    const [reportFile, usageFile] = [join(dir, 'report.json'), join(dir, 'usage.json')]
    const run = await startInProcess((io, stop) =>
      runProxy(['--target', target.url, '--port', '0', '--product-version', '3.0.19', '--report', reportFile, '--record-usage', usageFile], io, stop, {
        startJudge: startJudgeInline,
      }),
    )
    const base = run.url as string
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    for (const plant of ['valid', 'text-id', 'valid']) expect((await getItems(base, plant)).status).toBe(200)
    const live = await report({ url: base })
    expect(live.exchanges).toBe(3)
    expect(named(live.violations, 'answer', 'queryItems', '/body/*/Id')).toHaveLength(1)
    expect(live.notJudged.count).toBe(0)
    run.child.kill('SIGTERM')
    expect((await run.exited).code).toBe(1)
    const written = JSON.parse(readFileSync(reportFile, 'utf8')) as ProxyReport
    expect(named(written.violations, 'answer', 'queryItems', '/body/*/Id')[0]?.count).toBe(1)
    const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as { interactions: Array<{ operation: string }> }
    expect(usage.interactions.map((interaction) => interaction.operation)).toContain('queryItems')
  })
})
