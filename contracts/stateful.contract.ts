/**
 * Model-based: random sequences of creates, updates, stale updates, deletes, stale deletes and
 * reads of rows the contract creates itself, checked after each step against a small model of
 * those rows (which exist, and the row version each has). Only its own rows, so it is safe to run
 * against an installation others use; every row it creates is removed at the end of the run.
 */
import fc from 'fast-check'
import { deleteBody, rowVersion, successOf } from '../src/client/client.ts'
import { lookUpById } from './reads.ts'
import { createOwnMaster, fieldToRewrite, readById, shown, type OwnRow } from './support.ts'
import { checkProperty } from './property.ts'
import type { Contract, ContractContext } from './types.ts'

/** What the model knows of one own row: its version now, those it had, how it was made. */
interface OwnState {
  version: number
  older: number[]
  own: OwnRow
}

interface Model {
  /** Own rows that exist, with the version each has now and every version it had before. */
  rows: Map<number, OwnState>
}

interface Real {
  ctx: ContractContext
}

type Step = fc.AsyncCommand<Model, Real, false>

/** The row the pick names among the model's rows, in creation order. */
function picked(model: Model, pick: number): number | undefined {
  const ids = [...model.rows.keys()]
  return ids.length === 0 ? undefined : ids[pick % ids.length]
}

/** A check that fails the run (fast-check then shrinks the sequence and reports it). */
function expectThat(ok: boolean, what: string): void {
  if (!ok) throw new Error(what)
}

class Create implements Step {
  check = () => true
  async run(model: Model, real: Real): Promise<void> {
    const own = await createOwnMaster(real.ctx)
    expectThat(!model.rows.has(own.id), `create gave Id ${own.id}, which a row of this run already has`)
    model.rows.set(own.id, { version: own.version, older: [], own })
  }
  toString = () => 'create'
}

class Update implements Step {
  constructor(readonly pick: number) {}
  check = (model: Model) => model.rows.size > 0
  async run(model: Model, real: Real): Promise<void> {
    const id = picked(model, this.pick) as number
    const state = model.rows.get(id)!
    const saved = await real.ctx.client.save({ Rows: [{ Row: { Id: id, TIMESTAMP: state.version, ...fieldToRewrite(state.own) }, Details: [] }] })
    expectThat(saved.ok, `update of row ${id} with its current version was refused: ${real.ctx.show(saved.result, 200)}`)
    const after = await readById(real.ctx.client, id)
    expectThat(after !== undefined, `row ${id} is gone after its update`)
    const version = rowVersion(after!.TIMESTAMP)
    expectThat(version !== state.version && !state.older.includes(version), `row ${id} kept or reused a version (${version}) after its update`)
    model.rows.set(id, { ...state, version, older: [...state.older, state.version] })
  }
  toString = () => `update(#${this.pick})`
}

/** Whether some own row has a version it no longer holds. */
const hasStaleVersion = (model: Model) => [...model.rows.values()].some((row) => row.older.length > 0)

/** An own row with an older version of it, picked by `pick`. */
function staleVersion(model: Model, pick: number): { id: number; state: OwnState; stale: number } {
  const candidates = [...model.rows.entries()].filter(([, row]) => row.older.length > 0)
  const [id, state] = candidates[pick % candidates.length]!
  return { id, state, stale: state.older[pick % state.older.length]! }
}

class StaleUpdate implements Step {
  constructor(readonly pick: number) {}
  check = hasStaleVersion
  async run(model: Model, real: Real): Promise<void> {
    const { id, state, stale } = staleVersion(model, this.pick)
    const answer = await real.ctx.client.call('saveItems', {
      body: { Rows: [{ Row: { Id: id, TIMESTAMP: stale, ...fieldToRewrite(state.own) }, Details: [] }] },
    })
    expectThat(answer.status >= 400 || successOf(answer.body) === false, `an update of row ${id} with the stale version ${stale} was saved`)
    const after = await readById(real.ctx.client, id)
    expectThat(after !== undefined && rowVersion(after.TIMESTAMP) === state.version, `row ${id} changed after a refused stale update`)
  }
  toString = () => `staleUpdate(#${this.pick})`
}

