import { rowVersion, type Client } from '../src/client/client.ts'
import { readById } from './support.ts'

/** A row verify created and must remove again. */
export interface CreatedRow {
  relationKey: string | null
  id: number
}

/** What the cleanup did: rows removed, and rows it could not remove, with why. */
export interface CleanupReport {
  removed: number
  left: Array<CreatedRow & { reason: string }>
}

/**
 * The rows the contracts created, removed again at the end of a run, also after a failed
 * contract, a timeout or Ctrl-C. Detail rows go first, then masters, each with the version read
 * just before, so a row someone else changed meanwhile is left and reported, not overwritten.
 */
export class Cleanup {
  readonly #rows: CreatedRow[] = []

  add(row: CreatedRow): void {
    if (!this.#rows.some((r) => r.relationKey === row.relationKey && r.id === row.id)) this.#rows.push(row)
  }

  /** Forgets a row a contract removed itself. */
  done(row: CreatedRow): void {
    const index = this.#rows.findIndex((r) => r.relationKey === row.relationKey && r.id === row.id)
    if (index >= 0) this.#rows.splice(index, 1)
  }

  get size(): number {
    return this.#rows.length
  }

  async run(client: Client): Promise<CleanupReport> {
    const report: CleanupReport = { removed: 0, left: [] }
    const ordered = [...this.#rows.filter((r) => r.relationKey !== null), ...this.#rows.filter((r) => r.relationKey === null)]
    for (const row of ordered) {
      try {
        const current = await readById(client, row.id, row.relationKey)
        if (current === undefined) {
          // Gone already (a master's delete takes its detail rows with it).
          this.done(row)
          continue
        }
        const outcome = await client.delete([{ relationKey: row.relationKey, rows: [{ Id: row.id, TIMESTAMP: rowVersion(current.TIMESTAMP) }] }])
        if (outcome.ok) {
          report.removed++
          this.done(row)
        } else report.left.push({ ...row, reason: `the delete was refused: ${JSON.stringify(outcome.result.ReturnStates).slice(0, 200)}` })
      } catch (error) {
        report.left.push({ ...row, reason: (error as Error).message })
      }
    }
    return report
  }
}
