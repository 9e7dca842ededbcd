/**
 * What a side of the replay reads of its own state to make a request (the rows that fill a
 * recorded filter, the row a save updates) is read once while nothing that may change that state
 * is sent, and read again as soon as something is: a save replayed after another save of the same
 * row must send the row version the first one left.
 */
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULTS } from '../../src/mock/config.ts'
import { prepareFixture } from '../../src/mock/mock.ts'
import { startReleaseMock, type ReleaseMock } from '../../src/commands/upgrade/release-mock.ts'
import { openRelease, ParsedBodies, replayInteraction, type OpenedRelease } from '../../src/commands/upgrade/replay.ts'
import { replayIds } from '../../src/commands/upgrade/replay-ids.ts'
import type { Interaction, UsageFile } from '../../src/usage-file/file.ts'
import { sharedTempDir } from '../helpers/temp-dir.ts'
import { recordSessionWithoutDeletes } from './support.ts'

const dir = sharedTempDir('appdata-kit-upgrade-state-reads-')

describe("a side's reads of its own state", () => {
  let usage: UsageFile
  let mock: ReleaseMock
  let side: OpenedRelease
  /** The replay's own reads through its client (the interactions' requests go to the transport directly). */
  let reads: string[]
  let filtered: Interaction
  let update: Interaction

  beforeAll(async () => {
    usage = await recordSessionWithoutDeletes(join(dir, 'usage.json'), '3.0.19')
    filtered = usage.interactions.find(
      (i) => i.operation === 'queryItems' && i.request.query?.count !== true && i.request.query?.filter?.startsWith('Status') === true,
    ) as Interaction
    update = usage.interactions.find((i) => i.operation === 'saveItems' && (i.request.rows ?? []).some((kind) => kind.action === 'update')) as Interaction
    expect(filtered).toBeDefined()
    expect(update).toBeDefined()
    const ids = replayIds(prepareFixture({ ...DEFAULTS }), usage)
    if (ids === undefined) throw new Error('the default fixture has no application to replay with')
    mock = await startReleaseMock('3.0.19', DEFAULTS.fixture)
    side = await openRelease(mock, ids, new ParsedBodies())
    reads = []
    const call = side.client.call.bind(side.client)
    side.client.call = ((id: Parameters<typeof call>[0], input?: Parameters<typeof call>[1]) => {
      reads.push(`${id} ${JSON.stringify(input?.body ?? input?.query ?? {})}`)
      return call(id, input)
    }) as typeof side.client.call
  })
  afterAll(() => mock.close())

  it('reads the rows that fill a filter once while nothing else is sent', async () => {
    const first = await replayInteraction(side, filtered)
    const second = await replayInteraction(side, filtered)
    expect('outcome' in first && first.outcome.status).toBe(200)
    expect('outcome' in second && second.outcome.status).toBe(200)
    expect(reads).toHaveLength(1)
  })

  it('reads them again after a write, and a save of a row updated by the save before it sends the version that one left', async () => {
    const before = reads.length
    const saves = [await replayInteraction(side, update), await replayInteraction(side, update)]
    for (const saved of saves) {
      expect('outcome' in saved && saved.outcome.status).toBe(200)
      // Refused (CONCURRENCY) if the second save sent the row version read before the first.
      expect('outcome' in saved && saved.outcome.flag).toBe(true)
    }
    const afterSaves = reads.length
    await replayInteraction(side, filtered)
    expect(reads.length).toBe(afterSaves + 1)
    expect(afterSaves).toBeGreaterThan(before)
  })
})
