/**
 * `upgrade` and `verify --usage` take time in proportion to the usage file: 8 times the
 * interactions take at most 10 times as long (medians of three; a ratio does not depend on the
 * machine's speed). What used to grow with the file beyond its interactions (every answer of both
 * replays held to the end, a read of the rows for every filtered shape) is what this holds.
 * 100,000 interactions are taken by the reader (test/usage-file/refusals.test.ts).
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { checkUpgrade } from '../../src/commands/upgrade/upgrade.ts'
import type { UsageFile } from '../../src/usage-file/file.ts'
import { IDS, startTestMock } from '../helpers/http.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { verify } from '../contracts/support.ts'
import { grownUsage, medianOfThree, recordSessionWithoutDeletes } from './support.ts'

const dir = sharedTempDir('appdata-kit-upgrade-growth-')
/** Interactions at n; the larger usage holds 8n. Large enough that the replay, not the start of the two mocks, is most of the time. */
const N = 250

let recorded: UsageFile
const files = { small: join(dir, 'n.json'), large: join(dir, '8n.json') }

beforeAll(async () => {
  recorded = await recordSessionWithoutDeletes(join(dir, 'recorded.json'), '3.0.19')
  writeFileSync(files.small, JSON.stringify(grownUsage(recorded, N)))
  writeFileSync(files.large, JSON.stringify(grownUsage(recorded, 8 * N)))
})

describe('time in proportion to the usage file', () => {
  it(`upgrade: ${8 * N} interactions take at most 10 times as long as ${N}`, async () => {
    const run = async (usage: string) => {
      const { run: result } = await checkUpgrade({ usage, to: '3.0.19' })
      // Replayed on both releases, every one: the time is the replay's, not a shortcut's.
      expect(result.replayed).toBe(result.interactions - result.refusalsOnly)
    }
    const small = await medianOfThree(() => run(files.small))
    const large = await medianOfThree(() => run(files.large))
    expect(large / small, `${N}: ${small.toFixed(0)} ms, ${8 * N}: ${large.toFixed(0)} ms`).toBeLessThanOrEqual(10)
  }, 120_000)

  it(`verify --usage: ${8 * N} interactions take at most 10 times as long as ${N}`, async () => {
    const mock = await startTestMock()
    try {
      const run = async (usage: string, interactions: number) => {
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
          '--usage',
          usage,
        ])
        expect(result.code, result.out + result.err).toBe(0)
        expect(result.out).toContain(`${interactions} interaction(s) recorded`)
      }
      const small = await medianOfThree(() => run(files.small, N))
      const large = await medianOfThree(() => run(files.large, 8 * N))
      expect(large / small, `${N}: ${small.toFixed(0)} ms, ${8 * N}: ${large.toFixed(0)} ms`).toBeLessThanOrEqual(10)
    } finally {
      await mock.close()
    }
  }, 120_000)
})
