/**
 * `appdata-kit verify --usage FILE` against mocks: a usage recorded on a faithful mock passes on
 * one, and each fault of the installation the client relies on fails the interaction that meets
 * it, named in the client's terms; faults in what it never used pass. Bad files and flags exit 2.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { IDS, startTestMock } from '../helpers/http.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { verify } from '../contracts/support.ts'

const dir = sharedTempDir('appdata-kit-verify-usage-')
const file = join(dir, 'usage.json')

/** A session of reads: a filtered, ordered page and the next, a count, detail rows. */
beforeAll(async () => {
  const mock = await startTestMock({ recordUsage: file })
  const token = await mock.signIn()
  await mock.items(token, "$top=4&$orderby=Customer desc&$filter=Status eq 'Open'")
  await mock.items(token, "$top=4&$skip=4&$orderby=Customer desc&$filter=Status eq 'Open'")
  await mock.items(token, "$inlinecount=allpages&$filter=Status eq 'Open'")
  await mock.items(token, '$filter=MasterId eq 2&relationKey=OrderLines')
  await mock.close()
})

function flags(url: string, ...extra: string[]): string[] {
  return [
    '--base-url',
    url,
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
    '--usage',
    file,
    ...extra,
  ]
}

async function verifyAgainst(deviate: string[], ...extra: string[]) {
  const mock = await startTestMock({ deviate })
  try {
    return await verify(flags(mock.url, ...extra))
  } finally {
    await mock.close()
  }
}

describe('verify --usage', () => {
  it('passes against a faithful mock (exit 0), with every interaction replayed', async () => {
    const result = await verifyAgainst([])
    expect(result.code, result.out + result.err).toBe(0)
    expect(result.out).toContain('5 interaction(s) recorded')
    expect(result.out).toMatch(/5 passed, 0 failed, 0 skipped of 5 interactions/)
    expect(result.out).toContain('the installation serves every replayed interaction as the client saw it')
  })

  it.each([
    ['ignore-orderby', 'Get Items on master rows, filter Status eq <string>, order by Customer desc, top 4, skip: the installation ignores the order'],
    ['ignore-skip', 'Get Items on master rows, filter Status eq <string>, order by Customer desc, top 4, skip: the installation ignores $skip'],
    ['ignore-filter', 'Get Items on OrderLines, filter MasterId eq <integer>: the installation ignores the filter'],
    ['count-as-text', 'Get Items Count on master rows, filter Status eq <string>: Items[]._FieldCount_ is a text (the client received number)'],
    ['ignore-relation-key', 'Get Items on OrderLines, filter MasterId eq <integer>: the installation refuses the request (400'],
    ['id-as-text', "a row's Id is a text (the client received number)"],
  ])('fails (exit 1) against --deviate %s, naming the interaction', async (deviation, line) => {
    const result = await verifyAgainst([deviation])
    expect(result.code, result.out).toBe(1)
    expect(result.out).toContain(`FAIL ${line.startsWith('a row') ? '' : line}`)
    expect(result.out).toContain(line)
    expect(result.out).toContain('the installation would break the client')
  })

  it('says a cause once however many interactions meet it: the two pages the ignored order breaks are one FAIL line naming the other', async () => {
    const result = await verifyAgainst(['ignore-orderby'])
    expect(result.code).toBe(1)
    expect(result.out.match(/^FAIL /gm)).toHaveLength(1)
    expect(result.out).toContain(
      'the same cause in 1 more interaction(s): Get Items on master rows, filter Status eq <string>, order by Customer desc, top 4\n',
    )
    expect(result.out).toContain('2 interaction(s) answered otherwise than the client relies on')
  })

  it('passes against faults in what the client never used (downloads, attachment names, sign-in expiry as text)', async () => {
    const result = await verifyAgainst(['wrong-media-type', 'drop-attachment-name', 'relative-row-link'])
    expect(result.code, result.out).toBe(0)
  })

  it('writes its JUnit and JSON reports, one case per interaction, without the password', async () => {
    const junit = join(dir, 'usage.xml')
    const json = join(dir, 'usage-report.json')
    const result = await verifyAgainst(['ignore-orderby'], '--junit', junit, '--json', json)
    expect(result.code).toBe(1)
    const xml = readFileSync(junit, 'utf8')
    expect(xml).toContain('usage.queryItems.')
    expect(xml).toContain('the installation ignores the order')
    const report = JSON.parse(readFileSync(json, 'utf8'))
    expect(report.summary).toEqual({ passed: 3, failed: 2, skipped: 0 })
    expect(xml + JSON.stringify(report)).not.toContain(IDS.admin.password)
  })

  it('exits 2 for a file that is no usage file, and for --usage with --compare-with', async () => {
    const bad = join(dir, 'bad.json')
    writeFileSync(bad, '[]')
    const mock = await startTestMock()
    try {
      const notUsage = await verify([...flags(mock.url).slice(0, -1), bad])
      expect(notUsage.code).toBe(2)
      expect(notUsage.err).toContain('not a usage file')
      const both = await verify(flags(mock.url, '--compare-with', mock.url))
      expect(both.code).toBe(2)
      expect(both.err).toContain('--usage and --compare-with')
    } finally {
      await mock.close()
    }
  })
})
