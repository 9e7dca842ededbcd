/**
 * `appdata-kit upgrade` over usages that differ from the full one, each recorded in this file: a
 * session that deletes nothing meets no finding on deletes; a usage recorded on a fixture of its
 * own gets, with --fixture, the findings the same client gets on the default fixture, and without
 * it is reported as unreplayable, never as unchanged (exit 2 when nothing else is found).
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { runUpgrade } from '../../src/commands/cli/upgrade.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { ownFixture, recordFullUsage, recordSessionWithoutDeletes, type JsonReport } from './support.ts'

const dir = sharedTempDir('appdata-kit-upgrade-variants-')

/** The command in this process (the CLI's own front), its JSON report and its exit code. */
async function upgradeHere(args: string[]): Promise<{ code: number; report: JsonReport; text: string; err: string }> {
  let out = ''
  let err = ''
  const io = { stdout: (text: string) => (out += text), stderr: (text: string) => (err += text) }
  const code = await runUpgrade([...args, '--format', 'json'], io)
  let text = ''
  await runUpgrade(args, { stdout: (t) => (text += t), stderr: () => undefined })
  return { code, report: JSON.parse(out) as JsonReport, text, err }
}

const summary = (report: JsonReport) => report.findings.map((f) => `${f.kind} ${f.operationId} ${f.breaks ? 'breaks' : 'warns'}`).sort()

describe('a usage without deletes', () => {
  it("gets no finding on deletes, and the flag's renaming on saves alone", async () => {
    const usage = join(dir, 'no-deletes.json')
    const recorded = await recordSessionWithoutDeletes(usage, '2.9')
    expect(recorded.interactions.some((i) => i.operation === 'deleteItems')).toBe(false)
    const { code, report } = await upgradeHere(['--usage', usage, '--to', '3.0.19'])
    expect(code).toBe(1)
    expect(report.findings.filter((f) => f.operationId.includes('deleteItems'))).toEqual([])
    expect(summary(report)).toEqual(['answer-renamed saveItems breaks', 'path-moved signInLegacy breaks', 'variant-gone queryItemsLegacy breaks'])
  }, 120_000)
})

describe('a usage file edited by hand', () => {
  it('is refused (exit 2) naming the interaction and the member a recorder never writes in that form', async () => {
    const usage = join(dir, 'edited.json')
    const recorded = await recordSessionWithoutDeletes(usage, '2.9')
    const index = recorded.interactions.findIndex((i) => i.operation === 'saveItems')
    ;(recorded.interactions[index]?.request as { rows: unknown }).rows = 'not a list of rows'
    writeFileSync(usage, JSON.stringify(recorded))
    let err = ''
    const code = await runUpgrade(['--usage', usage, '--to', '3.0.19'], { stdout: () => undefined, stderr: (text) => (err += text) })
    expect(code).toBe(2)
    expect(err).toContain(`--usage ${usage}: interaction ${index + 1} (/interactions/${index}/request/rows) is "not a list of rows"; it must be a list`)
  }, 120_000)
})

describe('a usage recorded on a fixture of its own', () => {
  const own = ownFixture(dir)
  const ownUsage29 = join(dir, 'own-2.9.json')
  const ownUsage319 = join(dir, 'own-3.0.19.json')
  const defaultUsage29 = join(dir, 'default-2.9.json')
  beforeAll(async () => {
    await recordFullUsage(ownUsage29, '2.9', own.connection)
    await recordFullUsage(ownUsage319, '3.0.19', own.connection)
    await recordFullUsage(defaultUsage29, '2.9')
  }, 180_000)

  it('gets with --fixture the findings the same client gets on the default fixture, none unreplayable, and no password of it in any output', async () => {
    const withFixture = await upgradeHere(['--usage', ownUsage29, '--to', '3.0.19', '--fixture', own.file])
    const onDefault = await upgradeHere(['--usage', defaultUsage29, '--to', '3.0.19'])
    expect(withFixture.code).toBe(1)
    expect(summary(withFixture.report)).toEqual(summary(onDefault.report))
    expect(summary(withFixture.report)).toHaveLength(4)
    expect(withFixture.report.findings.filter((f) => f.kind === 'unreplayable')).toEqual([])
    expect(withFixture.text).toContain(`fixture ${own.file}`)
    for (const output of [withFixture.text, JSON.stringify(withFixture.report)]) expect(output).not.toContain(own.connection.password)
  })

  it('is reported unreplayable without --fixture, naming --fixture, not as unchanged', async () => {
    const { code, report, text } = await upgradeHere(['--usage', ownUsage29, '--to', '3.0.19'])
    const unreplayable = report.findings.filter((f) => f.kind === 'unreplayable')
    expect(unreplayable.length).toBeGreaterThan(0)
    expect(unreplayable.every((f) => !f.breaks && f.message.includes('--fixture'))).toBe(true)
    // What the documents alone say (GET is gone, sign-in moved) still stands, and breaks.
    expect(code).toBe(1)
    expect(text).toContain('UNKNOWN unreplayable')
  })

  it('from 3.0.19 to itself: without --fixture only unreplayable findings and exit 2; with it nothing and exit 0', async () => {
    const without = await upgradeHere(['--usage', ownUsage319, '--to', '3.0.19'])
    expect(without.report.findings.length).toBeGreaterThan(0)
    expect(new Set(without.report.findings.map((f) => f.kind))).toEqual(new Set(['unreplayable']))
    expect(without.code).toBe(2)
    expect(without.err).toContain('--fixture')
    expect(without.text).not.toContain('nothing the client uses changes')
    const withFixture = await upgradeHere(['--usage', ownUsage319, '--to', '3.0.19', '--fixture', own.file])
    expect(withFixture.report.findings).toEqual([])
    expect(withFixture.code).toBe(0)
  })
})
