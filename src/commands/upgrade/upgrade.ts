import { DEFAULTS, emulatedRelease } from '../../mock/config.ts'
import { prepareFixture } from '../../mock/mock.ts'
import { ConfigError } from '../../cli-base/exit.ts'
import { readUsageFile } from '../../usage-file/file.ts'
import { normalizeVersion } from '../../../spec/versions.ts'
import { ChangeCollector } from './compare.ts'
import { strictReleaseDocument } from './documents.ts'
import { applyIgnore, findingsOf } from './findings.ts'
import { readIgnoreFile } from '../kit/ignore-file.ts'
import { startReleaseMock, type ReleaseMock } from './release-mock.ts'
import { openRelease, ParsedBodies, replayInteraction, type OpenedRelease } from './replay.ts'
import { replayIds } from './replay-ids.ts'
import type { UpgradeRun } from './report.ts'

/**
 * `appdata-kit upgrade`: what a client meets when its installation moves to another release,
 * from its own usage file and no installation. The usage is replayed, in the client's form, against
 * in-process mocks of the release it was recorded on and of the target, both serving the fixture it
 * was recorded with; the two releases' answers are compared with each other and with what the
 * client received, and both releases' documents say what the client's operations became. Each
 * change is one finding however many recorded shapes meet it.
 */
export interface UpgradeOptions {
  /** The usage file (as `--record-usage` writes it). */
  usage: string
  /** The release to check against (`3.0.19`, `latest`, `2.9`). */
  to: string
  /** The release the usage was recorded on, when not the file's (or the file holds several). */
  from?: string
  /** The fixture the usage was recorded with; the default fixture when absent. */
  fixture?: string
  /** Accepted findings: an ignore file (src/commands/kit/ignore-file.ts). */
  ignore?: string
}

/** The run, and the secrets a writer must keep out of anything it writes (the fixture's passwords, the replay's tokens). */
export interface UpgradeResult {
  run: UpgradeRun
  secrets: string[]
}

/** The release the usage was recorded on: `--from`, else the one release its interactions name. */
function recordedRelease(releases: readonly string[], from: string | undefined): string {
  if (from !== undefined) return emulatedRelease(from)
  const distinct = [...new Set(releases.map((release) => normalizeVersion(release) ?? release))]
  if (distinct.length > 1)
    throw new ConfigError(`the usage holds interactions of several releases (${distinct.join(', ')}): say which to replay them on with --from`)
  return emulatedRelease(distinct[0] as string)
}

/**
 * Runs the check. Throws a ConfigError (a flag's value the command cannot use), a UsageFileError,
 * an IgnoreFileError or a FixtureError for inputs it cannot use; never touches anything but the
 * two mocks it builds in this process, which it closes again.
 */
export async function checkUpgrade(options: UpgradeOptions): Promise<UpgradeResult> {
  const to = emulatedRelease(options.to)
  const usage = readUsageFile(options.usage, { flag: '--usage' })
  if (usage.interactions.length === 0)
    throw new ConfigError(`${options.usage} records no interaction: nothing to check (did the tests run with --record-usage?)`)
  const from = recordedRelease(
    usage.interactions.map((i) => i.release),
    options.from,
  )
  const entries = options.ignore === undefined ? [] : readIgnoreFile(options.ignore, 'upgrade')
  const fixturePath = options.fixture ?? DEFAULTS.fixture
  const fixture = prepareFixture({ ...DEFAULTS, fixture: fixturePath })
  const ids = replayIds(fixture, usage)
  if (ids === undefined) throw new ConfigError(`${fixturePath}: the fixture has no application with a workspace and a user to replay the usage with`)
  const secrets = fixture.organization.users.map((user) => user.password)
  const mocks: ReleaseMock[] = []
  try {
    mocks.push(await startReleaseMock(from, fixturePath), await startReleaseMock(to, fixturePath))
    const sides: OpenedRelease[] = []
    const bodies = new ParsedBodies()
    for (const mock of mocks) sides.push(await openRelease(mock, ids, bodies))
    secrets.push(...sides.map((side) => side.token))
    const [recordedSide, targetSide] = sides as [OpenedRelease, OpenedRelease]
    const [fromView, toView] = [strictReleaseDocument(from), strictReleaseDocument(to)]
    // Each interaction on both releases, compared as soon as both answered: what is kept is its changes, not the answers.
    const collector = new ChangeCollector(usage.interactions, fromView, toView)
    let refusalsOnly = 0
    let replayed = 0
    for (const [index, interaction] of usage.interactions.entries()) {
      const [recorded, target] = await Promise.all([replayInteraction(recordedSide, interaction), replayInteraction(targetSide, interaction)])
      if ('skip' in recorded && recorded.refusalsOnly === true) refusalsOnly++
      if ('outcome' in recorded && 'outcome' in target) replayed++
      collector.add(interaction, index, recorded, target)
    }
    const { findings, ignored } = applyIgnore(findingsOf(collector.changes(), fromView, toView), entries)
    return {
      run: {
        usage: options.usage,
        fixture: options.fixture === undefined ? 'the default fixture' : `fixture ${options.fixture}`,
        interactions: usage.interactions.length,
        replayed,
        refusalsOnly,
        report: { from, to, findings, ...(ignored.length > 0 ? { ignored } : {}) },
      },
      secrets,
    }
  } finally {
    for (const mock of mocks) await mock.close()
  }
}
