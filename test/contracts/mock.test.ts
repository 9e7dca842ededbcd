/**
 * The whole contract registry against the mock, for every release it emulates, in-process: every
 * contract that applies holds, the mock's own choices included, with writes allowed (and every
 * row a contract created removed again at the end).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONTRACTS } from '../../contracts/index.ts'
import { runContracts, type RunReport } from '../../contracts/runner.ts'
import { PROFILE_RELEASES } from '../../spec/profiles.ts'
import { injectTransport } from '../../src/wire/transport.ts'
import { FUZZ_SEED, runs } from '../helpers/property-runs.ts'
import { IDS, startTestMock, type TestClient } from '../helpers/http.ts'
import { mockTarget } from './support.ts'

for (const release of PROFILE_RELEASES) {
  describe(`every contract against the mock of ${release}`, () => {
    let mock: TestClient
    let report: RunReport
    let countBefore: number
    beforeAll(async () => {
      mock = await startTestMock({ productVersion: release })
      const token = await mock.signIn()
      countBefore = await mock.client(token).count()
      report = await runContracts(
        CONTRACTS,
        mockTarget(injectTransport(mock.mock.app), release, { allowWrites: true, fuzz: { runs: runs(25), seed: FUZZ_SEED } }),
      )
    }, 120_000)
    afterAll(() => mock?.close())

    it('runs every contract of the registry, skipping only those of other releases', () => {
      expect(report.results.map((r) => r.contract.id)).toEqual(CONTRACTS.map((c) => c.id))
      const skipped = report.results.filter((r) => r.outcome === 'skipped')
      expect(skipped.filter((r) => !/^not in release/.test(r.reason ?? '')).map((r) => `${r.contract.id}: ${r.reason}`)).toEqual([])
    })

    for (const contract of CONTRACTS) {
      it(`${contract.id} holds`, () => {
        const result = report.results.find((r) => r.contract.id === contract.id)
        expect(result?.failures ?? [], contract.title).toEqual([])
      })
    }

    it('leaves the data as it found it: every row a contract created is removed', async () => {
      expect(report.cleanup.left).toEqual([])
      const token = await mock.signIn()
      expect(await mock.client(token).count()).toBe(countBefore)
      expect(IDS.applicationId).toBeTruthy()
    })
  })
}
