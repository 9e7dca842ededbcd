/**
 * What verify reports as information where the description is silent (the order of rows without
 * $orderby, the forms of DT_CREATION, DT_LAST_UPDATE and the user fields): printed, in the JSON
 * and JUnit reports, and never a failure, whatever form an installation uses.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { STATEMENTS } from '../../contracts/audit.ts'
import { formOf } from '../../contracts/information.ts'
import { httpTransport } from '../../src/wire/transport.ts'
import { startTestMock } from '../helpers/http.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { itemsQuery, jsonOf, rewriting, withJson } from '../helpers/wire.ts'
import { verify, verifyFlags } from './support.ts'

const dir = sharedTempDir('appdata-kit-verify-information-')

describe("the form of a value, in the words of the product's data types", () => {
  it.each([
    [20240306112000, 'number yyyyMMddHHmmss'],
    [20240306, 'number yyyyMMdd'],
    [20240231, 'integer'],
    [20241306112000, 'integer'],
    [12.5, 'decimal number'],
    ['2024-03-04T08:15:00.000Z', 'ISO 8601 date-time text with offset'],
    ['2024-03-04T08:15:00', 'ISO 8601 date-time text without offset'],
    ['/Date(1709540100000)/', 'text /Date(milliseconds)/'],
    [['a', 'b'], 'array'],
    [true, 'boolean true/false'],
    [null, 'null'],
    ['Initech', 'text'],
  ])('%j is %s', (value, form) => {
    expect(formOf(value)).toBe(form)
  })
})

describe('verify reports what the description leaves open, as information', () => {
  it('prints it, writes it to the JSON and JUnit reports, and passes against the faithful mock', async () => {
    const mock = await startTestMock()
    try {
      const [first] = (await mock.client(await mock.signIn()).rows({ top: 1, orderBy: 'Id asc' })) as Array<Record<string, unknown>>
      const json = join(dir, 'report.json')
      const junit = join(dir, 'report.xml')
      const result = await verify([...verifyFlags(mock.url), '--json', json, '--junit', junit])
      expect(result.code, result.out).toBe(0)
      // Whatever form the mock answers its system dates in, the report names that one.
      expect(result.out).toContain(`info DT_CREATION of master rows: ${formOf(first?.DT_CREATION)} on 20 of 20`)
      expect(result.out).toContain('info order without $orderby: by Id ascending')
      const report = JSON.parse(readFileSync(json, 'utf8')) as { information: Array<{ topic: string; statement: string; finding: string }> }
      const ids = new Set(STATEMENTS.map((s) => s.id))
      expect(report.information.length).toBeGreaterThan(3)
      for (const finding of report.information) expect(ids.has(finding.statement), finding.statement).toBe(true)
      const xml = readFileSync(junit, 'utf8')
      expect(xml).toMatch(/<testsuite name="appdata-kit verify: information" tests="0" failures="0"[^>]*>\s*<properties>\s*<property name="scheme"/)
      expect(xml).toContain(
        '<property name="fields of master rows" value="IdRow: integer on 20 of 20; Customer: text on 20 of 20; Amount: decimal number on 20 of 20',
      )
    } finally {
      await mock.close()
    }
  })

  it('fails no contract of an installation whose rows carry other date forms and another order', async () => {
    const mock = await startTestMock()
    try {
      // An installation in front of the mock: DateTime numbers on every row, newest first without $orderby.
      const other = rewriting(httpTransport(mock.url, { timeoutMs: 20_000 }), (request, answer) => {
        const query = itemsQuery(request)
        if (query === '' || answer.status !== 200 || query.includes('$inlinecount')) return answer
        const rows = jsonOf(answer) as Array<Record<string, unknown>>
        const dated = rows.map((row) => ({ ...row, DT_CREATION: 20240306112000 + Number(row.Id), DT_LAST_UPDATE: null }))
        return withJson(answer, query.includes('$orderby') ? dated : dated.reverse())
      })
      const result = await verify([...verifyFlags(mock.url), '--as-installation', '--identity-field', 'IdRow'], { transport: other })
      expect(result.code, result.out).toBe(0)
      expect(result.out).toMatch(/info DT_CREATION of master rows: number yyyyMMddHHmmss on 20 of 20 \(e\.g\. 2024030611200\d\)/)
      expect(result.out).toContain('info DT_LAST_UPDATE of master rows: null on 20 of 20')
      expect(result.out).toContain('info order without $orderby: by Id descending')
    } finally {
      await mock.close()
    }
  })
})
