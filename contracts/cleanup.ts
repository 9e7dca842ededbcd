import { rowVersion, type Client } from '../src/client/client.ts'
import { lookUpById } from './reads.ts'

/** A row verify created and must remove again. */
export interface CreatedRow {
  relationKey: string | null
  id: number
}

/** A row the cleanup could not remove, or could not even name (`id` null: created, Id unknown), with why. */
export interface LeftRow {
  relationKey: string | null
  id: number | null
  reason: string
}

/** What the cleanup did: rows removed, and rows it could not remove, with why. */
export interface CleanupReport {
  removed: number
  left: LeftRow[]
}

const tableOf = (relationKey: string | null) => (relationKey === null ? 'master row' : `${relationKey} row`)

/**
 * The rows the contracts created, removed again at the end of a run, also after a failed
 * contract, a timeout or Ctrl-C. Detail rows go first, then masters, each with the version read
 * just before, so a row someone else changed meanwhile is left and reported, not overwritten.
 * A row counts as removed only when its delete succeeded or a read by its Id answered no row;
 * anything else, and every row created whose Id could not be found, is reported as left.
 */
/** Rows a save created that were not identified when it answered, with a last search for them. */
interface Unidentified {
  relationKey: string | null
  count: number
  why: string
  /** Looks for the rows again at cleanup time (Ids, most likely first); a contract may have been stopped before it could. */
  find?: (client: Client) => Promise<number[]>
}

export class Cleanup {
  readonly #rows: CreatedRow[] = []
  readonly #unknown: Unidentified[] = []
  /** Saves that create rows, sent and not yet settled: a run that quits now may leave what they create. */
  readonly #underway = new Set<{ relationKey: string | null; count: number }>()

  add(row: CreatedRow): void {
    if (!this.has(row)) this.#rows.push(row)
  }

  has(row: CreatedRow): boolean {
    return this.#rows.some((r) => r.relationKey === row.relationKey && r.id === row.id)
  }

  /**
   * Records rows a save created that could not be identified. The cleanup searches for them once
   * more with `find`; those still not found cannot be removed, only reported.
   */
  addUnknown(relationKey: string | null, count: number, why: string, find?: (client: Client) => Promise<number[]>): void {
    if (count > 0) this.#unknown.push({ relationKey, count, why, ...(find === undefined ? {} : { find }) })
  }

  /**
   * Notes a save that creates `count` rows as under way, until the returned function is called
   * (once its rows are claimed or recorded as unknown): a run that quits meanwhile lists them as
   * perhaps created, since the save may reach the server after the run is gone.
   */
  underway(relationKey: string | null, count: number): () => void {
    const save = { relationKey, count }
    this.#underway.add(save)
    return () => this.#underway.delete(save)
  }

  /** Forgets a row a contract removed itself. */
  done(row: CreatedRow): void {
    const index = this.#rows.findIndex((r) => r.relationKey === row.relationKey && r.id === row.id)
    if (index >= 0) this.#rows.splice(index, 1)
  }

  get size(): number {
    return this.#rows.length + this.#unknown.reduce((sum, group) => sum + group.count, 0)
  }

  /** The rows not removed (yet), one line each, for a run that has to quit before its cleanup ends. */
  pending(): string[] {
    return [
      ...this.#rows.map((row) => `${tableOf(row.relationKey)} ${row.id}`),
      ...this.#unknown.flatMap((group) => this.#unknownRows(group).map((row) => `${tableOf(row.relationKey)}: ${row.reason}`)),
      ...[...this.#underway].flatMap((save) =>
        Array.from({ length: save.count }, () => `${tableOf(save.relationKey)}: perhaps created, Id unknown: its save was under way when the run quit`),
      ),
    ]
  }

  #unknownRows(group: Unidentified): LeftRow[] {
    return Array.from({ length: group.count }, () => ({ relationKey: group.relationKey, id: null, reason: `created, Id unknown: ${group.why}` }))
  }

  /** Searches once more for the rows created but not identified; claims those found, reports the rest. */
  async #identify(client: Client): Promise<LeftRow[]> {
    const left: LeftRow[] = []
    for (const group of this.#unknown.splice(0)) {
      let found: number[] = []
      try {
        found = group.find === undefined ? [] : (await group.find(client)).slice(0, group.count)
      } catch {
        // Still not readable: reported below with the first reason.
      }
      for (const id of found) this.add({ relationKey: group.relationKey, id })
      left.push(...this.#unknownRows({ ...group, count: group.count - found.length }))
    }
    return left
  }

  /** Removes the rows; `show` says how a refusal's details may be shown (see show.ts). */
  async run(client: Client, show: (value: unknown) => string = (value) => JSON.stringify(value).slice(0, 200)): Promise<CleanupReport> {
    const report: CleanupReport = { removed: 0, left: await this.#identify(client) }
    const ordered = [...this.#rows.filter((r) => r.relationKey !== null), ...this.#rows.filter((r) => r.relationKey === null)]
    for (const row of ordered) {
      try {
        const found = await lookUpById(client, row.id, row.relationKey)
        if (found.state === 'gone') {
          // Gone already (a master's delete takes its detail rows with it).
          this.done(row)
          continue
        }
        if (found.state === 'unclear') {
          report.left.push({ ...row, reason: `it could not be read back by its Id to be deleted: ${found.why}` })
          continue
        }
        const outcome = await client.delete([{ relationKey: row.relationKey, rows: [{ Id: row.id, TIMESTAMP: rowVersion(String(found.row.TIMESTAMP)) }] }])
        if (outcome.ok) {
          report.removed++
          this.done(row)
        } else report.left.push({ ...row, reason: `the delete was refused: ${show(outcome.result.ReturnStates)}` })
      } catch (error) {
        report.left.push({ ...row, reason: (error as Error).message })
      }
    }
    return report
  }
}
