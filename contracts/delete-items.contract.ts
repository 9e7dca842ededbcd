/** Delete: rows named with their version are gone; a stale version deletes nothing. */
import { deleteBody } from '../src/client/client.ts'
import { lookUpById } from './reads.ts'
import { createOwnMaster, ownRowWithStaleVersion, readById, shown } from './support.ts'
import type { Contract, ContractContext } from './types.ts'

export const removesRow: Contract = {
  id: 'delete.removes-row',
  title: 'A row deleted with its Id and TIMESTAMP is reported deleted and cannot be read afterwards',
  severity: 'critical',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  deviation: 'delete-noop',
  async run(ctx: ContractContext) {
    const own = await createOwnMaster(ctx)
    const deleted = await ctx.client.delete([{ relationKey: null, rows: [{ Id: own.id, TIMESTAMP: own.version }] }])
    ctx.check(deleted.ok && Number(deleted.result.DeletedItems) >= 1, { expected: 'the success flag true and DeletedItems at least 1', received: ctx.show(deleted.result) })
    const after = await lookUpById(ctx.client, own.id)
    ctx.check(after.state === 'gone', { expected: `no row ${own.id} after its delete`, received: after.state === 'found' ? ctx.show(after.row) : after.state === 'unclear' ? after.why : 'no row' })
    // Forgotten by the cleanup only when a read by its Id answered no row.
    if (after.state === 'gone') ctx.cleanup.done({ relationKey: null, id: own.id })
  },
}

export const staleRefused: Contract = {
  id: 'delete.stale-refused',
  title: 'A delete with a TIMESTAMP that is no longer the row\'s deletes nothing',
  severity: 'critical',
  holdsTo: 'description',
  writes: true,
  needs: ['writes'],
  deviation: 'accept-stale',
  async run(ctx: ContractContext) {
    const { own, stale, current } = await ownRowWithStaleVersion(ctx)
    const answer = await ctx.client.call('deleteItems', { body: deleteBody(ctx.profile, [{ relationKey: null, rows: [{ Id: own.id, TIMESTAMP: stale }] }]) })
    const after = await readById(ctx.client, own.id)
    ctx.check(after !== undefined, { expected: `row ${own.id} still there after a delete with its old TIMESTAMP`, received: `gone (${answer.status} ${ctx.show(answer.body, 150)})` })
    if (after !== undefined) ctx.check(after.TIMESTAMP === current.TIMESTAMP, { expected: `the row as updated (TIMESTAMP ${current.TIMESTAMP})`, received: after.TIMESTAMP })
  },
}

export const deletedCount: Contract = {
  id: 'delete.deleted-count',
  title: 'DeletedItems counts exactly the rows the request named',
  severity: 'low',
  holdsTo: 'mock',
  writes: true,
  needs: ['writes'],
  async run(ctx: ContractContext) {
    const [a, b] = [await createOwnMaster(ctx), await createOwnMaster(ctx)]
    const deleted = await ctx.client.delete([{ relationKey: null, rows: [{ Id: a.id, TIMESTAMP: a.version }, { Id: b.id, TIMESTAMP: b.version }] }])
    ctx.check(deleted.ok && deleted.result.DeletedItems === 2, { expected: 'DeletedItems 2', received: shown(deleted.result.DeletedItems) })
  },
}

export const contracts = [removesRow, staleRefused, deletedCount]
