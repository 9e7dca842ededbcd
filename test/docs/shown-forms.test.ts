/**
 * The pages show what the mock sends today. Output and recordings quoted in docs/ are compared with
 * what the mock gives for the same request: the forms verify reports for DT_CREATION and
 * DT_LAST_UPDATE (docs/verify.md), and the field shapes of the recorded interaction (docs/usage.md).
 * DateTime values went from ISO 8601 texts to numbers such as 20240304081500, and the pages kept
 * showing the texts.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT } from '../cli/processes.ts'
import { codeBlocks } from '../helpers/markdown.ts'
import { IDS, startTestMock } from '../helpers/http.ts'
import { tempDir } from '../helpers/temp-dir.ts'
import { verify } from '../contracts/support.ts'

const page = (name: string) => readFileSync(join(ROOT, name), 'utf8')

describe("forms shown in docs/ are the mock's", () => {
  it('docs/verify.md shows the DT_CREATION and DT_LAST_UPDATE forms verify reports against the mock', async () => {
    const shown = [...page('docs/verify.md').matchAll(/^ {2}info ((?:DT_CREATION|DT_LAST_UPDATE) of [\w ]+ rows): (.+?) on \d+ of \d+/gm)]
    const created = [...page('docs/verify.md').matchAll(/^note save\.created-read-back: DT_CREATION of the new row is (.+?) \d+;/gm)]
    expect(shown.length).toBeGreaterThan(0)
    expect(created.length).toBeGreaterThan(0)
    const mock = await startTestMock()
    try {
      const base = [
        '--base-url',
        mock.url,
        '--org',
        IDS.org,
        '--username',
        IDS.admin.username,
        '--password',
        IDS.admin.password,
        '--workspace-id',
        IDS.workspaceId,
        '--application-id',
        IDS.applicationId,
        '--relation-key',
        IDS.relationKey,
      ]
      const run = await verify([...base, '--allow-writes', '--only', 'save.created-read-back'])
      expect(run.code, run.out + run.err).toBe(0)
      for (const [, what, form] of shown) expect(run.out).toContain(`info ${what}: ${form} on `)
      for (const [, form] of created) expect(run.out).toContain(`DT_CREATION of the new row is ${form} `)
    } finally {
      await mock.close()
    }
  })

  it("docs/usage.md's recorded interaction shows the field shapes the mock's answers record", async () => {
    const text = page('docs/usage.md')
    const block = codeBlocks('docs/usage.md', text).find((b) => b.language === 'json' && b.code.includes('"operation": "queryItems"'))
    expect(block).toBeDefined()
    const shown = JSON.parse(block?.code ?? '{}') as { answers: Record<string, { body: { items: { fields: Record<string, string> } } }> }
    const fields = shown.answers['200']?.body.items.fields ?? {}
    expect(Object.keys(fields)).toContain('DT_CREATION')
    const dir = tempDir('appdata-kit-shown-')
    const mock = await startTestMock({ recordUsage: join(dir, 'usage.json') })
    try {
      const token = await mock.signIn()
      expect((await mock.items(token, "$top=4&$skip=0&$orderby=Customer asc&$filter=Status eq 'Open'")).status).toBe(200)
      const recorded = mock.mock.usage().interactions.find((i) => i.operation === 'queryItems')
      const body = recorded?.answers['200']?.body as { items?: { fields?: Record<string, string> } } | undefined
      expect(Object.fromEntries(Object.keys(fields).map((name) => [name, body?.items?.fields?.[name]]))).toEqual(fields)
    } finally {
      await mock.close()
    }
  })
})
