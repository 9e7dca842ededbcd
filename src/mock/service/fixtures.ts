import { isAbsolute, relative, resolve } from 'node:path'
import { generationTarget, withGeneratedRows } from '../../fixtures/generate.ts'
import { FixtureError, parseFixture, type FixtureProblem } from '../../fixtures/load.ts'
import { pointer } from '../../fixtures/fixture-error.ts'
import { ProblemError } from '../../errors.ts'
import type { Store } from '../../store/store.ts'
import type { Fixture } from '../../store/model/types.ts'

/** What the store holds after a reset or a load (the `FixtureSummary` schema). */
export interface FixtureSummary {
  organization: string
  applications: number
  users: number
  masterRows: number
  detailRows: number
  attachments: number
}

/** The answer to a fixture load (the `FixtureLoadResult` schema). */
export interface FixtureLoadResult {
  loaded: true
  generatedRows: number
  fixture: FixtureSummary
  /** The fixture's notices: rows that break their fields' rules (loaded as they are), older type names or forms. */
  warnings: string[]
}

/** How to load a fixture. */
export interface LoadFixtureOptions {
  /** Generated master rows to add to the fixture's first application. */
  rows?: number
  /** Seed of the generated rows (default 1, as `--seed`). */
  seed?: number
  /** Named in error messages. */
  source?: string
  /** Directory payload `file` paths resolve against. */
  baseDir: string
  /**
   * Refuse payload paths outside `baseDir`. On for HTTP: a control-plane caller must not be able
   * to make the mock read, and then serve as an attachment, any file of the machine it runs on.
   */
  confineFiles?: boolean
  /** `--time-zone`, over the fixture's own. */
  timeZone?: string
  /** Strict mode: refuse a fixture whose rows break their fields' rules (else they load, with warnings). */
  strict?: boolean
}

/** Counts of a fixture, for the control plane's answers. */
export function summarizeFixture(fixture: Fixture): FixtureSummary {
  let masterRows = 0
  let detailRows = 0
  for (const data of Object.values(fixture.data)) {
    masterRows += data.masters.length
    for (const rows of Object.values(data.details)) detailRows += rows.length
  }
  // A state file's snapshot: its rows are counted in it.
  masterRows += fixture.stored?.masterRows ?? 0
  detailRows += fixture.stored?.detailRows ?? 0
  const generated = fixture.generated
  if (generated !== undefined) {
    masterRows += generated.rows
    detailRows += generated.rows * (generated.detailsPerMaster ?? 2) * generationTarget(fixture, generated).details.length
  }
  return {
    organization: fixture.organization.physicalName,
    applications: fixture.applications.length,
    users: fixture.organization.users.length,
    masterRows,
    detailRows,
    attachments: fixture.attachments.length,
  }
}

/**
 * Checks a fixture object as start-up checks a fixture file, adds generated rows when asked, and
 * makes it the store's data. Throws `FixtureError` naming every problem's JSON path, and
 * changes nothing then.
 */
export function loadFixtureInto(store: Store, json: unknown, options: LoadFixtureOptions): FixtureLoadResult {
  const fixture = fixtureToLoad(json, options)
  store.reset(fixture)
  return loadResult(fixture, options)
}

/** As loadFixtureInto, without holding other clients: the new data is built and kept in slices (Store.resetInSlices). */
export async function loadFixtureInSlices(store: Store, json: unknown, options: LoadFixtureOptions, pause: () => Promise<void>): Promise<FixtureLoadResult> {
  const fixture = fixtureToLoad(json, options)
  await store.resetInSlices(fixture, pause)
  return loadResult(fixture, options)
}

/** What a load answers. */
function loadResult(fixture: Fixture, options: LoadFixtureOptions): FixtureLoadResult {
  return { loaded: true, generatedRows: options.rows ?? 0, fixture: summarizeFixture(fixture), warnings: fixture.notices ?? [] }
}

/** The fixture a load puts in place: checked, with the generated rows asked for. Throws FixtureError, or a 400 ProblemError for rows it cannot generate. */
function fixtureToLoad(json: unknown, options: LoadFixtureOptions): Fixture {
  const source = options.source ?? 'fixture'
  if (options.confineFiles === true) {
    const problems = escapingPayloads(json, options.baseDir)
    if (problems.length > 0) throw new FixtureError(source, problems)
  }
  let fixture = parseFixture(json, source, options.baseDir, {
    ...(options.timeZone === undefined ? {} : { timeZone: options.timeZone }),
    strict: options.strict === true,
  })
  const rows = options.rows ?? 0
  if (rows > 0) {
    try {
      fixture = withGeneratedRows(fixture, { rows, seed: options.seed ?? 1 })
    } catch (error) {
      if (error instanceof RangeError) throw new ProblemError('VALIDATION', error.message)
      throw error
    }
  }
  return fixture
}

/** Payload paths that are absolute or climb out of `baseDir`. */
function escapingPayloads(json: unknown, baseDir: string): FixtureProblem[] {
  const attachments = (json as { attachments?: unknown } | null)?.attachments
  if (!Array.isArray(attachments)) return []
  const problems: FixtureProblem[] = []
  attachments.forEach((attachment: unknown, index) => {
    const file = (attachment as { file?: unknown } | null)?.file
    if (typeof file !== 'string') return
    const inside = relative(baseDir, resolve(baseDir, file))
    if (isAbsolute(file) || inside.startsWith('..') || isAbsolute(inside)) {
      problems.push({
        path: pointer('attachments', index, 'file'),
        message: `must be a path inside ${baseDir} (the directory of the mock's fixture), got ${file}`,
      })
    }
  })
  return problems
}
