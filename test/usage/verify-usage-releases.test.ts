/**
 * `verify --usage --allow-writes` with the usage of a client that uses every operation of 2.9
 * (recorded in this file): its replayed creates take an Identity value no row holds, so the usage
 * passes on 2.9 itself with no duplicate key of the replay's own making; against 3.0.19 its
 * failures read one line per cause, the query shapes the GET form's removal breaks among them.
 */
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { IDS, startTestMock } from '../helpers/http.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { verify } from '../contracts/support.ts'
import { recordFullUsage } from '../upgrade/support.ts'

const dir = sharedTempDir('appdata-kit-verify-usage-releases-')
const usage = join(dir, 'usage-2.9.json')

beforeAll(async () => {
  await recordFullUsage(usage, '2.9')
}, 120_000)

async function verifyOn(release: string) {
  const mock = await startTestMock({ productVersion: release })
  try {
    const result = await verify([
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
      '--allow-writes',
      '--usage',
      usage,
    ])
    // The deletes the run sent (its cleanup's among them), as the mock's journal holds them.
    const journal = await fetch(`${mock.url}/__mock/requests?operationId=deleteItems`)
    const deletes = ((await journal.json()) as { entries: Array<{ status: number; warnings: Array<{ code: string }> }> }).entries
    return { ...result, deletes }
  } finally {
    await mock.close()
  }
}

describe('verify --usage --allow-writes over a usage of every 2.9 operation', () => {
  it('passes on 2.9 itself: the create that sent an Identity value it had reserved is replayed with one no row holds', async () => {
    const result = await verifyOn('2.9')
    expect(result.code, result.out).toBe(0)
    expect(result.out).not.toContain('DUPLICATE_KEY')
    expect(result.out).toMatch(/cleanup: removed the \d+ row\(s\) this run created/)
  })

  it('against 3.0.19 fails one line per cause: the GET form once for every query shape, the flag once for save and delete, no duplicate key; the delete sent in the older body the client used', async () => {
    const result = await verifyOn('3.0.19')
    expect(result.code).toBe(1)
    expect(result.out).not.toContain('DUPLICATE_KEY')
    const fails = result.out.split('\n').filter((line) => line.startsWith('FAIL '))
    const gone = fails.filter((line) => line.includes('405'))
    expect(gone).toHaveLength(1)
    const more = /the same cause in (\d+) more interaction\(s\)/.exec(result.out.split('\n')[result.out.split('\n').indexOf(gone[0] as string) + 1] ?? '')
    expect(Number(more?.[1])).toBeGreaterThanOrEqual(20)
    expect(fails.filter((line) => line.includes('IsSaveSuccesfully is missing'))).toHaveLength(1)
    expect(fails.length).toBeLessThanOrEqual(5)
    // The client's own delete body, the older one, replayed on 3.0.19 too: the mock takes it with a warning.
    expect(result.deletes.filter((entry) => entry.warnings.some((warning) => warning.code === 'LEGACY_DELETE_BODY'))).toHaveLength(1)
  })
})