class Delete implements Step {
  constructor(readonly pick: number) {}
  check = (model: Model) => model.rows.size > 0
  async run(model: Model, real: Real): Promise<void> {
    const id = picked(model, this.pick) as number
    const state = model.rows.get(id)!
    const deleted = await real.ctx.client.delete([{ relationKey: null, rows: [{ Id: id, TIMESTAMP: state.version }] }])
    expectThat(deleted.ok, `delete of row ${id} with its current version was refused: ${real.ctx.show(deleted.result, 200)}`)
    const after = await lookUpById(real.ctx.client, id)
    expectThat(after.state === 'gone', `row ${id} can still be read after its delete`)
    model.rows.delete(id)
    real.ctx.cleanup.done({ relationKey: null, id })
  }
  toString = () => `delete(#${this.pick})`
}

class StaleDelete implements Step {
  constructor(readonly pick: number) {}
  check = hasStaleVersion
  async run(model: Model, real: Real): Promise<void> {
    const { id, state, stale } = staleVersion(model, this.pick)
    await real.ctx.client.call('deleteItems', { body: deleteBody(real.ctx.profile, [{ relationKey: null, rows: [{ Id: id, TIMESTAMP: stale }] }]) })
    const after = await readById(real.ctx.client, id)
    expectThat(
      after !== undefined && rowVersion(after.TIMESTAMP) === state.version,
      `row ${id} was deleted or changed by a delete with the stale version ${stale}`,
    )
  }
  toString = () => `staleDelete(#${this.pick})`
}

class Read implements Step {
  constructor(readonly pick: number) {}
  check = (model: Model) => model.rows.size > 0
  async run(model: Model, real: Real): Promise<void> {
    const id = picked(model, this.pick) as number
    const after = await readById(real.ctx.client, id)
    expectThat(after !== undefined && rowVersion(after.TIMESTAMP) === model.rows.get(id)!.version, `row ${id} does not read back as the model has it`)
  }
  toString = () => `read(#${this.pick})`
}

const pick = fc.nat({ max: 20 })
// Weighted towards the sequences that can go wrong: a row updated, then sent with an older version.
const steps = [
  fc.constant(new Create()),
  pick.map((p) => new Update(p)),
  pick.map((p) => new Update(p)),
  pick.map((p) => new StaleUpdate(p)),
  pick.map((p) => new StaleUpdate(p)),
  pick.map((p) => new Delete(p)),
  pick.map((p) => new StaleDelete(p)),
  pick.map((p) => new Read(p)),
]

export const ownRows: Contract = {
  id: 'stateful.own-rows',
  title: 'Random sequences of creates, updates, stale updates, deletes and reads of its own rows behave as a model of them says',
  severity: 'high',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  tags: ['fuzz'],
  statements: ['save.update-procedure', 'delete.removes', 'resources.timestamp-required'],
  data: "random sequences (fast-check, fixed seed) of creates, updates, stale updates, deletes and reads of the run's own rows, held to a model of them",
  async run(ctx: ContractContext) {
    const { runs, seed } = ctx.target.fuzz
    const result = await checkProperty(
      ctx,
      fc.asyncProperty(fc.commands(steps, { maxCommands: 10 }), async (commands) => {
        await fc.asyncModelRun(() => ({ model: { rows: new Map() }, real: { ctx } }), commands)
      }),
      // Each sequence writes: half the robustness runs keeps a real installation's load small.
      { numRuns: Math.max(1, Math.ceil(runs / 2)), seed },
    )
    if (result.failed) {
      const error = result.errorInstance
      ctx.check(false, {
        expected: "every step to behave as the model of the run's own rows says",
        received: `${error instanceof Error && error.message !== '' ? error.message : String(error)} after ${shown(String(result.counterexample?.[0] ?? ''), 300)} (fast-check seed ${seed}, path ${result.counterexamplePath})`,
      })
    }
  },
}

export const contracts = [ownRows]
