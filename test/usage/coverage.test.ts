/**
 * `appdata-kit coverage` as a CI job runs it on a usage file: which operations, variants, query
 * options, filter operators and refusals of the document were used, in text, Markdown and JSON,
 * and `--fail-under` failing the job below a threshold.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { startTestMock } from '../helpers/http.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { ROOT, runToEnd } from '../cli/processes.ts'

const BIN = join(ROOT, 'bin/appdata-kit.js')
const dir = sharedTempDir('appdata-kit-coverage-')
const file = join(dir, 'usage.json')

beforeAll(async () => {
  const mock = await startTestMock({ recordUsage: file })
  const token = await mock.signIn()
  await mock.items(token, "$top=10&$orderby=Customer desc&$filter=Status eq 'Open'")
  await mock.items(token, '$inlinecount=allpages&$filter=MasterId eq 1&relationKey=OrderLines')
  await mock.request('GET', `/ExplorerApi/api/attachments?$filter=ParentId eq 1`, { headers: mock.dataHeaders(token) })
  await mock.items('wrong-token', '$top=1')
  await mock.close()
})

const coverage = (...args: string[]) => runToEnd(process.execPath, [BIN, 'coverage', ...args])

describe('appdata-kit coverage', () => {
  it('--format json names the operations used and those never used, with counts per item', async () => {
    const result = await coverage(file, '--format', 'json')
    expect(result.code, result.stderr).toBe(0)
    const report = JSON.parse(result.stdout)
    expect(report.used).toEqual(expect.arrayContaining(['signIn', 'queryItems', 'listAttachments']))
    expect(report.unused).toEqual(
      expect.arrayContaining(['saveItems', 'deleteItems', 'downloadAttachment', 'getIdentities', 'runAction', 'sendEmail', 'generateRowLink']),
    )
    expect(report.unused).not.toContain('queryItems')
    const items = report.operations.find((o: { operation: string }) => o.operation === 'queryItems').items as Array<{
      kind: string
      name: string
      count: number
    }>
    const count = (kind: string, name: string) => items.find((i) => i.kind === kind && i.name === name)?.count
    expect(count('query option', '$orderby desc')).toBe(1)
    expect(count('query option', '$orderby asc')).toBe(0)
    expect(count('query option', '$inlinecount')).toBe(1)
    expect(count('variant', 'detail rows')).toBe(1)
    expect(count('filter operator', 'eq')).toBe(2)
    expect(count('filter operator', 'contains')).toBe(0)
    expect(count('refusal', '401')).toBe(1)
    expect(count('refusal', '403')).toBe(0)
    expect(report.percent).toBeGreaterThan(0)
    expect(report.percent).toBeLessThan(50)
  })

  it('text lists used and never-used operations; Markdown makes a job summary table', async () => {
    const text = await coverage(file)
    expect(text.stdout).toMatch(/% of the document covered/)
    expect(text.stdout).toMatch(/never used: .*saveItems \(Save items\)/)
    const markdown = await coverage(file, '--format', 'markdown')
    expect(markdown.stdout).toMatch(/^### API coverage: [\d.]+%/)
    expect(markdown.stdout).toContain('| `queryItems` |')
    expect(markdown.stdout).toContain('~~`saveItems`~~')
    expect(markdown.stdout).toContain('$orderby desc ×1')
  })

  it('--fail-under exits 1 below the threshold and 0 at or above it; a bad threshold or file exits 2', async () => {
    const report = JSON.parse((await coverage(file, '--format', 'json')).stdout)
    const below = await coverage(file, '--fail-under', String(Math.ceil(report.percent + 1)))
    expect(below.code).toBe(1)
    expect(below.stderr).toContain('is below --fail-under')
    expect((await coverage(file, '--fail-under', String(Math.floor(report.percent)))).code).toBe(0)
    expect((await coverage(file, '--fail-under', '120')).code).toBe(2)
    const notUsage = join(dir, 'not-usage.json')
    writeFileSync(notUsage, '{"hello": 1}')
    const refused = await coverage(notUsage)
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('not a usage file')
    expect(readFileSync(file, 'utf8')).toContain('appdataKitUsage')
  })
})
